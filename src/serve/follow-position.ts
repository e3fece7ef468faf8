// A reconnecting client's position in the log, read from its request: the `Last-Event-ID`
// header an EventSource sends on its own (the last committed seq it received), or `?from=<seq>`.
// The result is what `agent.follow({ from })` takes. Checked at the boundary: not an integer
// ≥ -1 in plain digits is `invalid-position` (HTTP 400), at or past the end of the log — however
// many digits — `position-beyond-log` (416);
// a request without headers or a `logLength` that is no integer ≥ 0 is the server's own bug
// (`invalid-argument`, `invalid-options`). And where a `useChat` reconnect's replay starts
// (`openTurnFrom`): the first event of the page's message of the open turn, by the same rules as
// uiMessagesFromLog.
import type { IncomingMessage } from "node:http";
import type { Session, SessionEvent } from "../session/index.js";
import { checkOptions } from "./options-check.js";
import { continuesPausedTurn } from "./ui-parts.js";
import { ServeError } from "./types.js";
import { valueName } from "./value-name.js";

/** A web `Request`, a node:http `IncomingMessage`, or just its headers and URL. */
export type PositionRequest =
  | Request
  | IncomingMessage
  | { readonly headers: Headers | IncomingMessage["headers"]; readonly url?: string };

export interface FollowFromOptions {
  /** The log's length: a position at or past it is `position-beyond-log`. */
  readonly logLength?: number;
}

/** A log position as text: -1 (before the first event), or a seq in decimal digits. */
const SEQ = /^(?:-[01]|\d+)$/;

/**
 * The seq after which the client wants events (`Last-Event-ID` first, then `?from=`), or
 * undefined when it names none (a fresh client: follow from the start, or from where you choose).
 */
export function followFrom(request: PositionRequest, options: FollowFromOptions = {}): number | undefined {
  checkRequest(request);
  checkOptions(options, { logLength: "checked" }, "followFrom");
  const { logLength } = options;
  if (logLength !== undefined && !(Number.isSafeInteger(logLength) && logLength >= 0))
    throw new ServeError(
      "invalid-options",
      `logLength must be an integer ≥ 0 (the log's length), got ${valueName(logLength)}`,
    );
  // An empty header names no position (the SSE spec's reset; an EventSource never sends one, a
  // proxy might); an empty `?from=` is a client's bug (`?from=${lastId}` without an id): refused,
  // not read as "everything again" (found from outside).
  const header = nonEmpty(headerValue(request.headers, "last-event-id"));
  const query = header === undefined ? queryValue(request.url, "from") : undefined; // the header first
  if (header === undefined && query?.trim() === "")
    throw new ServeError("invalid-position", "?from= is empty: it names no log position (an integer ≥ -1)");
  const raw = header ?? query;
  if (raw === undefined) return undefined;
  const where = header === undefined ? "?from=" : "Last-Event-ID";
  // A header's surrounding blanks are HTTP's (optional whitespace); a query value is the client's own.
  const text = header === undefined ? raw : raw.trim();
  if (!SEQ.test(text))
    throw new ServeError(
      "invalid-position",
      `${where} ${JSON.stringify(raw.slice(0, 40))} is not a log position (an integer ≥ -1)`,
    );
  // Digits past 2^53 name a seq no log reaches: beyond this one too (MAX_SAFE_INTEGER stands for it).
  const from = Math.min(Number(text), Number.MAX_SAFE_INTEGER);
  if (logLength !== undefined && from >= logLength)
    throw new ServeError(
      "position-beyond-log",
      `${where} ${text.length > 20 ? `${text.slice(0, 20)}…` : text} is beyond the log (its last seq is ${logLength - 1})`,
    );
  return from;
}

/** What `openTurnFrom` reads: a Session (or what of one it uses), or a log's events (`host.log(id)`). */
export type OpenTurnLog = Pick<Session, "openTurn" | "length" | "eventAt"> | readonly SessionEvent[];

export interface OpenTurnFromOptions {
  /**
   * A turn of the session is queued and has not started (a fleet's `client.openTurns(id)` is not
   * empty): with no turn open in the log, the replay starts where the queued turn's message will —
   * the paused turn's message when the last turn paused (the queued turn is its continuation),
   * otherwise the log's end — instead of there being nothing to resume.
   */
  readonly queued?: boolean;
}

/**
 * Where to follow from to replay the open turn's message from its start: what a `useChat`
 * reconnect wants, a whole message. That is the open turn's `turn/start` − 1 — or, when the open
 * turn answers a paused one (trigger `approval`; the page shows it in the paused turn's message),
 * the start of the first turn of that chain, so the replay rebuilds the paused parts too and the
 * UI stream goes on across the pause (ui-encoder.ts); when a steering message split the turn
 * (`turn-<turn>-<seq>` on the page), that message's start. Undefined when no turn is open (and
 * none is `queued`). Throws `ServeError('invalid-argument')` for a value that is neither a session
 * nor an array of events, `invalid-options` for options that are not `{ queued?: boolean }`.
 */
export function openTurnFrom(log: OpenTurnLog, options: OpenTurnFromOptions = {}): number | undefined {
  const session = logView(log);
  checkOptions(options, { queued: "boolean" }, "openTurnFrom");
  if (session.openTurn !== null) return chainStart(session, session.openTurn, session.length);
  if (options.queued !== true) return undefined;
  const last = session.length - 1;
  // A paused turn's continuation is queued: the chain's message, ending with the paused turn.
  return pausedBefore(session, session.length) ? (chainStart(session, turnOf(session, last), last) ?? last) : last;
}

/** Where the message of the chain ending with `turn` starts, reading back from before `end`. */
function chainStart(session: Pick<Session, "eventAt">, last: number | undefined, end: number): number | undefined {
  if (last === undefined) return undefined;
  let turn = last;
  for (let seq = end - 1; seq >= 0; seq--) {
    const event = session.eventAt(seq);
    if (event?.type !== "turn/start") continue;
    const data = (event as Partial<SessionEvent<"turn/start">>).data;
    if (data?.turn !== turn) continue;
    if (!continuesPausedTurn(data.trigger) || !pausedBefore(session, seq)) return lastSplit(session, seq, end) - 1;
    turn = turn - 1; // the paused turn this one answers: its message starts there
  }
  return undefined;
}

/** The turn a `turn/end` at `seq` ends. */
function turnOf(session: Pick<Session, "eventAt">, seq: number): number | undefined {
  const turn = (session.eventAt(seq) as Partial<SessionEvent<"turn/end">> | undefined)?.data?.turn;
  return typeof turn === "number" ? turn : undefined;
}

/**
 * Where the page's last message of the turns from `start` on (to before `end`) begins: `start`, or the last
 * steering message logged after a step (uiMessagesFromLog starts a message at the step after it).
 */
function lastSplit(session: Pick<Session, "eventAt">, start: number, end: number): number {
  let from = start;
  let stepped = false;
  for (let seq = start + 1; seq < end; seq++) {
    const type = session.eventAt(seq)?.type;
    if (type === "step/start") stepped = true;
    else if (type === "steering/message" && stepped) {
      from = seq;
      stepped = false;
    }
  }
  return from;
}

/** A session as is; a log's events as one (its open turn: the last `turn/start` with no `turn/end` after it). */
function logView(log: OpenTurnLog): Pick<Session, "openTurn" | "length" | "eventAt"> {
  if (Array.isArray(log)) {
    const events = log as readonly SessionEvent[];
    let openTurn: number | null = null;
    for (let i = events.length - 1; i >= 0; i--) {
      const type = events[i]?.type;
      if (type === "turn/end") break;
      if (type === "turn/start") {
        const turn = (events[i] as Partial<SessionEvent<"turn/start">>).data?.turn;
        openTurn = typeof turn === "number" ? turn : null;
        break;
      }
    }
    return { openTurn, length: events.length, eventAt: (seq: number) => events[seq] };
  }
  if (typeof log !== "object" || log === null || typeof (log as { eventAt?: unknown }).eventAt !== "function")
    throw new ServeError("invalid-argument", `openTurnFrom takes a Session or a log's events, got ${valueName(log)}`);
  return log as Pick<Session, "openTurn" | "length" | "eventAt">;
}

/** Whether the event before `seq` ends a turn paused for a person (what a continuation continues). */
function pausedBefore(session: Pick<Session, "eventAt">, seq: number): boolean {
  const before = session.eventAt(seq - 1);
  if (before?.type !== "turn/end") return false;
  const kind = (before as Partial<SessionEvent<"turn/end">>).data?.reason?.kind;
  return kind === "awaiting-approval" || kind === "awaiting-input";
}

/** `ServeError('invalid-argument')` unless `request` has headers to read (a Request, an IncomingMessage, `{ headers, url? }`). */
function checkRequest(request: unknown): asserts request is PositionRequest {
  const headers: unknown =
    typeof request === "object" && request !== null ? (request as { headers?: unknown }).headers : undefined;
  if (typeof headers === "object" && headers !== null) return;
  const got =
    typeof request === "object" && request !== null
      ? `an object whose headers are ${valueName(headers)}`
      : valueName(request);
  throw new ServeError(
    "invalid-argument",
    `followFrom: request must be a Request, an IncomingMessage or { headers, url? }, got ${got}`,
  );
}

const nonEmpty = (value: string | undefined): string | undefined => (value?.trim() === "" ? undefined : value);

function headerValue(headers: PositionRequest["headers"], name: string): string | undefined {
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined;
  const value: unknown = (headers as IncomingMessage["headers"])[name];
  // Several values are one, joined as HTTP joins them ("3, 4": not a position), never the first alone.
  const one: unknown = Array.isArray(value) ? value.join(", ") : value;
  return typeof one === "string" ? one : undefined; // a hand-made header map may hold anything
}

function queryValue(url: unknown, name: string): string | undefined {
  if (typeof url !== "string") return undefined; // none (a `{ headers }` given without one)
  try {
    const values = new URL(url, "http://localhost").searchParams.getAll(name);
    if (values.length > 1)
      // Two positions name none (as two Last-Event-ID values): refused, not read as the first.
      throw new ServeError("invalid-position", `?${name}= is given ${values.length} times: it names one log position`);
    return values[0];
  } catch (error) {
    if (error instanceof ServeError) throw error;
    return undefined; // not a URL: it names no position
  }
}
