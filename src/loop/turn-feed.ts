// A feed of turn events over one agent's session: committed events are read from the log at the
// feed's cursor (never copied into a buffer, so a lagging consumer catches up from the log and
// no committed event is lost), live deltas wait in a bounded queue where adjacent deltas of one
// block coalesce. Over the bound, the queued deltas, block ends and progress reports and every
// live event of an earlier step are dropped, and the rest of the step in flight streams no deltas
// and no block ends (a block's end is delivered only when all its deltas were): the committed
// answers carry the content. Memory stays bounded and each event is shed once (a consumer that
// never reads costs the turn nothing per step). A slow consumer never blocks the loop — nothing
// here is awaited by it. A consumer that keeps up (its `next()` waiting when the
// append or chunk arrives) is handed that event directly: the queue and the poll serve one that lags.
// A follow (`kind: "idle"`) ends once the log is read, no turn is open and the agent holds no
// accepted input (`busy`); the agent going idle wakes it (`tapIdle`). Only that kind pays for it.
// A follow whose reader is not waiting when the agent goes idle (it lags, or was dropped unread)
// lets go of the agent's taps: it reads on from the log, and taps again — from the step in
// flight — if it catches up with a turn that started since; so a dropped follower is garbage
// after the turn it was in, not a listener on every later one (found from outside: 200 of them
// made each turn ~7x dearer). The live-only events of the turns it lagged through (deltas,
// progress, subagents') are not delivered; their committed events are.
import type { StreamChunk } from "../llm/core.js";
import type { Session, SessionEvent } from "../session/index.js";
import { AskingCalls } from "./asking-calls.js";
import { LiveBlocks } from "./live-blocks.js";
import {
  type CommittedTurnEvent,
  committedTurnEvent,
  isBlockEnd,
  type LiveTurnEvent,
  type SubagentTurnEvent,
  type ToolProgressEvent,
  type TurnEvent,
} from "./turn-events.js";
import type { TurnOutcome } from "./types.js";

/** Default bound on the characters of live deltas a feed holds for a consumer that lags. */
export const DEFAULT_MAX_BUFFERED_CHARS = 1 << 20;
/** What one queued live event weighs beyond its delta text. */
const EVENT_WEIGHT = 64;

export interface FeedSource {
  readonly session: Session;
  /** Subscribes to the provider's chunks of the step in flight (and calls' progress); returns the unsubscribe. */
  readonly tapChunks: (listener: (chunk: LiveSignal) => void) => () => void;
  /** Subscribes to the subagents' forwarded events; returns the unsubscribe. */
  readonly tapSubagents?: (listener: (event: SubagentTurnEvent) => void) => () => void;
  /** The chunks of the step in flight so far (a feed that joins mid-step starts from them). */
  readonly stepSoFar?: () => readonly StreamChunk[];
  /**
   * Whether the agent holds accepted input it has not finished (queued, or its turn driver
   * running): an idle-kind feed does not end while it does — that input's turn is the one in
   * flight, even before its `turn/start` is logged.
   */
  readonly busy?: () => boolean;
  /** Subscribes to the agent becoming idle (nothing queued, nothing driving); returns the unsubscribe. */
  readonly tapIdle?: (listener: () => void) => () => void;
  /** The last seq of the log no crash can take back (durable-log.ts); absent: all of it (no store). */
  readonly durableThrough?: () => number;
}

/** What feeds hear live: the provider's chunks, and running calls' progress reports. */
export type LiveSignal = StreamChunk | ToolProgressEvent;

/** Listeners of one kind of live value (an agent's provider chunks, its subagents' events): what feeds tap. */
export class Taps<T> {
  /** Copied when a listener is added or removed, never per value (an emit allocates nothing). */
  #listeners: readonly ((value: T) => void)[] = [];
  /** Adds a listener; returns its removal. Bound: pass it as a `FeedSource` tap. */
  readonly add = (listener: (value: T) => void): (() => void) => {
    this.#listeners = [...this.#listeners, listener];
    return () => {
      this.#listeners = this.#listeners.filter((l) => l !== listener);
    };
  };

  /** Calls the listeners in force when `value` arrived (one removed meanwhile still hears it). */
  emit(value: T): void {
    const listeners = this.#listeners;
    for (let i = 0; i < listeners.length; i++) listeners[i]!(value);
  }
}

/** When a feed ends: after one turn's end (with its outcome), or once the log is read and the agent idle. */
export type FeedEnd = { readonly kind: "turn"; readonly outcome: Promise<TurnOutcome> } | { readonly kind: "idle" };

interface Queued {
  /** The last committed seq when the chunk arrived: it is delivered after that event. */
  readonly afterSeq: number;
  event: LiveTurnEvent | SubagentTurnEvent;
}

export class TurnFeed implements AsyncIterableIterator<TurnEvent> {
  readonly #session: Session;
  readonly #source: FeedSource;
  readonly #end: FeedEnd;
  readonly #maxChars: number;
  readonly #blocks = new LiveBlocks();
  readonly #askingCalls: AskingCalls;
  readonly #unsubscribe: (() => void)[] = [];
  readonly #onClose: () => void;
  readonly #stepSoFar: (() => readonly StreamChunk[]) | undefined;
  /** An idle-kind feed's check that the agent has nothing queued or driving (turn-kind feeds: unused). */
  readonly #busy: (() => boolean) | undefined;
  /** Live events for a consumer that lags; the pending ones are `#queue[#head..]` (no `shift()`: O(n) on a large array). */
  #queue: Queued[] = [];
  #head = 0;
  #queuedChars = 0;
  /** The queued weight over which the queue is shed (`#shed`): the bound, plus what the last shed kept. */
  #shedAt: number;
  /** Next seq to read; undefined until the feed's turn starts. */
  #cursor: number | undefined;
  #turn: number | undefined;
  /** The step in flight (turn, step) and the one whose deltas overflowed: its further deltas are dropped. */
  #stepTurn = -1;
  #step = -1;
  #gapTurn = -2;
  #gapStep = -2;
  /**
   * The consumer's pending `next()` calls, in order, each settled as soon as something is
   * readable: the first in `#resolve` / `#reject` (a drained stream never has more than one), later
   * overlapping ones in `#later`.
   */
  #resolve: ((result: IteratorResult<TurnEvent>) => void) | undefined;
  #reject: ((error: unknown) => void) | undefined;
  #later: Waiter[] = [];
  /** The one executor of every pending `next()` promise: parks its settlers (no closure per call). */
  readonly #park = (resolve: (result: IteratorResult<TurnEvent>) => void, reject: (error: unknown) => void): void => {
    if (this.#resolve === undefined) {
      this.#resolve = resolve;
      this.#reject = reject;
    } else this.#later.push({ resolve, reject });
  };
  #polling = false;
  /** An idle-kind feed that let go of the agent's taps (module comment): it taps again on catching up. */
  #detached = false;
  #failure: { error: unknown } | undefined;
  #outcome: TurnOutcome | undefined;
  #done = false;

  constructor(source: FeedSource, end: FeedEnd, options: { maxBufferedChars?: number; onClose?: () => void } = {}) {
    this.#session = source.session;
    this.#source = source;
    this.#askingCalls = new AskingCalls((seq) => source.session.eventAt(seq));
    this.#end = end;
    this.#maxChars = options.maxBufferedChars ?? DEFAULT_MAX_BUFFERED_CHARS;
    this.#shedAt = this.#maxChars;
    this.#onClose = options.onClose ?? (() => {});
    this.#stepSoFar = source.stepSoFar;
    this.#subscribe();
    if (end.kind === "idle") this.#busy = source.busy;
    else {
      end.outcome.then(
        (outcome) => {
          this.#outcome = outcome;
          this.#unsubscribeAll(); // the turn is over: the rest is read from the log
          this.#notify();
        },
        (error: unknown) => this.fail(error),
      );
    }
  }

  #subscribe(): void {
    const source = this.#source;
    this.#unsubscribe.push(
      source.session.observe((event) => this.#onEvent(event)),
      source.tapChunks((chunk) => this.#onChunk(chunk)),
    );
    if (source.tapSubagents !== undefined) this.#unsubscribe.push(source.tapSubagents((e) => this.#onSubagent(e)));
    // Queued input that ends without a turn (refused, disposed) appends nothing: the idle wakes the feed.
    if (this.#end.kind === "idle" && source.tapIdle !== undefined)
      this.#unsubscribe.push(source.tapIdle(() => this.#onIdle()));
  }

  /** The agent went idle: a reader not waiting (lagging, or gone) reads the rest from the log (module comment). */
  #onIdle(): void {
    if (this.#resolve === undefined && !this.#done) {
      this.#unsubscribeAll();
      this.#detached = true;
    }
    this.#notify();
  }

  /** Taps again, joining the step in flight (each block's start, its text so far as one delta). */
  #attach(): void {
    this.#detached = false;
    this.#subscribe();
    this.#joinOpenStep();
  }

  #joinOpenStep(): void {
    const { openTurn, openStep } = this.#session;
    if (openTurn === null || openStep === null) return;
    this.#blocks.reset(openTurn, openStep);
    this.#stepTurn = openTurn;
    this.#step = openStep;
    for (const chunk of this.#stepSoFar?.() ?? []) this.#onChunk(chunk);
  }

  /** Starts reading the log at `seq` (for a turn feed: its `turn/start`). */
  startAt(seq: number, turn?: number): void {
    if (this.#cursor !== undefined) return;
    this.#cursor = seq;
    this.#turn = turn;
    this.#joinOpenStep(); // joined mid-step: the step so far first
    this.#notify();
  }

  /** Ends the feed with `error` once what is already readable has been delivered. */
  fail(error: unknown): void {
    this.#failure ??= { error };
    this.#notify();
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  /**
   * The last seq of the log that no crash can take back: flushed to the agent's store, or any
   * logged one without a store (a session in memory dies with its process and is never resumed).
   * An encoder gives a client a position (an SSE id) only up to it.
   */
  durableThrough(): number {
    return this.#source.durableThrough?.() ?? this.#session.length - 1;
  }

  /**
   * The next event: settled at once when one is readable, else when the loop makes one readable
   * (the append or chunk that does settles it, in its own frame). One promise per event, and
   * none of an async function's: a drained stream pays about a dozen per step.
   */
  next(): Promise<IteratorResult<TurnEvent>> {
    // A consumer that keeps up finds nothing readable, most of the time: it waits, without a poll.
    if (this.#resolve === undefined && this.#nothingReadable()) return new Promise(this.#park);
    let result: IteratorResult<TurnEvent> | undefined;
    try {
      result = this.#poll();
    } catch (error) {
      return Promise.reject(error);
    }
    if (result !== undefined && this.#resolve === undefined) return Promise.resolve(result);
    const pending = new Promise<IteratorResult<TurnEvent>>(this.#park);
    if (result !== undefined) {
      this.#settle(result); // an earlier call still waits: it gets this event
      this.#notify();
    }
    return pending;
  }

  /** Whether a poll would find nothing (and not end the feed): the common case, checked without one. */
  #nothingReadable(): boolean {
    const cursor = this.#cursor;
    return (
      cursor !== undefined &&
      cursor >= this.#session.length &&
      this.#queueEmpty() &&
      !this.#done &&
      this.#failure === undefined &&
      this.#end.kind === "turn"
    );
  }

  /** What `next()` settles with now, or undefined when nothing is readable yet. Throws the feed's failure. */
  #poll(): IteratorResult<TurnEvent> | undefined {
    this.#polling = true;
    try {
      if (this.#done) return { done: true, value: undefined };
      const event = this.#take();
      if (event !== undefined) return { done: false, value: event };
      if (this.#finished()) return this.#close();
      if (!this.#detached) return undefined;
      this.#attach(); // caught up with a turn that started since it let go
      const joined = this.#take();
      return joined === undefined ? undefined : { done: false, value: joined };
    } finally {
      this.#polling = false;
    }
  }

  /** Breaking the iteration early: stops the feed and runs `onClose` (the agent cancels the turn). */
  async return(): Promise<IteratorResult<TurnEvent>> {
    if (!this.#done) this.#onClose();
    this.#stop();
    return { done: true, value: undefined };
  }

  #take(): TurnEvent | undefined {
    const cursor = this.#cursor;
    if (cursor === undefined) return undefined;
    const head = this.#queue[this.#head];
    if (cursor < this.#session.length && (head === undefined || head.afterSeq >= cursor)) {
      const turnEvent = this.#committed(this.#session.eventAt(cursor)!);
      if (turnEvent.type === "turn-end" && this.#end.kind === "turn" && turnEvent.turn === this.#turn) {
        if (this.#outcome === undefined) return undefined; // delivered with the outcome, after the flush
        this.#cursor = cursor + 1;
        this.#done = true;
        this.#stop();
        return { ...turnEvent, outcome: this.#outcome };
      }
      this.#cursor = cursor + 1;
      return turnEvent;
    }
    if (head === undefined) return undefined;
    this.#head++;
    this.#queuedChars -= weight(head.event);
    if (this.#head === this.#queue.length) {
      this.#queue = [];
      this.#head = 0;
      this.#shedAt = this.#maxChars;
    } else if (this.#head >= 1024 && this.#head * 2 >= this.#queue.length) this.#compact();
    return head.event;
  }

  #finished(): boolean {
    if (this.#failure !== undefined) return true;
    if (this.#end.kind === "turn" || this.#cursor === undefined) return false;
    return (
      this.#cursor >= this.#session.length &&
      this.#session.openTurn === null &&
      this.#queueEmpty() &&
      this.#busy?.() !== true
    );
  }

  #close(): IteratorResult<TurnEvent> {
    this.#stop();
    const failure = this.#failure;
    if (failure !== undefined) throw failure.error;
    return { done: true, value: undefined };
  }

  #stop(): void {
    this.#done = true;
    this.#unsubscribeAll();
    this.#queue = [];
    this.#head = 0;
    this.#queuedChars = 0;
    this.#notify();
  }

  #unsubscribeAll(): void {
    for (const unsubscribe of this.#unsubscribe.splice(0)) unsubscribe();
  }

  #notify(): void {
    if (this.#polling) return; // reached from inside a poll (the feed stopping): that poll delivers
    while (this.#resolve !== undefined) {
      let result: IteratorResult<TurnEvent> | undefined;
      try {
        result = this.#poll();
      } catch (error) {
        const reject = this.#reject!;
        this.#shiftWaiter();
        reject(error);
        continue;
      }
      if (result === undefined) return;
      this.#settle(result);
    }
  }

  /** Settles the oldest pending `next()` with `result`. */
  #settle(result: IteratorResult<TurnEvent>): void {
    const resolve = this.#resolve!;
    this.#shiftWaiter();
    resolve(result);
  }

  #shiftWaiter(): void {
    if (this.#later.length === 0) {
      this.#resolve = undefined;
      this.#reject = undefined;
      return;
    }
    const next = this.#later.shift();
    this.#resolve = next?.resolve;
    this.#reject = next?.reject;
  }

  #onEvent(event: SessionEvent): void {
    if (event.type === "step/start" || event.type === "llm/retry") {
      const { turn, step } = event.data as { turn: number; step: number };
      this.#blocks.reset(turn, step);
      this.#stepTurn = turn;
      this.#step = step;
    }
    if (event.type === "assistant/message" && this.#gapped()) this.#dropLive();
    if (this.#cursor === undefined) return;
    if (this.#resolve !== undefined && this.#cursor === event.seq && this.#queueEmpty() && event.type !== "turn/end") {
      // The consumer waits and this event is next: what a poll would take, without one.
      this.#cursor = event.seq + 1;
      this.#settle({ done: false, value: this.#committed(event) });
      return;
    }
    this.#notify();
  }

  /** The turn event of a logged one, delivered in log order; a question asked before its call runs carries the call. */
  #committed(event: SessionEvent): CommittedTurnEvent {
    return this.#askingCalls.pass(committedTurnEvent(event));
  }

  #onChunk(chunk: LiveSignal): void {
    if (this.#cursor === undefined || this.#done) return;
    const event = chunk.type === "tool-progress" ? chunk : this.#blocks.map(chunk);
    if (event === undefined) return;
    if (this.#gapped() && (isDelta(event) || isBlockEnd(event))) return; // a block that lost deltas never ends live
    const afterSeq = this.#session.length - 1;
    if (this.#resolve !== undefined && this.#queueEmpty() && this.#cursor === afterSeq + 1) {
      this.#settle({ done: false, value: event }); // the consumer waits and nothing is ahead of it
      return;
    }
    const tail = this.#queueEmpty() ? undefined : this.#queue[this.#queue.length - 1];
    if (isDelta(event) && tail !== undefined && tail.afterSeq === afterSeq && sameBlock(tail.event, event)) {
      tail.event = { ...tail.event, delta: (tail.event as { delta: string }).delta + event.delta } as LiveTurnEvent;
      this.#queuedChars += event.delta.length;
    } else {
      this.#queue.push({ afterSeq, event });
      this.#queuedChars += weight(event);
    }
    if (this.#queuedChars > this.#shedAt) this.#shed();
    this.#notify();
  }

  /** A subagent's committed event: queued like a live event (never coalesced or dropped). */
  #onSubagent(event: SubagentTurnEvent): void {
    if (this.#cursor === undefined || this.#done) return;
    this.#queue.push({ afterSeq: this.#session.length - 1, event });
    this.#queuedChars += EVENT_WEIGHT;
    this.#notify();
  }

  #gapped(): boolean {
    return this.#gapStep === this.#step && this.#gapTurn === this.#stepTurn;
  }

  /**
   * Over the bound: drops what a lagging consumer can do without — every queued delta and progress
   * report, and every live event of an earlier step (its committed answer, read from the log,
   * carries its content) — and the step in flight streams no more deltas or block ends. What stays (the
   * step in flight's block starts, subagents' events) is not weighed again until the queue grows
   * by the bound once more: each queued event is shed at most once, however long the turn.
   */
  #shed(): void {
    this.#gapTurn = this.#stepTurn;
    this.#gapStep = this.#step;
    this.#compact();
    this.#queue = this.#queue.filter((item) => {
      const event = item.event;
      if (event.type === "subagent") return true;
      if (isDelta(event) || isBlockEnd(event) || event.type === "tool-progress") return false;
      return event.turn === this.#stepTurn && event.step === this.#step;
    });
    this.#queuedChars = this.#queue.reduce((sum, item) => sum + weight(item.event), 0);
    this.#shedAt = this.#queuedChars + this.#maxChars;
  }

  /** Whether no live event waits (those before `#head` are delivered). */
  #queueEmpty(): boolean {
    return this.#queue.length === this.#head;
  }

  /** Drops the delivered entries before `#head`. */
  #compact(): void {
    if (this.#head === 0) return;
    this.#queue = this.#queue.slice(this.#head);
    this.#head = 0;
  }

  /** Drops the queued deltas and block ends (starts stay: the consumer reconciles from the answer). */
  #dropLive(): void {
    this.#compact();
    this.#queue = this.#queue.filter((item) => !isDelta(item.event) && !isBlockEnd(item.event));
    this.#queuedChars = this.#queue.reduce((sum, item) => sum + weight(item.event), 0);
  }
}

interface Waiter {
  readonly resolve: (result: IteratorResult<TurnEvent>) => void;
  readonly reject: (error: unknown) => void;
}

type DeltaEvent = Extract<LiveTurnEvent, { delta: string }>;
/** By type, not `"delta" in event`: a check on many shapes of event is a megamorphic lookup. */
const isDelta = (event: LiveTurnEvent | SubagentTurnEvent): event is DeltaEvent =>
  event.type === "text-delta" || event.type === "reasoning-delta" || event.type === "tool-call-delta";
const sameBlock = (a: LiveTurnEvent | SubagentTurnEvent, b: DeltaEvent): boolean =>
  a.type === b.type && "index" in a && a.index === b.index && a.turn === b.turn && a.step === b.step;
const weight = (event: LiveTurnEvent | SubagentTurnEvent): number =>
  EVENT_WEIGHT + (isDelta(event) ? event.delta.length : 0);
