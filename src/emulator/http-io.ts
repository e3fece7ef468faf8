// Writing responses onto node:http, with stream faults applied at the byte level: an in-stream
// error event, a socket reset partway through an event, a stall (registered so the server can
// release it), a garbage event, a missing terminator. No timers: events go out back to back.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { JsonObject } from "../json/index.js";
import type { Fault } from "./faults.js";
import { formatSse, type SseEvent } from "./sse.js";
import { WireError } from "./types.js";
import { anthropicErrorBody, openaiErrorBody } from "./wire-errors.js";

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

export function sendWireError(
  res: ServerResponse,
  api: "anthropic" | "openai",
  error: WireError,
  requestId?: string,
): void {
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
  api: "anthropic" | "openai",
  body: JsonObject,
  fault: Fault | undefined,
  stalls: StallSet,
): number {
  const text = JSON.stringify(body);
  switch (fault?.kind) {
    case "stream-error": {
      const error =
        api === "anthropic"
          ? new WireError("overloaded", "Overloaded")
          : new WireError("api", "The server had an error while processing your request. Sorry about that!");
      sendWireError(res, api, error);
      return error.status;
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

export interface StreamWriteOptions {
  readonly api: "anthropic" | "openai";
  readonly fault: Fault | undefined;
  /** Events sent before a stream fault strikes. */
  readonly faultAfter: number;
  readonly stalls: StallSet;
}

export function writeSseOutcome(res: ServerResponse, events: readonly SseEvent[], options: StreamWriteOptions): void {
  res.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
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
    if (
      kind === "missing-done" &&
      i === events.length - 1 &&
      (event.data === "[DONE]" || event.event === "message_stop")
    )
      break;
    res.write(formatSse(event));
  }
  res.end();
}

function strikeFault(res: ServerResponse, next: SseEvent, options: StreamWriteOptions): void {
  switch (options.fault?.kind) {
    case "stream-error": {
      const error =
        options.api === "anthropic"
          ? { type: "error", error: { type: "overloaded_error", message: "Overloaded" } }
          : openaiErrorBody("api", "The server had an error while processing your request. Sorry about that!");
      res.end(
        formatSse(
          options.api === "anthropic"
            ? { event: "error", data: JSON.stringify(error) }
            : { data: JSON.stringify(error) },
        ),
      );
      return;
    }
    case "reset": {
      const text = formatSse(next);
      res.write(text.slice(0, Math.max(1, Math.floor(text.length / 2))), () => res.destroy());
      return;
    }
    case "stall":
      stall(res, options.stalls);
      return;
    case "malformed-sse":
      res.write(
        formatSse(
          options.api === "anthropic"
            ? {
                event: next.event === undefined || next.event === "ping" ? "content_block_delta" : next.event,
                data: "{malformed json]]",
              }
            : { data: "{malformed json]]" },
        ),
      );
      res.end();
      return;
    default:
      res.end();
  }
}
