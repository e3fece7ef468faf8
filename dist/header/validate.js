// Shape validation for headers and deltas read from a log or handed in by a caller. The checks
// themselves live in the session layer (so `Session.append` can refuse a malformed header
// before logging it); this wraps them into `HeaderError`s.
import { epochHeaderProblem, headerDeltaProblem } from "../session/index.js";
import { HeaderError } from "./types.js";
const where = (seq) => (seq === undefined ? "" : ` at seq ${seq}`);
/** Asserts an `EpochHeader` shape: config (model, typed sampling fields), system, tools, prefix. */
export function validateEpochHeader(raw, seq) {
    const problem = epochHeaderProblem(raw);
    if (problem !== undefined)
        throw new HeaderError("invalid-header", `invalid request header${where(seq)}: ${problem}`, seq);
}
/** Asserts a `HeaderDelta` shape. */
export function validateHeaderDelta(raw, seq) {
    const problem = headerDeltaProblem(raw);
    if (problem !== undefined)
        throw new HeaderError("invalid-delta", `invalid header delta${where(seq)}: ${problem}`, seq);
}
//# sourceMappingURL=validate.js.map