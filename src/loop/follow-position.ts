// Where a follower may start: `from` is the last seq it has (-1: nothing yet), so it must be an
// integer from -1 to the log's last seq. One check for the agent, the host and the fleet, with one
// pair of codes: not a position at all is `invalid-position` (HTTP 400), a well-formed position
// at or past the end of the log is `position-beyond-log` (HTTP 416) — the codes keelson/serve
// uses for the same request header.
import { previewJson } from "../json/index.js";

export type FollowPositionFault = "invalid-position" | "position-beyond-log";

/** Why `from` is no place to follow a log of `length` events from, with the message; undefined when it is one. */
export function followPositionFault(
  from: unknown,
  length: number,
  what: string,
): { readonly code: FollowPositionFault; readonly message: string } | undefined {
  const seqs = length === 0 ? "the log is empty" : `the log has seqs 0..${length - 1}`;
  // Any integer counts as a position (2 ** 53 is one, past every log: 416, as keelson/serve's
  // followFrom says of a header of 20 digits), only a safe one can be read from.
  if (typeof from !== "number" || !Number.isInteger(from) || from < -1)
    return {
      code: "invalid-position",
      message: `${what} from seq ${typeof from === "number" ? String(from) : previewJson(from, 80)}: not an integer ≥ -1 (${seqs})`,
    };
  if (from >= length || !Number.isSafeInteger(from))
    return { code: "position-beyond-log", message: `${what} from seq ${from}: ${seqs}` };
  return undefined;
}
