// foldRequestHeader: the header in force after any prefix of a log. A pure reducer, so
// reconstruction can fold incrementally and the CLI can fold a stored log.
import { isEventOf, type SessionEvent } from "../session/index.js";
import { canonicalHeader } from "./canonical.js";
import { applyHeaderDelta } from "./delta.js";
import { type EpochHeader, HeaderError, type HeaderDelta } from "./types.js";
import { validateEpochHeader, validateHeaderDelta } from "./validate.js";

/**
 * The request header a `request/header` snapshot logged, typed: the payload is checked as
 * `Session.append` and every load check it (so on a loaded log this cannot throw); a payload
 * they would refuse throws `HeaderError('invalid-header')` naming the seq.
 */
export function snapshotHeaderOf(event: SessionEvent<"request/header">): EpochHeader {
  const { header } = event.data;
  validateEpochHeader(header, event.seq);
  return header;
}

/** The delta a `request/header-delta` logged, typed (checked as `snapshotHeaderOf` checks a snapshot). */
export function headerDeltaOf(event: SessionEvent<"request/header-delta">): HeaderDelta {
  const delta = event.data;
  validateHeaderDelta(delta, event.seq);
  return delta;
}

/**
 * The header after `event`, given the header before it (`undefined` = no snapshot yet).
 * Non-header events return `current` unchanged. Throws `HeaderError` on a delta before any
 * snapshot (`delta-before-snapshot`), a malformed header or delta, or a delta that does not
 * apply (`delta-mismatch`) — each naming the event's seq.
 */
export function foldHeaderEvent(current: EpochHeader | undefined, event: SessionEvent): EpochHeader | undefined {
  if (isEventOf(event, "request/header")) return canonicalHeader(snapshotHeaderOf(event));
  if (!isEventOf(event, "request/header-delta")) return current;
  const delta = headerDeltaOf(event);
  if (current === undefined) {
    throw new HeaderError(
      "delta-before-snapshot",
      `request/header-delta at seq ${event.seq} comes before any request/header snapshot: the log is corrupt`,
      event.seq,
    );
  }
  try {
    return applyHeaderDelta(current, delta);
  } catch (e) {
    if (e instanceof HeaderError)
      throw new HeaderError(e.code, `${e.message} (request/header-delta at seq ${event.seq})`, event.seq);
    throw e;
  }
}

/** The header folded over `events` (any prefix of a log); `undefined` if none was logged yet. */
export function foldRequestHeader(events: readonly SessionEvent[]): EpochHeader | undefined {
  let header: EpochHeader | undefined;
  for (const event of events) header = foldHeaderEvent(header, event);
  return header;
}

/**
 * The same header as `foldRequestHeader(events)`, folding only from the last `request/header`
 * snapshot on (a snapshot replaces whatever came before it), so its cost does not grow with the
 * log's length. Deltas before that snapshot are not re-checked: use `foldRequestHeader` (or
 * `verifyLog`) to validate a whole log.
 */
export function foldLatestRequestHeader(events: readonly SessionEvent[]): EpochHeader | undefined {
  let start = events.length - 1;
  while (start >= 0 && events[start]!.type !== "request/header") start--;
  let header: EpochHeader | undefined;
  for (let i = Math.max(0, start); i < events.length; i++) header = foldHeaderEvent(header, events[i]!);
  return header;
}
