// The AI SDK's UI message stream over a turn's events: as web chunks (`toUIMessageStream`),
// as a `Response` with the protocol's SSE body and headers, and piped to a node:http response.
// This is what `useChat` of `@ai-sdk/react` reads from its `api` endpoint.
import type { ServerResponse } from "node:http";
import type { TurnEvent } from "../loop/index.js";
import { webResponse, writeBody } from "./http-response.js";
import { pullStream } from "./pull-stream.js";
import { SSE_DONE, sseBytes } from "./sse-frames.js";
import type { EncodeOptions, ResponseOptions } from "./types.js";
import { type UIEncoderOptions, UIMessageEncoder } from "./ui-encoder.js";
import { UI_MESSAGE_STREAM_HEADERS, type UIMessageChunk } from "./ui-types.js";

export interface UIMessageStreamOptions extends EncodeOptions, UIEncoderOptions {}

/**
 * A turn's events (`agent.stream()`, or `agent.follow()` for a reconnect) as UI message
 * chunks: one assistant message, ending at the turn's end. Read only as fast as it is read.
 */
export function toUIMessageStream(
  events: AsyncIterable<TurnEvent>,
  options: UIMessageStreamOptions = {},
): ReadableStream<UIMessageChunk> {
  return pullStream(events, new UIMessageEncoder(options), options);
}

/** The UI message stream as its SSE body: `data: <chunk JSON>` per chunk, then `data: [DONE]`. */
export function uiMessageStreamBody(
  events: AsyncIterable<TurnEvent>,
  options: UIMessageStreamOptions = {},
): ReadableStream<Uint8Array> {
  const chunks = new UIMessageEncoder(options);
  const frames = (items: readonly UIMessageChunk[]): Uint8Array[] =>
    items.map((chunk) => sseBytes({ data: JSON.stringify(chunk) }));
  return pullStream(
    events,
    {
      encode: (event) => {
        const out = frames(chunks.encode(event));
        return chunks.finished ? [...out, sseBytes(SSE_DONE)] : out;
      },
      end: (error) => [...frames(chunks.end(error)), sseBytes(SSE_DONE)],
      get finished() {
        return chunks.finished;
      },
    },
    options,
  );
}

/** A web `Response` carrying the UI message stream (status 200, the protocol's headers). */
export function uiMessageStreamResponse(
  events: AsyncIterable<TurnEvent>,
  init: UIMessageStreamOptions & ResponseOptions = {},
): Response {
  return webResponse(uiMessageStreamBody(events, init), UI_MESSAGE_STREAM_HEADERS, init);
}

/**
 * Streams the UI message stream to a node:http response; resolves when it is written or the
 * client is gone (which cancels the turn only with `cancelOnDisconnect: true`).
 */
export function pipeUIMessageStream(
  events: AsyncIterable<TurnEvent>,
  res: ServerResponse,
  options: UIMessageStreamOptions & ResponseOptions = {},
): Promise<void> {
  return writeBody(res, uiMessageStreamBody(events, options), UI_MESSAGE_STREAM_HEADERS, options);
}
