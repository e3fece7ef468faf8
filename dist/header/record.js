// The header writer's decision, as a pure function (ARCHITECTURE.md §3):
//   first request of an instance → snapshot `initial` (log has no header) or `resume`;
//   equal to the fold → nothing; else a delta if it reproduces the header exactly, otherwise
//   a `fallback` snapshot.
import { canonicalHeader, headerEquals } from "./canonical.js";
import { applyHeaderDelta, diffHeader } from "./delta.js";
import { HeaderError } from "./types.js";
export function decideHeaderRecord({ folded, next, firstOfInstance }) {
    const header = canonicalHeader(next);
    if (folded === undefined)
        return { kind: "snapshot", reason: "initial", header };
    if (firstOfInstance)
        return { kind: "snapshot", reason: "resume", header };
    if (headerEquals(folded, header))
        return { kind: "none" };
    const delta = diffHeader(folded, header);
    if (delta !== undefined) {
        try {
            if (headerEquals(applyHeaderDelta(folded, delta), header))
                return { kind: "delta", delta };
        }
        catch (e) {
            if (!(e instanceof HeaderError))
                throw e;
        }
    }
    return { kind: "snapshot", reason: "fallback", header };
}
//# sourceMappingURL=record.js.map