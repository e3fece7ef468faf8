// Canonical headers and header equality. Empty system/tools/prefix are absent; equality and
// hashing use canonical (sorted-key) serialization, never insertion-order JSON.stringify.
import { createHash } from "node:crypto";
import { canonicalJson } from "../json/index.js";
/** The canonical form of `header`: same content, empty system/tools/prefix removed. */
export function canonicalHeader(header) {
    return {
        config: header.config,
        ...(header.system === undefined || header.system === "" ? {} : { system: header.system }),
        ...(header.tools === undefined || header.tools.length === 0 ? {} : { tools: header.tools }),
        ...(header.messagePrefix === undefined || header.messagePrefix.length === 0
            ? {}
            : { messagePrefix: header.messagePrefix }),
    };
}
/** Canonical serialization of the canonical form; the identity used for equality and hashing. */
export function headerKey(header) {
    return canonicalJson(canonicalHeader(header));
}
/** Equality of two headers under canonical form and canonical serialization. */
export function headerEquals(a, b) {
    return a === b || headerKey(a) === headerKey(b);
}
/** SHA-256 (hex) of `headerKey(header)`; equal headers hash equal. */
export function headerHash(header) {
    return createHash("sha256").update(headerKey(header)).digest("hex");
}
//# sourceMappingURL=canonical.js.map