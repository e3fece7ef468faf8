// The wire format of followed turns on PostgreSQL NOTIFY (docs/decisions/0016). A worker running
// a followed turn publishes its events on the session's live channel as messages — `{ t: turn id,
// a: attempt, s: the last committed seq before the first item, e: items }` — each sent as one or
// more frames `<message no> <frame no> <frames> <slice of the message's JSON>` that stay under
// PostgreSQL's 8000-byte payload limit (sliced at UTF-8 boundaries; a message's frames go in one
// statement, so they arrive together and in order). Items are turn events as `agent.follow()`
// yields them; a committed event over MAX_INLINE_BYTES travels as `{ type: "ref", seq }` and is
// read from the store once durable. `PublishBatch` collects what arrives while the previous
// message is in flight: adjacent deltas of one block coalesce, and over a bound a step's deltas
// are dropped (its committed answer carries the content).
import { createHash } from "node:crypto";
import {
  COMMITTED_TURN_EVENT_TYPES,
  DELTA_TURN_EVENT_TYPES,
  type LiveTurnEvent,
  type TurnEvent,
} from "../loop/index.js";

/** Clients announce a session they follow here (payload: the session id); workers LISTEN. */
export const FOLLOW_CHANNEL = "keelson_follow";
/** PostgreSQL refuses a NOTIFY payload of 8000 bytes or more; a frame stays at or under this. */
export const MAX_FRAME_BYTES = 7900;
/** A committed event whose JSON is longer travels as a reference (read from the store once durable). */
export const MAX_INLINE_BYTES = 64 * 1024;
/** Delta characters a publication holds while its NOTIFY is slow; over it the step streams no more deltas. */
export const MAX_PENDING_DELTA_CHARS = 1 << 20;
/** A publication cuts its items into messages of about this many characters of JSON (one item may be longer). */
export const MAX_MESSAGE_ITEM_CHARS = 1 << 20;
/**
 * The most frames a follower assembles for one message (32 MB at most of payloads, 8 KB each):
 * a frame claiming more is dropped at once — anyone who can NOTIFY on the channel could otherwise
 * grow every follower's memory without bound with a message that never ends. The largest a
 * publication sends (a cut of MAX_MESSAGE_ITEM_CHARS, or one delta of MAX_PENDING_DELTA_CHARS
 * escaped six-fold, sealed) stays well under it.
 */
export const MAX_MESSAGE_FRAMES = 4096;

/** The live channel of session `sessionId` (an identifier: a hash, since session ids are any text). */
export function liveChannel(sessionId: string): string {
  return `keelson_live_${createHash("sha256").update(sessionId).digest("hex").slice(0, 40)}`;
}

/** A committed event sent by position only. */
export interface RefItem {
  readonly type: "ref";
  readonly seq: number;
}

export type WireItem = TurnEvent | RefItem;

/** One decoded message of a publication. */
export interface LiveMessage {
  readonly turnId: string;
  /** The claim attempt that ran the turn (a later attempt's messages supersede an earlier one's). */
  readonly attempt: number;
  /** The message's number in its publication (1, 2, …): one heard again (replayed) is dropped. */
  readonly message: number;
  /** The last committed seq before the first item (live items follow the committed seq before them). */
  readonly afterSeq: number;
  /**
   * The turn published again from its start (its events so far, then the step so far: each open
   * block's start and its text until now as one delta), for a follower that joined mid-turn; a
   * follower that has them already takes only what is new (follow-blocks.ts).
   */
  readonly restart: boolean;
  readonly items: readonly WireItem[];
  /**
   * How far the worker's log was durable (flushed to PostgreSQL) when it made the message: a
   * turn follower that has delivered events up to there reads the log to confirm them, so its
   * client's resume position moves step by step, not only at the turn's end. Absent from a
   * message of a worker that does not say.
   */
  readonly durableThrough?: number;
}

type DeltaEvent = Extract<LiveTurnEvent, { delta: string }>;
const isDelta = (event: TurnEvent): event is DeltaEvent => "delta" in event;
const sameBlock = (a: TurnEvent, b: DeltaEvent): boolean =>
  a.type === b.type && isDelta(a) && a.index === b.index && a.turn === b.turn && a.step === b.step;

interface Pending {
  item: WireItem;
  /** The item's JSON, when computed already (committed events are measured on arrival). */
  json: string | undefined;
}

/** What a publication has to send next: items added since the last `drain()`. */
export class PublishBatch {
  readonly #turnId: string;
  readonly #attempt: number;
  readonly #seal: (text: string) => string;
  #items: Pending[] = [];
  #afterSeq: number;
  #lastSeq: number;
  #message = 0;
  /** Frames of messages finished before a restart, not sent yet. */
  #finished: string[] = [];
  /** The next message is a restart (`restart()`). */
  #restart = false;
  #deltaChars = 0;
  /** `turn/step` whose deltas overflowed: its further deltas are dropped. */
  #gapped: string | undefined;

  /** How far the worker's log is durable now: each message says (`LiveMessage.durableThrough`). */
  readonly #durableThrough: (() => number) | undefined;

  /**
   * `seal`: what a message's text becomes on the wire (the publication seals it for its channel);
   * `durableThrough`: how far the worker's log is flushed, read as each message is made.
   */
  constructor(
    turnId: string,
    attempt: number,
    afterSeq: number,
    seal: (text: string) => string,
    durableThrough?: () => number,
  ) {
    this.#turnId = turnId;
    this.#attempt = attempt;
    this.#seal = seal;
    this.#durableThrough = durableThrough;
    this.#afterSeq = afterSeq;
    this.#lastSeq = afterSeq;
  }

  get empty(): boolean {
    return this.#items.length === 0 && this.#finished.length === 0;
  }

  /** Whether any message has been drained (handed to the sender) yet. */
  get drainedAny(): boolean {
    return this.#message > 0;
  }

  /** A restart is asked for and its message not drained yet (another one would repeat it). */
  get restarting(): boolean {
    return this.#restart;
  }

  /**
   * What is added from now on is the turn again from after `afterSeq` (a new feed from its start):
   * what was added before goes as a message of its own first; the next message is marked a restart.
   */
  restart(afterSeq: number): void {
    if (this.#items.length > 0) this.#finished.push(...this.#finishMessage());
    this.#afterSeq = afterSeq;
    this.#lastSeq = afterSeq;
    this.#restart = true;
    this.#gapped = undefined;
  }

  add(event: TurnEvent): void {
    if ("seq" in event) {
      const json = JSON.stringify(event);
      const inline = Buffer.byteLength(json) <= MAX_INLINE_BYTES;
      this.#items.push(inline ? { item: event, json } : { item: { type: "ref", seq: event.seq }, json: undefined });
      this.#lastSeq = event.seq;
      return;
    }
    if (!isDelta(event)) {
      this.#items.push({ item: event, json: undefined });
      return;
    }
    if (this.#gapped === `${event.turn}/${event.step}`) return;
    const tail = this.#items.at(-1);
    if (tail !== undefined && sameBlock(tail.item as TurnEvent, event)) {
      const previous = tail.item as DeltaEvent;
      tail.item = { ...previous, delta: previous.delta + event.delta };
    } else this.#items.push({ item: event, json: undefined });
    this.#deltaChars += event.delta.length;
    if (this.#deltaChars > MAX_PENDING_DELTA_CHARS) {
      this.#gapped = `${event.turn}/${event.step}`;
      this.#items = this.#items.filter((p) => !isDelta(p.item as TurnEvent));
      this.#deltaChars = 0;
    }
  }

  /** The frames of the messages holding everything added since the last drain (empties the batch). */
  drain(): string[] {
    const out = this.#finished;
    this.#finished = [];
    if (this.#items.length > 0) out.push(...this.#finishMessage());
    return out;
  }

  /**
   * The frames of the items added so far (empties them): one message, or — past
   * MAX_MESSAGE_ITEM_CHARS of items (a restart of a long turn) — several, cut between items,
   * each with the last committed seq before its first item (a follower refuses a message of
   * more than MAX_MESSAGE_FRAMES frames: what a forged one may cost it).
   */
  #finishMessage(): string[] {
    const items = this.#items.map((p) => p.json ?? JSON.stringify(p.item));
    const durable = this.#durableThrough === undefined ? "" : `,"d":${this.#durableThrough()}`;
    const out: string[] = [];
    for (let start = 0; start < items.length; ) {
      let end = start + 1;
      for (let chars = items[start]!.length; end < items.length; end++) {
        chars += items[end]!.length + 1;
        if (chars > MAX_MESSAGE_ITEM_CHARS) break;
      }
      const message = ++this.#message;
      const restart = this.#restart ? `,"r":1` : "";
      const body = end - start === items.length ? items.join(",") : items.slice(start, end).join(",");
      const text = `{"t":${JSON.stringify(this.#turnId)},"a":${this.#attempt},"m":${message},"s":${this.#afterSeq}${restart}${durable},"e":[${body}]}`;
      out.push(...frames(message, this.#seal(text)));
      this.#restart = false;
      for (let i = start; i < end; i++) {
        const item = this.#items[i]!.item;
        if ("seq" in item) this.#afterSeq = item.seq;
      }
      start = end;
    }
    this.#items = [];
    this.#deltaChars = 0;
    this.#afterSeq = this.#lastSeq;
    return out;
  }
}

/** Room left for the header `<message> <frame> <frames> ` (numbers well under 10^9 each). */
const HEADER_ROOM = 32;

/** Splits `text` into NOTIFY payloads of at most MAX_FRAME_BYTES bytes, at UTF-8 character boundaries. */
export function frames(message: number, text: string): string[] {
  const room = MAX_FRAME_BYTES - HEADER_ROOM;
  if (text.length * 3 <= room) return [`${message} 0 1 ${text}`]; // at most 3 UTF-8 bytes per UTF-16 unit
  const bytes = Buffer.from(text, "utf8");
  const slices: string[] = [];
  for (let start = 0; start < bytes.length; ) {
    let end = Math.min(start + room, bytes.length);
    while (end < bytes.length && (bytes[end]! & 0xc0) === 0x80) end--; // not inside a character
    slices.push(bytes.toString("utf8", start, end));
    start = end;
  }
  return slices.map((slice, i) => `${message} ${i} ${slices.length} ${slice}`);
}

/** Reassembles messages from the frames of one channel (a message whose first frames were missed is dropped). */
export class FrameAssembler {
  #message = -1;
  #parts: string[] = [];
  #count = 0;

  /** The message's text once its last frame arrives; undefined otherwise. */
  push(payload: string): string | undefined {
    const header = /^(\d+) (\d+) (\d+) /.exec(payload);
    if (header === null) return undefined;
    const [message, frame, count] = [Number(header[1]), Number(header[2]), Number(header[3])];
    if (count > MAX_MESSAGE_FRAMES || frame >= count) {
      this.#message = -1; // forged (or not ours): drop it, and what was assembled so far
      this.#parts = [];
      return undefined;
    }
    const body = payload.slice(header[0].length);
    if (frame === 0) {
      this.#message = message;
      this.#parts = [];
      this.#count = count;
    } else if (message !== this.#message || frame !== this.#parts.length) {
      this.#message = -1; // a frame is missing: drop the message
      this.#parts = [];
      return undefined;
    }
    this.#parts.push(body);
    if (this.#parts.length < this.#count) return undefined;
    const text = this.#parts.join("");
    this.#message = -1;
    this.#parts = [];
    return text;
  }
}

/** The message in `text`, or undefined when it is not one (anyone with the database can NOTIFY). */
export function decodeMessage(text: string): LiveMessage | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  const { t, a, m, s, r, d, e } = value as {
    t?: unknown;
    a?: unknown;
    m?: unknown;
    s?: unknown;
    r?: unknown;
    d?: unknown;
    e?: unknown;
  };
  if (
    typeof t !== "string" ||
    !Number.isSafeInteger(a) ||
    !Number.isSafeInteger(m) ||
    !Number.isSafeInteger(s) ||
    !Array.isArray(e)
  )
    return undefined;
  const items = e.filter(isWireItem);
  const message = {
    turnId: t,
    attempt: a as number,
    message: m as number,
    afterSeq: s as number,
    restart: r === 1,
    items,
  };
  return Number.isSafeInteger(d) && (d as number) >= -1 ? { ...message, durableThrough: d as number } : message;
}

const BLOCK_TYPES = new Set<string>([
  "text-start",
  "text-end",
  "reasoning-start",
  "reasoning-end",
  ...DELTA_TURN_EVENT_TYPES,
]);
const CALL_TYPES = new Set<string>(["tool-call-start", "tool-call-delta", "tool-call-end"]);

const isSeq = (value: unknown): boolean => Number.isSafeInteger(value) && (value as number) >= 0;
const isString = (value: unknown): boolean => typeof value === "string";

/**
 * Whether a decoded item has the shape of the turn event its `type` names, as far as a consumer
 * reads it (a delta's text is a string, positions are integers): anything else is dropped, so a
 * malformed or forged NOTIFY never reaches a consumer as a typed event.
 */
function isWireItem(item: unknown): item is WireItem {
  if (typeof item !== "object" || item === null || Array.isArray(item)) return false;
  const i = item as Record<string, unknown>;
  const type = i.type;
  if (typeof type !== "string") return false;
  if (type === "ref") return isSeq(i.seq);
  if (COMMITTED_TURN_EVENT_TYPES.has(type)) return isSeq(i.seq);
  if (type === "subagent")
    return (
      isString(i.callId) &&
      Array.isArray(i.path) &&
      i.path.every(isString) &&
      typeof i.event === "object" &&
      i.event !== null &&
      isString((i.event as { type?: unknown }).type)
    );
  if (type === "tool-progress")
    return isSeq(i.turn) && isSeq(i.step) && isString(i.callId) && Number.isFinite(i.progress);
  if (!(BLOCK_TYPES.has(type) || CALL_TYPES.has(type))) return false;
  if (!(isSeq(i.turn) && isSeq(i.step) && isSeq(i.index))) return false;
  if (DELTA_TURN_EVENT_TYPES.has(type) && !isString(i.delta)) return false;
  if (CALL_TYPES.has(type)) return isString(i.callId) && (type !== "tool-call-start" || isString(i.name));
  return isString(i.id);
}
