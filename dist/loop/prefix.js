// Session-prefix composition (the seed's seam): the `agent/session-prefix` waterfall over a
// frozen empty seed, validated as lossless JSON and as a message list, then copied and frozen.
//
// Allowed content: any valid message — `user` (text, image), `assistant` (text, reasoning,
// tool-call) or `tool` (one tool-result) — though a prefix is meant for user-role openers such
// as a `<system-reminder>` catalog; tool pairing inside the prefix is the contributor's concern.
import { JsonError, snapshotJson } from "../json/index.js";
import { MessageShapeError, validateMessages } from "../messages/index.js";
import { LoopError } from "./types.js";
const EMPTY_SEED = Object.freeze([]);
/** The frozen empty seed every composition starts from. */
export function prefixSeed() {
    return EMPTY_SEED;
}
/** Validates a composed prefix and returns a deep-frozen, detached copy. Throws `LoopError('invalid-prefix')`. */
export function freezePrefix(composed) {
    let copy;
    try {
        copy = snapshotJson(composed, "sessionPrefix", { freeze: true });
        validateMessages(copy, "sessionPrefix");
    }
    catch (e) {
        if (e instanceof JsonError || e instanceof MessageShapeError) {
            throw new LoopError("invalid-prefix", `the composed session prefix is invalid: ${e.message}`, { cause: e });
        }
        throw e;
    }
    return copy;
}
//# sourceMappingURL=prefix.js.map