// The serve layer's vocabulary: its error (one code union, with the HTTP status a server answers
// it with) and the options its encoders take. The wire shapes of the AI SDK's UI message stream
// are in ui-types.ts.
import { KeelsonError } from "../errors/index.js";

export type ServeErrorCode =
  /** `Last-Event-ID` / `?from=` that is not an integer ≥ -1 (HTTP 400). */
  | "invalid-position"
  /** A position at or past the end of the log (HTTP 416). */
  | "position-beyond-log"
  /** A chat request body without a usable last message, or a body that is not UTF-8 JSON of an object (HTTP 400). */
  | "invalid-request"
  /** `readJsonBody`: a body that is not `application/json` (HTTP 415). */
  | "unsupported-media-type"
  /** `readJsonBody`: a body over the server's limit (HTTP 413). */
  | "body-too-large"
  /** `parseChatRequest`: a new prompt while the session waits for approvals or answers (HTTP 409). */
  | "awaiting-approval"
  /** A chat request whose answers answer nothing the session waits for: answered already, or never asked (HTTP 409). */
  | "nothing-to-answer"
  /** `readSSE`: the response was not 2xx (`status` is the response's). */
  | "http-error"
  /** `readSSE`: the response is not `text/event-stream`. */
  | "not-event-stream"
  /** `readSSE`: an event whose data is not a turn event. */
  | "malformed-event"
  /** `readSSE`: one event longer than `maxEventChars`. */
  | "event-too-large"
  /** `readSSE`: the server ended the stream with a `stream-error` event (its code and message). */
  | "stream-error"
  /**
   * `readSSE`: the body broke off mid-stream (the server or the network went away): reconnect from
   * the last id read. `readJsonBody`: the request's body broke off (the client went away; status 400).
   */
  | "connection-lost"
  /**
   * A function given a value of the wrong kind as its subject (HTTP 500: the server's bug): events
   * that are not an async iterable, a `readSSE` input that is not a Response or a byte stream, a
   * `followFrom` request without headers, a `uiMessagesFromLog` log that is not a Session or events.
   */
  | "invalid-argument"
  /** Options of the wrong type or out of range (`maxEventChars: NaN`, `messageId: 7`, `logLength: -1`) (HTTP 500). */
  | "invalid-options"
  /**
   * An encoder's events yielded a value that is no turn event, or one it cannot write (no JSON
   * form: a cycle, a bigint; an SSE event type that is not a plain token, a seq that is not an
   * integer): the stream ends with this error (an `error` chunk, a `stream-error` frame) (HTTP 500).
   */
  | "invalid-event"
  /** `uiMessagesFromLog`: an event without the shape of its type (the message names its type and seq) (HTTP 500). */
  | "invalid-log";

const STATUS: Record<ServeErrorCode, number> = {
  "invalid-position": 400,
  "position-beyond-log": 416,
  "invalid-request": 400,
  "unsupported-media-type": 415,
  "body-too-large": 413,
  "awaiting-approval": 409,
  "nothing-to-answer": 409,
  "http-error": 502,
  "not-event-stream": 502,
  "malformed-event": 502,
  "event-too-large": 502,
  "stream-error": 502,
  "connection-lost": 502,
  "invalid-argument": 500,
  "invalid-options": 500,
  "invalid-event": 500,
  "invalid-log": 500,
};

export class ServeError extends KeelsonError<ServeErrorCode> {
  /**
   * The HTTP status a server answers this error with (400, 409, 416); for the reader's errors (a bad
   * upstream), 502 — except `http-error`, which carries the response's own status; for a bad
   * argument, option, event or log (the server's own bug), 500.
   */
  readonly status: number;

  constructor(code: ServeErrorCode, message: string, options?: { readonly cause?: unknown; readonly status?: number }) {
    super(code, message, options);
    this.status = options?.status ?? STATUS[code];
  }
}

/** What every encoder of a turn's events takes. */
export interface EncodeOptions {
  /**
   * When the client goes away (the stream is cancelled): `true` cancels the turn
   * (`stream.cancel("client disconnected")` when the events are an `agent.stream()`); `false`
   * (default) lets it run to the end and be saved — the events are left unread (a turn stream's
   * feed ends with its turn, its memory bounded), any other iterable is closed with `return()`.
   */
  readonly cancelOnDisconnect?: boolean;
}

/** An HTTP response's status and extra headers (the protocol headers are always set). */
export interface ResponseOptions {
  readonly status?: number;
  readonly statusText?: string;
  readonly headers?: Readonly<Record<string, string>>;
}
