// A follower's merge of its two sources into one ordered stream (docs/decisions/0016): the
// worker's live messages (committed events as they are appended — before they are durable —
// and live deltas, each after the committed seq before it) and the store's durable events
// (store.watch). Committed events are delivered in seq order from whichever source has them
// first; a live item is delivered after the committed event it follows and before the next one
// (late ones — their successor already delivered from the store — are dropped: the committed
// answer carries them). A ref and a `turn-end` wait for the durable source: a follower's end is
// always in the log. When the log's event at a seq differs from one delivered live (its worker
// died or was fenced before saving it), the log wins: delivery goes back to that seq and goes on
// from the log — the only case in which a seq is delivered again. Live block events pass through
// FollowBlocks first: a delta or an end only for a block whose start arrived, each block's text
// once (a worker's restart repeats it), none for a block open while messages were missed. A
// question asked before its call runs, placed with no answer before it, is held until the
// follower has read back for that answer (`wantsAnswerBefore`, `answerFound`).
import { canonicalEquals, type JsonValue } from "../json/index.js";
import {
  AskingCalls,
  type CommittedTurnEvent,
  committedTurnEvent,
  isBlockEnd,
  type LiveTurnEvent,
  type SubagentTurnEvent,
  type TurnEvent,
} from "../loop/index.js";

/** What a follower queues between committed events: a live event, or a subagent's forwarded one. */
type Live = LiveTurnEvent | SubagentTurnEvent;
import type { SessionEvent } from "../session/index.js";
import { FollowBlocks } from "./follow-blocks.js";
import type { LiveMessage } from "./follow-wire.js";

/** Default bound on the characters of live deltas held for a consumer that lags. */
export const DEFAULT_FOLLOW_BUFFER_CHARS = 1 << 20;
/** What one queued live event weighs beyond its delta text. */
const EVENT_WEIGHT = 64;

interface QueuedLive {
  readonly afterSeq: number;
  event: Live;
}

interface Placed {
  readonly event: CommittedTurnEvent;
  readonly durable: boolean;
}

type DeltaEvent = Extract<LiveTurnEvent, { delta: string }>;
const isDelta = (event: Live): event is DeltaEvent => "delta" in event;
const weight = (event: Live): number => EVENT_WEIGHT + (isDelta(event) ? event.delta.length : 0);

export class FollowMerge {
  readonly #maxChars: number;
  /** Next seq to deliver; undefined until `start`. */
  #cursor: number | undefined;
  /** Committed events at or after the cursor, waiting for their turn. */
  readonly #committed = new Map<number, Placed>();
  /** Events delivered from a live message and not yet seen in the durable log. */
  readonly #unconfirmed = new Map<number, CommittedTurnEvent>();
  #live: QueuedLive[] = [];
  /** The latest answer placed: what a question's call is looked up in (the follower reads back for it: `answerFound`). */
  readonly #askingCalls = new AskingCalls();
  /** The seq of a question held until the follower has read back for the answer before it. */
  #wantsAnswerBefore: number | undefined;
  #liveChars = 0;
  #gapped: string | undefined;
  readonly #blocks = new FollowBlocks();
  /** The highest attempt seen per turn, and its last message: an earlier attempt's messages are stale, one heard again is dropped. */
  readonly #attempts = new Map<string, { attempt: number; message: number }>();

  constructor(options: { maxBufferedChars?: number } = {}) {
    this.#maxChars = options.maxBufferedChars ?? DEFAULT_FOLLOW_BUFFER_CHARS;
  }

  /** Delivery starts at `seq` (committed events before it are dropped). */
  start(seq: number): void {
    if (this.#cursor !== undefined) return;
    this.#cursor = seq;
    for (const at of this.#committed.keys()) if (at < seq) this.#committed.delete(at);
  }

  get started(): boolean {
    return this.#cursor !== undefined;
  }

  /** The next seq to deliver. */
  get cursor(): number | undefined {
    return this.#cursor;
  }

  /** The first seq not known to be in the log: the oldest delivered live and not seen saved, else the cursor. */
  get unsavedFrom(): number | undefined {
    let from = this.#cursor;
    for (const seq of this.#unconfirmed.keys()) if (from === undefined || seq < from) from = seq;
    return from;
  }

  /** True when nothing is waiting to be delivered. */
  get idle(): boolean {
    return this.#live.length === 0 && (this.#cursor === undefined || !this.#committed.has(this.#cursor));
  }

  /**
   * Events the store committed (in seq order, as `store.watch` delivers them). Before `start` they
   * are not kept (a follower of a queued turn would hold every earlier turn): a start at a seq the
   * store has passed already has to read the log again from there.
   */
  durable(events: readonly SessionEvent[]): void {
    if (this.#cursor === undefined) return;
    for (const event of events) this.#place(event.seq, committedTurnEvent(event), true);
  }

  /**
   * A worker's message: `stale` (an earlier attempt's, or one heard already) is dropped; `missed`
   * — taken, but messages before it were not heard (the follower should ask for a restart:
   * announce again) — and `taken`.
   */
  live(message: LiveMessage): "stale" | "missed" | "taken" {
    const newest = this.#attempts.get(message.turnId);
    if (newest !== undefined && message.attempt < newest.attempt) return "stale";
    // Within one attempt the worker numbers its messages 1, 2, …: one heard again (a payload replayed
    // on the channel by someone who heard it) is not delivered twice.
    if (newest !== undefined && message.attempt === newest.attempt && message.message <= newest.message) return "stale";
    const missed = newest !== undefined && message.attempt === newest.attempt && message.message > newest.message + 1;
    if (newest !== undefined && message.attempt > newest.attempt) this.#blocks.clear();
    if (missed) this.#blocks.missed();
    this.#attempts.set(message.turnId, { attempt: message.attempt, message: message.message });
    this.#blocks.message(message.restart);
    let after = message.afterSeq;
    for (const item of message.items) {
      if (item.type === "ref") after = item.seq;
      else if ("seq" in item) {
        after = item.seq;
        if (item.type !== "turn-end") this.#place(item.seq, item, false); // an end is taken from the log only
      } else this.#queueLive(after, item);
    }
    return missed ? "missed" : "taken";
  }

  /** The next event in order, or undefined when the next one has not arrived. */
  next(): TurnEvent | undefined {
    const cursor = this.#cursor;
    if (cursor === undefined) return undefined;
    while (this.#live.length > 0 && this.#live[0]!.afterSeq < cursor - 1) this.#dropHead(); // overtaken by the log
    const head = this.#live[0];
    if (head !== undefined && head.afterSeq === cursor - 1) {
      this.#dropHead();
      return head.event;
    }
    const placed = this.#committed.get(cursor);
    if (placed === undefined) return undefined;
    if (this.#askingCalls.wantsAnswer(placed.event)) {
      this.#wantsAnswerBefore = cursor; // held until `answerFound`
      return undefined;
    }
    this.#committed.delete(cursor);
    // A question placed before the answer it takes its call from (heard live before the log's
    // answer was read) gets the call now: the answer is known by the time the question is next.
    const event = this.#askingCalls.pass(placed.event);
    if (!placed.durable) this.#unconfirmed.set(cursor, event);
    this.#cursor = cursor + 1;
    return event;
  }

  /**
   * The next event is a question asked before its call runs, and this follower started after the
   * answer that holds the call (none placed): the seq to read back from for that answer
   * (`answerFound`). Undefined when nothing waits for a read back.
   */
  get wantsAnswerBefore(): number | undefined {
    return this.#wantsAnswerBefore;
  }

  /** What the follower's read back found: the latest `assistant/message` before `wantsAnswerBefore` (undefined: none). */
  answerFound(answer: SessionEvent | undefined): void {
    this.#wantsAnswerBefore = undefined;
    const found = answer === undefined ? undefined : committedTurnEvent(answer);
    this.#askingCalls.answerFound(found?.type === "assistant-message" ? found : undefined);
  }

  #place(seq: number, received: CommittedTurnEvent, durable: boolean): void {
    const event = this.#withContext(seq, received);
    const cursor = this.#cursor;
    if (cursor === undefined || seq >= cursor) {
      const existing = this.#committed.get(seq);
      if (durable || existing === undefined || !existing.durable) this.#committed.set(seq, { event, durable });
      return;
    }
    const delivered = this.#unconfirmed.get(seq);
    if (delivered === undefined) return; // delivered from the log already
    if (canonicalEquals(delivered as unknown as JsonValue, event as unknown as JsonValue)) {
      if (durable) this.#unconfirmed.delete(seq);
      return;
    }
    // What was delivered at `seq` is not what the log holds: deliver again from there.
    this.#cursor = seq;
    for (const at of [...this.#unconfirmed.keys()]) if (at >= seq) this.#unconfirmed.delete(at);
    for (const at of [...this.#committed.keys()]) if (at >= seq) this.#committed.delete(at);
    this.#live = [];
    this.#liveChars = 0;
    this.#committed.set(seq, { event, durable });
  }

  /**
   * Keeps the latest answer placed, and gives a question asked before its call runs that call's
   * block (`AskingCalls`) — from that answer, or from the worker's copy of the question, which
   * the worker filled from its log (this follower may have started after the answer).
   */
  #withContext(seq: number, event: CommittedTurnEvent): CommittedTurnEvent {
    if (event.type === "input-request" && event.callId === undefined && event.call === undefined) {
      const live = this.#committed.get(seq)?.event ?? this.#unconfirmed.get(seq);
      if (live?.type === "input-request" && live.id === event.id && live.call !== undefined)
        return { ...event, call: live.call };
    }
    return this.#askingCalls.pass(event);
  }

  #queueLive(afterSeq: number, received: Live): void {
    const event = this.#blocks.admit(afterSeq, received);
    if (event === undefined) return;
    if ((isDelta(event) || isBlockEnd(event)) && this.#gapped === `${event.turn}/${event.step}`) return;
    const tail = this.#live.at(-1);
    if (
      isDelta(event) &&
      tail !== undefined &&
      tail.afterSeq === afterSeq &&
      isDelta(tail.event) &&
      tail.event.type === event.type &&
      tail.event.index === event.index &&
      tail.event.turn === event.turn &&
      tail.event.step === event.step
    ) {
      tail.event = { ...(tail.event as DeltaEvent), delta: (tail.event as DeltaEvent).delta + event.delta };
      this.#liveChars += event.delta.length;
    } else {
      this.#live.push({ afterSeq, event });
      this.#liveChars += weight(event);
    }
    if (this.#liveChars > this.#maxChars && isDelta(event)) {
      // Over the bound: the step streams no more deltas; its committed answer carries the content.
      this.#gapped = `${event.turn}/${event.step}`;
      this.#live = this.#live.filter((q) => !isDelta(q.event) && !isBlockEnd(q.event)); // ends only of whole blocks
      this.#liveChars = this.#live.reduce((sum, q) => sum + weight(q.event), 0);
    }
  }

  #dropHead(): void {
    const head = this.#live.shift();
    if (head !== undefined) this.#liveChars -= weight(head.event);
  }
}
