// Content hash: SHA-256 over the canonical serialization.
import { createHash } from "node:crypto";
import { canonicalJson } from "./canonical.js";
/** Hex SHA-256 of `canonicalJson(value)`; equal for values equal under canonical equality. */
export function contentHash(value) {
    return createHash("sha256").update(canonicalJson(value)).digest("hex");
}
//# sourceMappingURL=hash.js.map