// The options every event stream takes (`agent.stream`, `follow`, the answer streams, and the
// host's and fleet's streams over them), checked where they are given: a bound that is not a
// positive integer (NaN, a numeric string from an environment variable) would otherwise lift the
// memory bound silently — `queued > NaN` is never true — and a `signal` that is not an
// AbortSignal would fail later, untyped. `LoopError('invalid-options')` names the bad value.
import { previewJson } from "../json/index.js";
import { LoopError } from "./types.js";

/**
 * Throws unless `maxBufferedChars` and `signal` are usable (both may be absent): `refuse`'s error
 * (the host's and the fleet's own `invalid-options`), by default `LoopError('invalid-options')`.
 */
export function checkStreamOptions(
  options: { readonly maxBufferedChars?: unknown; readonly signal?: unknown },
  refuse: (message: string) => Error = (message) => new LoopError("invalid-options", message),
): void {
  const { maxBufferedChars, signal } = options;
  if (maxBufferedChars !== undefined && !(Number.isSafeInteger(maxBufferedChars) && (maxBufferedChars as number) > 0))
    throw refuse(`maxBufferedChars must be a positive integer (characters), got ${shown(maxBufferedChars)}`);
  if (signal !== undefined && !(signal instanceof AbortSignal))
    throw refuse(`signal must be an AbortSignal, got ${shown(signal)}`);
}

/** A bad value as the message shows it: a number as written (`NaN`, not JSON's `null`), anything else as JSON. */
const shown = (value: unknown): string => (typeof value === "number" ? String(value) : previewJson(value));
