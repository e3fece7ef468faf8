// A JSON request body read at the door of a node:http server (or from a web `Request`): what the
// chat and prompt routes of a framework-free server need before anything reaches the host.
// Refused, each with the status a server answers: a body that is not `application/json` (415 —
// a browser sends a cross-site `text/plain` or form POST without asking first, so this check is
// what keeps another web page from driving the agent), one over `maxBytes` (413, read no further
// than that), one that is not UTF-8 JSON of an object (400). The bytes are decoded once, after
// the last chunk: a character split between two chunks stays whole.
import type { IncomingMessage } from "node:http";
import { checkOptions } from "./options-check.js";
import { ServeError } from "./types.js";
import { valueName } from "./value-name.js";

/** The default body limit: under `readSSE`'s default event bound, so a logged prompt can be followed. */
export const DEFAULT_MAX_BODY_BYTES = 8 * 1024 * 1024;

export interface JsonBodyOptions {
  /** The largest body read (default `DEFAULT_MAX_BODY_BYTES`, 8 MiB). */
  readonly maxBytes?: number;
}

/**
 * The request's JSON object body; `ServeError` `unsupported-media-type`, `body-too-large`,
 * `invalid-request`, or `connection-lost` (status 400) when the client leaves before the body ends.
 */
export async function readJsonBody(
  request: IncomingMessage | Request,
  options: JsonBodyOptions = {},
): Promise<Record<string, unknown>> {
  checkOptions(options, { maxBytes: "checked" }, "readJsonBody");
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BODY_BYTES;
  if (!Number.isSafeInteger(maxBytes) || maxBytes <= 0)
    throw new ServeError("invalid-options", `maxBytes must be a positive integer, got ${valueName(maxBytes)}`);
  const type = header(request, "content-type") ?? "";
  if (!/^application\/json\s*(;|$)/i.test(type.trim()))
    throw new ServeError(
      "unsupported-media-type",
      `the body must be application/json, got ${JSON.stringify(type.slice(0, 80) || "no content type")}`,
    );
  const tooLarge = (): ServeError =>
    new ServeError("body-too-large", `the body is larger than ${maxBytes} bytes (the server's limit)`);
  const declared = Number(header(request, "content-length"));
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const read of bodyChunks(request)) {
      const chunk = typeof read === "string" ? new TextEncoder().encode(read) : read; // after setEncoding()
      size += chunk.byteLength;
      if (size > maxBytes) throw tooLarge();
      chunks.push(chunk);
    }
  } catch (error) {
    if (error instanceof ServeError) throw error;
    // The client went away mid-body (node:http's `aborted` / ECONNRESET, a web body's cancel): typed.
    throw new ServeError("connection-lost", "the request body broke off before its end (the client went away)", {
      cause: error,
      status: 400,
    });
  }
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(concat(chunks, size)));
  } catch (error) {
    throw new ServeError("invalid-request", `the body is not UTF-8 JSON (${(error as Error).message.slice(0, 120)})`);
  }
  if (typeof json === "object" && json !== null && !Array.isArray(json)) return json as Record<string, unknown>;
  throw new ServeError("invalid-request", "the body is not a JSON object");
}

function header(request: IncomingMessage | Request, name: string): string | undefined {
  if (request.headers instanceof Headers) return request.headers.get(name) ?? undefined;
  const value = (request.headers as IncomingMessage["headers"])[name];
  return Array.isArray(value) ? value[0] : value;
}

function bodyChunks(request: IncomingMessage | Request): AsyncIterable<Uint8Array | string> {
  if (!(request.headers instanceof Headers)) return request as IncomingMessage;
  const body = (request as Request).body;
  if (body === null) return (async function* () {})();
  return body as unknown as AsyncIterable<Uint8Array>;
}

function concat(chunks: readonly Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const all = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    all.set(chunk, at);
    at += chunk.byteLength;
  }
  return all;
}
