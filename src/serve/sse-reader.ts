// readSSE: the client side of the plain SSE encoding — a fetch `Response` or a byte stream in,
// turn events out, in a browser or in Node. It checks what it is given at the boundary (a 2xx
// `text/event-stream` response; every frame's data a turn event whose seq matches its id) and
// turns the server's `stream-error` frame into a thrown `ServeError`, a body that breaks off
// mid-stream into `connection-lost`. Breaking the loop early —
// or `return()` while it waits on a quiet stream, or before it started — cancels the body (which,
// on the server, is a disconnect); an error response's body is read only to its first 2,000
// characters. A wrong input or a bound that is no
// positive integer is refused at the call, before anything is read.
import type { TurnEvent } from "../loop/index.js";
import { type ParsedSSEEvent, SSEParser } from "./sse-parser.js";
import { checkOptions } from "./options-check.js";
import { SSE_ERROR_EVENT } from "./sse-stream.js";
import { ServeError } from "./types.js";
import { boundedErrorText } from "./ui-parts.js";
import { valueName } from "./value-name.js";

export interface ReadSSEOptions {
  /** The longest event accepted, in characters (default 16 MiB). */
  readonly maxEventChars?: number;
}

const DEFAULT_MAX_EVENT_CHARS = 16 * 1024 * 1024;
const MAX_ERROR_BODY = 2_000;

/**
 * The turn events of an SSE response or body (`toSSE` on the server), in order. Throws at the
 * call `ServeError('invalid-argument')` for an input that is neither, `invalid-options` for a
 * `maxEventChars` that is not a positive integer (NaN or a string would lift the bound).
 */
/** `readSSE`'s events, and the position to resume from. */
export interface SSEEventReader extends AsyncGenerator<TurnEvent, void, undefined> {
  /**
   * The last id the server gave (as `EventSource.lastEventId` keeps it): the seq of the last
   * event read that the server had made durable — Keelson's encoder gives an id only to those, on
   * the event itself or in an id-only frame once it is — or undefined before any. Reconnect with
   * it (`?from=` or `Last-Event-ID`): never with the seq of the last event read, which a server
   * that died before saving it logs again as another event.
   */
  readonly lastEventId: string | undefined;
}

export function readSSE(input: Response | ReadableStream<Uint8Array>, options: ReadSSEOptions = {}): SSEEventReader {
  if (!isByteStream(input) && !isResponse(input))
    throw new ServeError(
      "invalid-argument",
      `readSSE: input must be a fetch Response or a ReadableStream of bytes, got ${valueName(input)}`,
    );
  // Read already, or by another reader: `getReader()` would throw its own TypeError on the first `next()`.
  const body = isByteStream(input) ? input : input.body;
  if (body?.locked === true || (isResponse(input) && input.bodyUsed))
    throw new ServeError("invalid-argument", "readSSE: the body is locked or was read already (read it once)");
  checkOptions(options, { maxEventChars: "checked" }, "readSSE");
  const max = options.maxEventChars === undefined ? DEFAULT_MAX_EVENT_CHARS : options.maxEventChars;
  if (!Number.isSafeInteger(max) || max <= 0)
    throw new ServeError(
      "invalid-options",
      `maxEventChars must be a positive integer (characters), got ${valueName(max)}`,
    );
  const source: Source = { input, reader: undefined, closed: false };
  return cancellable(events(source, max), source);
}

/** What the events read, shared with `return()`: it cancels the body whatever the generator awaits. */
interface Source {
  readonly input: Response | ReadableStream<Uint8Array>;
  reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  closed: boolean;
  /** The last id read (`SSEEventReader.lastEventId`). */
  lastEventId?: string;
}

/**
 * `generator` whose `return()` / `throw()` first cancel the body: a generator's own `return()`
 * waits for it to reach a `yield`, so leaving a quiet stream (keep-alive comments only) or one
 * not started yet would hold the connection until the next event.
 */
function cancellable(generator: AsyncGenerator<TurnEvent, void, undefined>, source: Source): SSEEventReader {
  const cancel = async (): Promise<void> => {
    if (source.closed) return;
    source.closed = true;
    if (source.reader !== undefined) await source.reader.cancel().catch(() => {});
    else {
      const body = isByteStream(source.input) ? source.input : source.input.body;
      if (body !== null && !body.locked) await body.cancel().catch(() => {});
    }
  };
  const wrapped: SSEEventReader = {
    get lastEventId() {
      return source.lastEventId;
    },
    next: (...args) => generator.next(...args),
    return: async (value) => {
      await cancel();
      return generator.return(value);
    },
    throw: async (error: unknown) => {
      await cancel();
      return generator.throw(error);
    },
    [Symbol.asyncIterator]: () => wrapped,
  };
  return wrapped;
}

async function* events(source: Source, maxEventChars: number): AsyncGenerator<TurnEvent, void, undefined> {
  let body: ReadableStream<Uint8Array>;
  try {
    body = isByteStream(source.input) ? source.input : await responseBody(source.input, source);
  } catch (error) {
    if (source.closed) return; // left while an error body was read
    throw error;
  }
  if (source.closed) return;
  const parser = new SSEParser(maxEventChars);
  const decoder = new TextDecoder();
  const reader = body.getReader();
  source.reader = reader;
  let finished = false;
  try {
    for (;;) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (error) {
        if (source.closed) return; // left meanwhile: the cancel is what broke the read
        // The caller's own abort (its fetch's signal) is theirs, not a lost connection to reconnect.
        if ((error as { name?: unknown } | null)?.name === "AbortError") throw error;
        throw connectionLost(error, source.lastEventId);
      }
      const { done, value } = chunk;
      if (source.closed) return; // left meanwhile (`return()` cancelled the body)
      const events = parser.push(done ? decoder.decode() : decoder.decode(value, { stream: true }));
      for (const frame of events) {
        if (frame.idOnly === true) {
          if (!/^(0|[1-9][0-9]*)$/.test(frame.id!) || !isSeq(Number(frame.id)))
            throw malformed(frame, "its id is not a log position");
          source.lastEventId = frame.id!;
          continue;
        }
        const event = turnEvent(frame);
        if (frame.id !== undefined) source.lastEventId = frame.id;
        yield event;
      }
      parser.check(); // an event over the bound after the ones it completed
      if (done) break;
    }
    finished = true;
  } finally {
    if (!finished) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}

/** A web byte stream (by shape: a stream from another realm or polyfill passes too). */
const isByteStream = (input: unknown): input is ReadableStream<Uint8Array> =>
  typeof (input as { getReader?: unknown } | null)?.getReader === "function";

/** A fetch Response (by shape, as for a stream). */
const isResponse = (input: unknown): input is Response =>
  typeof (input as { headers?: { get?: unknown } } | null)?.headers?.get === "function" &&
  typeof (input as { status?: unknown }).status === "number";

async function responseBody(response: Response, source: Source): Promise<ReadableStream<Uint8Array>> {
  if (!response.ok) {
    const text = await errorBodyStart(response, source);
    throw new ServeError(
      "http-error",
      `the server answered ${response.status}${text === "" ? "" : `: ${boundedErrorText(text)}`}`,
      { status: response.status },
    );
  }
  const type = response.headers.get("content-type") ?? "";
  if (!/^text\/event-stream\b/i.test(type)) {
    await response.body?.cancel().catch(() => {});
    throw new ServeError("not-event-stream", `the response is ${valueName(type)}, not text/event-stream`);
  }
  if (response.body === null) throw new ServeError("not-event-stream", "the response has no body");
  return response.body;
}

/**
 * The first `MAX_ERROR_BODY` characters of an error response's body, the rest cancelled unread:
 * a proxy's error page or an error status on an endless stream must not be read whole.
 */
async function errorBodyStart(response: Response, source: Source): Promise<string> {
  const body = response.body;
  if (body === null) return "";
  const reader = body.getReader();
  source.reader = reader; // so that `return()` meanwhile cancels it
  const decoder = new TextDecoder();
  let text = "";
  try {
    while (text.length < MAX_ERROR_BODY) {
      const { done, value } = await reader.read();
      if (done) return text + decoder.decode();
      text += decoder.decode(value.subarray(0, 4 * MAX_ERROR_BODY), { stream: true });
    }
    return text.slice(0, MAX_ERROR_BODY);
  } catch {
    return text.slice(0, MAX_ERROR_BODY);
  } finally {
    await reader.cancel().catch(() => {});
    reader.releaseLock();
    source.reader = undefined;
  }
}

function turnEvent(frame: ParsedSSEEvent): TurnEvent {
  if (frame.event === SSE_ERROR_EVENT) {
    const error = parse(frame) as { code?: unknown; message?: unknown } | null;
    const code = typeof error?.code === "string" ? boundedErrorText(error.code) : "error";
    const message = typeof error?.message === "string" ? error.message : "the stream failed";
    throw new ServeError("stream-error", `the server ended the stream: ${code}: ${boundedErrorText(message)}`);
  }
  const value = parse(frame);
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw malformed(frame, "its data is not a JSON object");
  const event = value as { type?: unknown; seq?: unknown };
  if (typeof event.type !== "string" || event.type !== frame.event)
    throw malformed(frame, `its type ${valueName(event.type)} is not the frame's event name`);
  // The id as written (`toSSE` writes the seq's decimal digits): what an EventSource keeps and sends back.
  if (frame.id !== undefined && !(isSeq(event.seq) && frame.id === String(event.seq)))
    throw malformed(frame, `its seq ${valueName(event.seq)} is not the frame's id`);
  // A committed event may come without its id: the server gives one once the event is durable.
  return value as TurnEvent;
}

/** A log position: an integer ≥ 0. */
const isSeq = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;

function parse(frame: ParsedSSEEvent): unknown {
  try {
    return JSON.parse(frame.data) as unknown;
  } catch {
    throw malformed(frame, "its data is not JSON");
  }
}

/**
 * The body broke off mid-stream (the server or the network went away: undici says `TypeError:
 * terminated`): a typed error a reconnect loop can catch, with the last id it read to resume from.
 */
function connectionLost(error: unknown, lastEventId: string | undefined): ServeError {
  const what = error instanceof Error ? error.message : String(error);
  const code = (error as { cause?: { code?: unknown } } | null)?.cause?.code;
  const detail = typeof code === "string" ? `${what} (${code})` : what;
  const resume = lastEventId === undefined ? "" : ` (resume from id ${lastEventId})`;
  return new ServeError(
    "connection-lost",
    `the stream broke off before its end${resume}: ${boundedErrorText(detail)}`,
    {
      cause: error,
    },
  );
}

const malformed = (frame: ParsedSSEEvent, why: string): ServeError =>
  new ServeError(
    "malformed-event",
    `SSE event ${JSON.stringify(frame.event.slice(0, 60))}${frame.id === undefined ? "" : ` (id ${JSON.stringify(frame.id.slice(0, 30))})`}: ${why}`,
  );
