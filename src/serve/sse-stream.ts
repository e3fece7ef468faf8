// Plain server-sent events over a turn's events, for clients that do not use the AI SDK: one
// frame per turn event — `id: <seq>` on committed events (so a reconnecting EventSource sends
// `Last-Event-ID`), `event: <type>`, `data: <the event's JSON>`. Live deltas carry no id: a
// client's position only moves on what the log holds. An iteration that throws ends the stream
// with a `stream-error` frame (`{ code, message }`, the message bounded); so does an event that
// cannot be framed (`invalid-event`: no turn event, no JSON form, a type that is not a plain
// token, a seq that is not an integer) — nothing of it reaches the wire raw.
import type { ServerResponse } from "node:http";
import { errorMessage } from "../errors/index.js";
import type { TurnEvent } from "../loop/index.js";
import { checkEvents, eventJson, turnEventOf } from "./encoder-input.js";
import {
  checkOptions,
  checkResponseOptions,
  checkServerResponse,
  ENCODE_OPTION_KINDS,
  KEEP_ALIVE_OPTION_KINDS,
  type OptionKinds,
  RESPONSE_OPTION_KINDS,
} from "./options-check.js";
import { webResponse, writeBody } from "./http-response.js";
import { type KeepAliveOptions, keepAliveComment, keepAliveMsOf } from "./keep-alive.js";
import { isTurnStream, pullStream } from "./pull-stream.js";
import { type SSEFrame, sseBytes, sseIdBytes } from "./sse-frames.js";
import { type EncodeOptions, type ResponseOptions, ServeError } from "./types.js";
import { boundedErrorText } from "./ui-parts.js";
import { valueName } from "./value-name.js";

/** The headers of a plain SSE response. */
export const SSE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  "content-type": "text/event-stream",
  "cache-control": "no-cache",
  connection: "keep-alive",
  "x-accel-buffering": "no",
});

/** The frame name of the error that ends a stream (not `error`, which EventSource uses itself). */
export const SSE_ERROR_EVENT = "stream-error";

export interface SSEOptions extends EncodeOptions, KeepAliveOptions {
  /** Which events to send; default `isClientTurnEvent` (everything but request headers and added context). */
  readonly include?: (event: TurnEvent) => boolean;
}

const SSE_KINDS: OptionKinds = { ...ENCODE_OPTION_KINDS, ...KEEP_ALIVE_OPTION_KINDS, include: "function" };
const RESPONSE_KINDS: OptionKinds = { ...SSE_KINDS, ...RESPONSE_OPTION_KINDS };

/** Logged events a browser is not sent by default: the request configuration and context an app added. */
const PRIVATE_LOG_TYPES: ReadonlySet<string> = new Set(["request/header", "request/header-delta", "context/message"]);

/** What an `event:` line may carry: a plain token, as every turn event's type is (`turn-start`, `text-delta`). */
const EVENT_NAME = /^[A-Za-z0-9_./-]{1,64}$/;

/**
 * The default filter: every turn event except the `log-event`s of `request/header` and
 * `request/header-delta` (the system prompt, tool schemas and model settings) and
 * `context/message` (context an app or plugin added). Their seqs are simply skipped.
 */
export const isClientTurnEvent = (event: TurnEvent): boolean =>
  event.type !== "log-event" || !PRIVATE_LOG_TYPES.has(event.event.type);

/** The event as sent: a turn-end's outcome keeps `turn`, `reason`, `text`, `saved` (not `storeError`). */
export function wireTurnEvent(event: TurnEvent): TurnEvent {
  if (event.type !== "turn-end" || event.outcome === undefined) return event;
  const { turn, reason, text, saved } = event.outcome;
  return { ...event, outcome: { turn, reason, text, ...(saved === undefined ? {} : { saved }) } };
}

/**
 * A turn's events as `text/event-stream` bytes, read only as fast as they are read. Throws
 * `ServeError('invalid-argument')` for events that are not an async iterable, `invalid-options`
 * for options of the wrong type.
 */
export function toSSE(events: AsyncIterable<TurnEvent>, options: SSEOptions = {}): ReadableStream<Uint8Array> {
  return sseBody(events, options, "toSSE", SSE_KINDS, false);
}

/** A web `Response` with the SSE body (status 200 unless given). */
export function sseResponse(events: AsyncIterable<TurnEvent>, init: SSEOptions & ResponseOptions = {}): Response {
  checkResponseOptions(init);
  return webResponse(sseBody(events, init, "sseResponse", RESPONSE_KINDS, false), SSE_HEADERS, init);
}

/**
 * Streams the SSE body to a node:http response; resolves when written or the client is gone. The
 * status and headers of a turn stream (`agent.stream()`, `host.stream()`) go with its first frame:
 * a failure before it (the turn could not start — the session is `locked`) rejects with that error
 * and writes nothing, for the caller to answer with a status (http-response.ts). A follow's go at once.
 */
export async function pipeSSE(
  events: AsyncIterable<TurnEvent>,
  res: ServerResponse,
  options: SSEOptions & ResponseOptions = {},
): Promise<void> {
  checkServerResponse(res, "pipeSSE");
  checkResponseOptions(options);
  const opening = isTurnStream(events); // a turn may fail to start: its status waits for its first event
  await writeBody(res, sseBody(events, options, "pipeSSE", RESPONSE_KINDS, opening), SSE_HEADERS, options, opening);
}

function sseBody(
  events: AsyncIterable<TurnEvent>,
  options: SSEOptions,
  where: string,
  kinds: OptionKinds,
  failBeforeOutput: boolean,
): ReadableStream<Uint8Array> {
  checkEvents(events, where);
  checkOptions(options, kinds, where);
  const keepAliveMs = keepAliveMsOf(options);
  const include = options.include ?? isClientTurnEvent;
  const ids = new DurableIds(durableThroughOf(events));
  return pullStream(
    events,
    {
      encode: (value) => {
        const event = turnEventOf(value);
        if (!include(event)) return [];
        const frame = ids.frame(eventFrame(event));
        const caughtUp = ids.catchUp();
        return caughtUp === undefined ? [sseBytes(frame)] : [caughtUp, sseBytes(frame)];
      },
      end: (failure) => {
        const caughtUp = ids.catchUp();
        const error = failure === undefined ? [] : [sseBytes(errorFrame(failure.error))];
        return caughtUp === undefined ? error : [caughtUp, ...error];
      },
      heartbeat: () => ids.catchUp() ?? keepAliveComment(),
    },
    { ...options, failBeforeOutput, keepAliveMs },
  );
}

/** How far the log of a turn stream or follow is durable (`TurnStream.durableThrough`), when it says. */
function durableThroughOf(events: AsyncIterable<TurnEvent>): (() => number) | undefined {
  const durableThrough = (events as { durableThrough?: unknown }).durableThrough;
  return typeof durableThrough === "function" ? () => durableThrough.call(events) as number : undefined;
}

/**
 * The ids a stream gives: a committed event's seq only once the log is durable through it (a
 * server that dies before the step's group commit logs other events at those seqs on restart, so
 * a client resuming from one would be told nothing of it). An event sent before that goes without
 * its id, and an id-only frame (`id: <seq>`, no data: an `EventSource` only updates its last
 * event id) follows with the next frame or keep-alive once the log is durable through it.
 * Events whose source does not say how far it is durable (an app's own iterable, a stored log's
 * follow) keep their ids.
 */
class DurableIds {
  readonly #durableThrough: (() => number) | undefined;
  /** The last id given. */
  #given = -1;
  /** The last seq sent without its id. */
  #held = -1;

  constructor(durableThrough: (() => number) | undefined) {
    this.#durableThrough = durableThrough;
  }

  /** The frame as sent: its id dropped while the log is not yet durable through it. */
  frame(frame: SSEFrame): SSEFrame {
    if (frame.id === undefined || this.#durableThrough === undefined) return frame;
    const seq = Number(frame.id);
    // Delivered again (a fleet follower going back to where the log differs from what a dead worker
    // streamed): what was held from there on is being replaced, and no id may cover it.
    if (seq <= this.#held) this.#held = seq - 1;
    if (seq <= this.#durableThrough()) {
      if (seq > this.#given) this.#given = seq;
      return frame;
    }
    if (seq > this.#held) this.#held = seq;
    return { event: frame.event!, data: frame.data }; // no id yet
  }

  /** An id-only frame for what became durable since the last id — every event through it was sent. */
  catchUp(): Uint8Array | undefined {
    if (this.#held <= this.#given || this.#durableThrough === undefined) return undefined;
    const at = Math.min(this.#durableThrough(), this.#held);
    if (at <= this.#given) return undefined;
    this.#given = at;
    return sseIdBytes(String(at));
  }
}

/** The event's frame; `ServeError('invalid-event')` for a type that is not a plain token or a seq that is not an integer. */
function eventFrame(event: TurnEvent): SSEFrame {
  if (!EVENT_NAME.test(event.type))
    throw new ServeError("invalid-event", `the event type ${valueName(event.type)} is not a plain token: not sent`);
  const data = eventJson(wireTurnEvent(event), event);
  const seq: unknown = "seq" in event ? event.seq : undefined;
  if (seq === undefined) return { event: event.type, data };
  if (!Number.isSafeInteger(seq) || (seq as number) < 0)
    throw new ServeError("invalid-event", `the ${event.type} event's seq ${valueName(seq)} is not a log position`);
  return { id: String(seq), event: event.type, data };
}

function errorFrame(error: unknown): SSEFrame {
  const code = typeof (error as { code?: unknown })?.code === "string" ? (error as { code: string }).code : "error";
  const message = boundedErrorText(errorMessage(error));
  return { event: SSE_ERROR_EVENT, data: JSON.stringify({ code, message }) };
}
