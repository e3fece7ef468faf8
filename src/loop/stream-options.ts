// The options every event stream takes (`agent.stream`, `follow`, the answer streams, and the
// host's and fleet's streams over them), checked where they are given: a bound that is not a
// positive integer (NaN, a numeric string from an environment variable) would otherwise lift the
// memory bound silently — `queued > NaN` is never true — and a `signal` that is not an
// AbortSignal (or options that are not an object) would fail later, untyped.
// `LoopError('invalid-options')` names the bad value.
import { previewJson } from "../json/index.js";
import { LoopError } from "./types.js";

/**
 * Throws unless `options` is an object whose `maxBufferedChars` and `signal` are usable (both may
 * be absent): `refuse`'s error (the host's and the fleet's own `invalid-options`), by default
 * `LoopError('invalid-options')`.
 */
export function checkStreamOptions(
  options: { readonly maxBufferedChars?: unknown; readonly signal?: unknown },
  refuse: (message: string) => Error = (message) => new LoopError("invalid-options", message),
): void {
  // `follow(null)` and the like: a typed refusal, not a TypeError from the destructuring below.
  if (typeof options !== "object" || options === null)
    throw refuse(`options must be an object, got ${previewJson(options)}`);
  const { maxBufferedChars, signal } = options;
  if (maxBufferedChars !== undefined && !(Number.isSafeInteger(maxBufferedChars) && (maxBufferedChars as number) > 0))
    throw refuse(`maxBufferedChars must be a positive integer (characters), got ${previewJson(maxBufferedChars)}`);
  if (signal !== undefined && !(signal instanceof AbortSignal))
    throw refuse(`signal must be an AbortSignal, got ${previewJson(signal)}`);
}

/**
 * The reason a stream's aborted `signal` gives its turn (`aborted{reason}`): the signal's own,
 * when it has one to say — a string, or an Error other than the default `AbortError` (so
 * `AbortSignal.timeout()` says it timed out) — cut to 200 characters; else `client disconnected`.
 */
export function signalReason(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  const own =
    typeof reason === "string" ? reason : reason instanceof Error && reason.name !== "AbortError" ? reason.message : "";
  return own.trim() === "" ? "client disconnected" : own.slice(0, 200);
}
