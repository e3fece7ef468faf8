// The AI SDK's UI message stream over a turn's events: as web chunks (`toUIMessageStream`),
// as a `Response` with the protocol's SSE body and headers, and piped to a node:http response.
// This is what `useChat` of `@ai-sdk/react` reads from its `api` endpoint. The events and options
// are checked at the call (encoder-input.ts); a value the events yield that is no turn event ends
// the message with an `error` chunk and `finish`, as an iteration that throws does.
import type { ServerResponse } from "node:http";
import type { TurnEvent } from "../loop/index.js";
import { checkEvents, eventJson } from "./encoder-input.js";
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
import { SSE_DONE, sseBytes } from "./sse-frames.js";
import type { EncodeOptions, ResponseOptions } from "./types.js";
import { UIMessageEncoder } from "./ui-encoder.js";
import { encoderOptionsOf, UI_ENCODER_OPTION_KINDS, type UIEncoderOptions } from "./ui-encoder-options.js";
import { UI_MESSAGE_STREAM_HEADERS, type UIMessageChunk } from "./ui-types.js";

export interface UIMessageStreamOptions extends EncodeOptions, UIEncoderOptions {}

const STREAM_KINDS: OptionKinds = { ...UI_ENCODER_OPTION_KINDS, ...ENCODE_OPTION_KINDS };
const BODY_KINDS: OptionKinds = { ...STREAM_KINDS, ...KEEP_ALIVE_OPTION_KINDS };
const RESPONSE_KINDS: OptionKinds = { ...BODY_KINDS, ...RESPONSE_OPTION_KINDS };

/** The UI message stream as bytes (its SSE body): with keep-alive comments while nothing is sent. */
export interface UIMessageBodyOptions extends UIMessageStreamOptions, KeepAliveOptions {}

/**
 * A turn's events (`agent.stream()`, or `agent.follow()` for a reconnect) as UI message
 * chunks: one assistant message, ending at the turn's end. Read only as fast as it is read.
 * Throws `ServeError('invalid-argument')` for events that are not an async iterable,
 * `invalid-options` for options of the wrong type.
 */
export function toUIMessageStream(
  events: AsyncIterable<TurnEvent>,
  options: UIMessageStreamOptions = {},
): ReadableStream<UIMessageChunk> {
  checkEvents(events, "toUIMessageStream");
  checkOptions(options, STREAM_KINDS, "toUIMessageStream");
  return pullStream(events, new UIMessageEncoder(encoderOptionsOf(options)), options);
}

/** The UI message stream as its SSE body: `data: <chunk JSON>` per chunk, then `data: [DONE]`. */
export function uiMessageStreamBody(
  events: AsyncIterable<TurnEvent>,
  options: UIMessageBodyOptions = {},
): ReadableStream<Uint8Array> {
  return sseBody(events, options, "uiMessageStreamBody", BODY_KINDS, false);
}

/** A web `Response` carrying the UI message stream (status 200, the protocol's headers). */
export function uiMessageStreamResponse(
  events: AsyncIterable<TurnEvent>,
  init: UIMessageBodyOptions & ResponseOptions = {},
): Response {
  checkResponseOptions(init);
  return webResponse(
    sseBody(events, init, "uiMessageStreamResponse", RESPONSE_KINDS, false),
    UI_MESSAGE_STREAM_HEADERS,
    init,
  );
}

/**
 * Streams the UI message stream to a node:http response; resolves when it is written or the
 * client is gone (which cancels the turn only with `cancelOnDisconnect: true`). The status and
 * headers of a turn stream (`agent.stream()`, `host.stream()`, `streamAnswers`) go with its first
 * chunk: a failure before it (the turn could not start — the session is `locked`, the answers are
 * refused) rejects with that error and writes nothing, so the caller answers it with a status
 * (http-response.ts). A follow's go at once.
 */
export async function pipeUIMessageStream(
  events: AsyncIterable<TurnEvent>,
  res: ServerResponse,
  options: UIMessageBodyOptions & ResponseOptions = {},
): Promise<void> {
  checkServerResponse(res, "pipeUIMessageStream");
  checkResponseOptions(options);
  const opening = isTurnStream(events); // a turn may fail to start: its status waits for its first event
  const body = sseBody(events, options, "pipeUIMessageStream", RESPONSE_KINDS, opening);
  await writeBody(res, body, UI_MESSAGE_STREAM_HEADERS, options, opening);
}

function sseBody(
  events: AsyncIterable<TurnEvent>,
  options: UIMessageBodyOptions,
  where: string,
  kinds: OptionKinds,
  failBeforeOutput: boolean,
): ReadableStream<Uint8Array> {
  checkEvents(events, where);
  checkOptions(options, kinds, where);
  const keepAliveMs = keepAliveMsOf(options);
  const chunks = new UIMessageEncoder(encoderOptionsOf(options));
  const frames = (items: readonly UIMessageChunk[], event: TurnEvent): Uint8Array[] =>
    items.map((chunk) => sseBytes({ data: eventJson(chunk, event) }));
  const frameOf = (chunk: UIMessageChunk): Uint8Array => sseBytes({ data: JSON.stringify(chunk) });
  return pullStream(
    events,
    {
      encode: (event) => {
        const out = frames(chunks.encode(event), event);
        return chunks.finished ? [...out, sseBytes(SSE_DONE)] : out;
      },
      // The closing chunks are the encoder's own (a bounded error text): always JSON.
      end: (error) => [...chunks.end(error).map(frameOf), sseBytes(SSE_DONE)],
      get finished() {
        return chunks.finished;
      },
      heartbeat: keepAliveComment,
    },
    { ...options, failBeforeOutput, keepAliveMs },
  );
}
