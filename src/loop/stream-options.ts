// The options every event stream takes (`agent.stream`, `follow`, the answer streams, and the
// host's and fleet's streams over them), checked where they are given: a bound that is not a
// positive integer (NaN, a numeric string from an environment variable) would otherwise lift the
// memory bound silently — `queued > NaN` is never true — and a `signal` that is not an
// AbortSignal (or options that are not an object) would fail later, untyped.
// `LoopError('invalid-options')` names the bad value.
import { previewJson } from "../json/index.js";
import { LoopError } from "./types.js";

/** The options each of the agent's doors takes: any other key is refused (a misspelt `sigal` would drop the cancel). */
const OPTION_KEYS = {
  stream: ["signal", "maxBufferedChars", "output", "repair"],
  streamAnswers: ["signal", "maxBufferedChars"],
  follow: ["from", "maxBufferedChars"],
  send: ["output", "repair"],
} as const;

/** An agent method that takes options. */
export type OptionsDoor = keyof typeof OPTION_KEYS;

const loopRefusal = (message: string): Error => new LoopError("invalid-options", message);

/**
 * Throws unless `options` is an object whose `maxBufferedChars` and `signal` are usable (both may
 * be absent) and — given the agent method `door` — that has no key the method does not take (one
 * whose value is `undefined` is let be): `refuse`'s error (the host's and the fleet's own
 * `invalid-options`, which check their own keys), by default `LoopError('invalid-options')`.
 */
export function checkStreamOptions(
  options: { readonly maxBufferedChars?: unknown; readonly signal?: unknown },
  refuse: (message: string) => Error = loopRefusal,
  door?: OptionsDoor,
): void {
  // `follow(null)` and the like: a typed refusal, not a TypeError from the destructuring below.
  if (typeof options !== "object" || options === null)
    throw refuse(`options must be an object, got ${previewJson(options)}`);
  if (door !== undefined) checkOptionKeys(options, door);
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

/** `send`'s options, checked as `checkStreamOptions` checks a stream's keys (absent: none). */
export function sendOptions<T extends object>(options: T | undefined): T | Record<string, never> {
  if (options === undefined) return {};
  if (typeof options !== "object" || options === null)
    throw loopRefusal(`options must be an object, got ${previewJson(options)}`);
  checkOptionKeys(options, "send");
  return options;
}

function checkOptionKeys(options: object, door: OptionsDoor): void {
  const known: readonly string[] = OPTION_KEYS[door];
  for (const key of Object.keys(options))
    if (!known.includes(key) && (options as Record<string, unknown>)[key] !== undefined)
      throw loopRefusal(`${door} has no option ${previewJson(key)} (it takes ${known.join(", ")})`);
}
