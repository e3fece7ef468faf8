import { canonicalHeader } from "./canonical.js";
import { applyHeaderDelta } from "./delta.js";
import { HeaderError } from "./types.js";
import { validateEpochHeader, validateHeaderDelta } from "./validate.js";
/**
 * The header after `event`, given the header before it (`undefined` = no snapshot yet).
 * Non-header events return `current` unchanged. Throws `HeaderError` on a delta before any
 * snapshot (`delta-before-snapshot`), a malformed header or delta, or a delta that does not
 * apply (`delta-mismatch`) — each naming the event's seq.
 */
export function foldHeaderEvent(current, event) {
    if (event.type === "request/header") {
        const header = event.data.header;
        validateEpochHeader(header, event.seq);
        return canonicalHeader(header);
    }
    if (event.type !== "request/header-delta")
        return current;
    const delta = event.data;
    validateHeaderDelta(delta, event.seq);
    if (current === undefined) {
        throw new HeaderError("delta-before-snapshot", `request/header-delta at seq ${event.seq} comes before any request/header snapshot: the log is corrupt`, event.seq);
    }
    try {
        return applyHeaderDelta(current, delta);
    }
    catch (e) {
        if (e instanceof HeaderError)
            throw new HeaderError(e.code, `${e.message} (request/header-delta at seq ${event.seq})`, event.seq);
        throw e;
    }
}
/** The header folded over `events` (any prefix of a log); `undefined` if none was logged yet. */
export function foldRequestHeader(events) {
    let header;
    for (const event of events)
        header = foldHeaderEvent(header, event);
    return header;
}
//# sourceMappingURL=fold.js.map