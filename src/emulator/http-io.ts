// Writing responses onto node:http, with stream faults applied at the byte level: an in-stream
// error event (each wire's own shape), a socket reset partway through an event, a stall (registered so the server can
// release it), a garbage event, a missing terminator. No timers: events go out back to back.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { JsonObject } from "../json/index.js";
import type { Fault } from "./faults.js";
import { bedrockChunkFrame } from "./anthropic-platforms.js";
import { formatSse, type SseEvent } from "./sse.js";
import { WireError } from "./types.js";
import { anthropicErrorBody, geminiErrorBody, openaiErrorBody } from "./wire-errors.js";

/** The wire formats the server writes. */
export type WireApi = "anthropic" | "openai" | "responses" | "gemini";

export const MAX_BODY_BYTES = 32 * 1024 * 1024;

export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES)
      throw new WireError("too-large", `Request exceeds the maximum allowed number of bytes (${MAX_BODY_BYTES}).`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: JsonObject,
  headers: Readonly<Record<string, string>> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
  res.end(text);
}

export function sendWireError(res: ServerResponse, api: WireApi, error: WireError, requestId?: string): void {
  if (api === "gemini") {
    // Google APIs have no 529: an overloaded model is 503 UNAVAILABLE.
    const status = error.status === 529 ? 503 : error.status;
    sendJson(res, status, geminiErrorBody(error.code, error.message, status, error.headers), error.headers);
    return;
  }
  const body =
    api === "anthropic"
      ? anthropicErrorBody(error.code, error.message, requestId)
      : openaiErrorBody(error.code, error.message, error.param, error.openaiCode);
  sendJson(res, error.status, body, error.headers);
}

/** Tracks stalled responses so `releaseStalls()` and `close()` can end them. */
export type StallSet = Set<ServerResponse>;

export function stall(res: ServerResponse, stalls: StallSet): void {
  stalls.add(res);
  res.on("close", () => stalls.delete(res));
}

/** A non-stream response, with the faults that make sense for one; returns the status sent. */
export function writeJsonOutcome(
  res: ServerResponse,
  api: WireApi,
  body: JsonObject,
  fault: Fault | undefined,
  stalls: StallSet,
): number {
  const text = JSON.stringify(body);
  switch (fault?.kind) {
    case "stream-error": {
      const error =
        api === "openai"
          ? new WireError("api", "The server had an error while processing your request. Sorry about that!")
          : new WireError("overloaded", api === "gemini" ? GEMINI_OVERLOADED : "Overloaded");
      sendWireError(res, api, error);
      return api === "gemini" ? 503 : error.status;
    }
    case "reset":
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
      res.write(text.slice(0, Math.floor(text.length / 2)), () => res.destroy());
      return 200;
    case "stall":
      res.writeHead(200, { "content-type": "application/json" });
      res.flushHeaders();
      stall(res, stalls);
      return 200;
    case "malformed-sse":
      sendRaw(res, text.slice(0, Math.floor(text.length / 2)));
      return 200;
    default:
      sendRaw(res, text);
      return 200;
  }
}

function sendRaw(res: ServerResponse, text: string): void {
  res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

const GEMINI_OVERLOADED = "The model is overloaded. Please try again later.";

export interface StreamWriteOptions {
  readonly api: WireApi;
  readonly fault: Fault | undefined;
  /** Events sent before a stream fault strikes. */
  readonly faultAfter: number;
  readonly stalls: StallSet;
  /** How events are framed: SSE text (default), or Bedrock's AWS event stream (Anthropic events only). */
  readonly framing?: "sse" | "aws-eventstream";
}

/** One event as the response frames it. */
function frame(event: SseEvent, options: StreamWriteOptions): string | Buffer {
  return options.framing === "aws-eventstream" ? bedrockChunkFrame(event.data) : formatSse(event);
}

export function writeSseOutcome(res: ServerResponse, events: readonly SseEvent[], options: StreamWriteOptions): void {
  res.writeHead(200, {
    "content-type":
      options.framing === "aws-eventstream" ? "application/vnd.amazon.eventstream" : "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    connection: "keep-alive",
  });
  res.flushHeaders();
  const kind = options.fault?.kind;
  const strike =
    kind === "stream-error" || kind === "reset" || kind === "stall" || kind === "malformed-sse"
      ? options.faultAfter
      : Number.POSITIVE_INFINITY;
  for (let i = 0; i < events.length; i += 1) {
    if (i === strike) {
      strikeFault(res, events[i]!, options);
      return;
    }
    const event = events[i]!;
    // Gemini has no terminator: its stream ends with the event that carries the finishReason.
    if (
      kind === "missing-done" &&
      i === events.length - 1 &&
      (event.data === "[DONE]" ||
        event.event === "message_stop" ||
        event.event === "response.completed" ||
        options.api === "gemini")
    )
      break;
    // Bedrock's stream has no pings.
    if (options.framing !== "aws-eventstream" || event.event !== "ping") res.write(frame(event, options));
  }
  res.end();
}

function strikeFault(res: ServerResponse, next: SseEvent, options: StreamWriteOptions): void {
  switch (options.fault?.kind) {
    case "stream-error":
      res.end(frame(streamError(options.api), options));
      return;
    case "reset": {
      const bytes = frame(next, options);
      res.write(bytes.slice(0, Math.max(1, Math.floor(bytes.length / 2))), () => res.destroy());
      return;
    }
    case "stall":
      stall(res, options.stalls);
      return;
    case "malformed-sse":
      res.write(
        frame(
          options.api === "anthropic" || options.api === "responses"
            ? {
                event: next.event === undefined || next.event === "ping" ? "content_block_delta" : next.event,
                data: "{malformed json]]",
              }
            : { data: "{malformed json]]" },
          options,
        ),
      );
      res.end();
      return;
    default:
      res.end();
  }
}

/** An error event mid-stream, as each wire sends it. */
function streamError(api: WireApi): SseEvent {
  const message = "The server had an error while processing your request. Sorry about that!";
  if (api === "anthropic")
    return {
      event: "error",
      data: JSON.stringify({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } }),
    };
  if (api === "gemini") return { data: JSON.stringify(geminiErrorBody("overloaded", GEMINI_OVERLOADED, 503)) };
  if (api === "responses")
    return {
      event: "error",
      data: JSON.stringify({ type: "error", code: "server_error", message, param: null, sequence_number: 0 }),
    };
  return { data: JSON.stringify(openaiErrorBody("api", message)) };
}
