// What the encoders (`toUIMessageStream`, `toSSE` and the bodies and responses over them) are
// given, checked at the boundary: the events must be an async iterable (checked at the call), each
// value it yields a turn event — an object with a string `type` — with a JSON form (checked per
// event: the encoders end the stream with a typed `invalid-event` error, never a TypeError of
// their own). The options are options-check.ts's.
import type { TurnEvent } from "../loop/index.js";
import { COMMITTED_TURN_EVENT_TYPES, DELTA_TURN_EVENT_TYPES } from "../loop/turn-events.js"; // alone: keelson/serve is bundled for browsers
import { ServeError } from "./types.js";
import { valueName } from "./value-name.js";

/** Throws `ServeError('invalid-argument')` unless `events` is an async iterable. */
export function checkEvents(events: unknown, where: string): asserts events is AsyncIterable<TurnEvent> {
  if (typeof (events as { [Symbol.asyncIterator]?: unknown } | null)?.[Symbol.asyncIterator] !== "function")
    throw new ServeError(
      "invalid-argument",
      `${where}: events must be an async iterable of turn events (agent.stream(), agent.follow()), got ${valueName(events)}`,
    );
}

/**
 * `value` as a turn event, or `ServeError('invalid-event')`: an object with a string `type`; a
 * committed type with its `seq` (an integer ≥ 0: without it the event would pass for a live one —
 * a `finish-step` with no step started), an answer or a result with its content array, a delta with
 * its text.
 */
export function turnEventOf(value: unknown): TurnEvent {
  const isObject = typeof value === "object" && value !== null;
  const type: unknown = isObject ? (value as { type?: unknown }).type : undefined;
  if (typeof type !== "string") {
    const got = isObject ? `an object whose type is ${valueName(type)}` : valueName(value);
    throw new ServeError("invalid-event", `the events yielded ${got}, not a turn event`);
  }
  const event = value as { seq?: unknown; content?: unknown; delta?: unknown };
  const problem = COMMITTED_TURN_EVENT_TYPES.has(type)
    ? !(Number.isSafeInteger(event.seq) && (event.seq as number) >= 0)
      ? `its seq ${valueName(event.seq)} is not a log position`
      : (type === "assistant-message" || type === "tool-result") && !Array.isArray(event.content)
        ? `its content ${valueName(event.content)} is not an array`
        : undefined
    : DELTA_TURN_EVENT_TYPES.has(type) && typeof event.delta !== "string"
      ? `its delta ${valueName(event.delta)} is not text`
      : undefined;
  if (problem !== undefined) throw new ServeError("invalid-event", `the ${valueName(type)} event: ${problem}`);
  return value as TurnEvent;
}

/**
 * The JSON text of what an encoder writes for `event`, or `ServeError('invalid-event')` when it
 * has none (a cycle, a bigint) or one that is not its fields (a `toJSON` of its own: the frame's
 * `event:` and `id:` lines, read from the fields, would not match its data).
 */
export function eventJson(value: unknown, event: TurnEvent): string {
  const refuse = (why: string, cause?: unknown): never => {
    const seq = "seq" in event ? ` (seq ${valueName(event.seq)})` : "";
    throw new ServeError("invalid-event", `the ${valueName(event.type)} event${seq} ${why}`, { cause });
  };
  if (typeof (value as { toJSON?: unknown }).toJSON === "function")
    refuse("has a toJSON method: its JSON form would not be its fields");
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch (error) {
    refuse(`cannot be written as JSON: ${error instanceof Error ? error.message : String(error)}`, error);
  }
  return json ?? refuse("has no JSON form");
}
