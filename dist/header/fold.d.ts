import type { SessionEvent } from "../session/index.js";
import { type EpochHeader } from "./types.js";
/**
 * The header after `event`, given the header before it (`undefined` = no snapshot yet).
 * Non-header events return `current` unchanged. Throws `HeaderError` on a delta before any
 * snapshot (`delta-before-snapshot`), a malformed header or delta, or a delta that does not
 * apply (`delta-mismatch`) — each naming the event's seq.
 */
export declare function foldHeaderEvent(current: EpochHeader | undefined, event: SessionEvent): EpochHeader | undefined;
/** The header folded over `events` (any prefix of a log); `undefined` if none was logged yet. */
export declare function foldRequestHeader(events: readonly SessionEvent[]): EpochHeader | undefined;
