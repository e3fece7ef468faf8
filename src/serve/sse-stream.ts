// Plain server-sent events over a turn's events, for clients that do not use the AI SDK: one
// frame per turn event — `id: <seq>` on committed events (so a reconnecting EventSource sends
// `Last-Event-ID`), `event: <type>`, `data: <the event's JSON>`. Live deltas carry no id: a
// client's position only moves on what the log holds. An iteration that throws ends the stream
// with a `stream-error` frame (`{ code, message }`, the message bounded).
import type { ServerResponse } from "node:http";
import { errorMessage } from "../errors/index.js";
import type { TurnEvent } from "../loop/index.js";
import { webResponse, writeBody } from "./http-response.js";
import { pullStream } from "./pull-stream.js";
import { sseBytes } from "./sse-frames.js";
import type { EncodeOptions, ResponseOptions } from "./types.js";
import { boundedErrorText } from "./ui-parts.js";

/** The headers of a plain SSE response. */
export const SSE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  "content-type": "text/event-stream",
  "cache-control": "no-cache",
  connection: "keep-alive",
  "x-accel-buffering": "no",
});

/** The frame name of the error that ends a stream (not `error`, which EventSource uses itself). */
export const SSE_ERROR_EVENT = "stream-error";

export interface SSEOptions extends EncodeOptions {
  /** Which events to send; default `isClientTurnEvent` (everything but request headers and added context). */
  readonly include?: (event: TurnEvent) => boolean;
}

/** Logged events a browser is not sent by default: the request configuration and context an app added. */
const PRIVATE_LOG_TYPES: ReadonlySet<string> = new Set(["request/header", "request/header-delta", "context/message"]);

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

/** A turn's events as `text/event-stream` bytes, read only as fast as they are read. */
export function toSSE(events: AsyncIterable<TurnEvent>, options: SSEOptions = {}): ReadableStream<Uint8Array> {
  const include = options.include ?? isClientTurnEvent;
  return pullStream(
    events,
    {
      encode: (event) => {
        if (!include(event)) return [];
        const data = JSON.stringify(wireTurnEvent(event));
        return [
          sseBytes("seq" in event ? { id: String(event.seq), event: event.type, data } : { event: event.type, data }),
        ];
      },
      end: (failure) => (failure === undefined ? [] : [sseBytes(errorFrame(failure.error))]),
    },
    options,
  );
}

/** A web `Response` with the SSE body (status 200 unless given). */
export function sseResponse(events: AsyncIterable<TurnEvent>, init: SSEOptions & ResponseOptions = {}): Response {
  return webResponse(toSSE(events, init), SSE_HEADERS, init);
}

/** Streams the SSE body to a node:http response; resolves when written or the client is gone. */
export function pipeSSE(
  events: AsyncIterable<TurnEvent>,
  res: ServerResponse,
  options: SSEOptions & ResponseOptions = {},
): Promise<void> {
  return writeBody(res, toSSE(events, options), SSE_HEADERS, options);
}

function errorFrame(error: unknown): { event: string; data: string } {
  const code = typeof (error as { code?: unknown })?.code === "string" ? (error as { code: string }).code : "error";
  const message = boundedErrorText(errorMessage(error));
  return { event: SSE_ERROR_EVENT, data: JSON.stringify({ code, message }) };
}
