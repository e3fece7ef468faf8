// `fleetClient.stream(turnId)` and `streamSession(sessionId)` (decision 0016): a turn's events, from
// whichever worker runs it, to a client in any process. A follower LISTENs on the session's live
// channel and merges the worker's live messages with the log's durable events (follow-merge.ts);
// what it knows of the queue — where the turn starts, that it finished, whether its worker still
// holds it — comes from QueueWatch (follow-queue.ts), which also gets the turn published. A turn
// follower reads the log only when it must (`readEvents`): at a late start, when a gap or a
// reference holds it up and the worker has committed more, when the worker's message says its
// log is durable past what was delivered live (so the follower's position moves on after each
// step's flush), and when the turn finished — its `turn-end` is always the log's. A session
// follower tails the log (log-tail.ts) from `from` on and ends when the session has no open turn
// and everything logged is delivered.
import { type FollowFeed, followPositionFault, type TurnEvent } from "../loop/index.js";
import type { PgPool, PostgresSessionStore } from "../store/postgres/index.js";
import { latestAnswerBefore } from "./answer-lookback.js";
import { FollowMerge } from "./follow-merge.js";
import { QueueWatch } from "./follow-queue.js";
import type { FollowSeal } from "./follow-seal.js";
import { decodeMessage, FrameAssembler, liveChannel } from "./follow-wire.js";
import { LogTail } from "./log-tail.js";
import type { StatusPoll } from "./status-poll.js";
import type { TurnNotifications } from "./turn-notifications.js";
import { FleetError } from "./types.js";

export interface FollowOptions {
  /** Ends the iteration (it throws the signal's reason); the turn is not affected. */
  readonly signal?: AbortSignal;
  /** Bound on the characters of live deltas held for a consumer that lags (default 1 MiB). */
  readonly maxBufferedChars?: number;
}

export interface FollowSessionOptions extends FollowOptions {
  /** The last seq the client has: events after it are delivered (default -1: the whole log). */
  readonly from?: number;
}

export type FollowTarget =
  | { readonly kind: "turn"; readonly turnId: string }
  | { readonly kind: "session"; readonly sessionId: string; readonly from: number };

/** What a follower uses of its client. */
export interface FollowPort {
  readonly pool: PgPool;
  readonly label: string;
  /** The workers' `deadAfterMs` (decision 0040): how long no worker may hold its liveness lock before a running turn is lost. */
  readonly deadAfterMs: number;
  readonly notifications: TurnNotifications;
  readonly poll: StatusPoll;
  readonly store: () => PostgresSessionStore;
  /** The fleet's follow key: live messages are opened with it, announcements sealed (follow-seal.ts). */
  readonly seal: () => Promise<FollowSeal>;
  /** The follower ended: the client stops tracking it. */
  readonly forget: (follower: TurnFollower) => void;
}

export class TurnFollower implements FollowFeed {
  readonly #port: FollowPort;
  readonly #target: FollowTarget;
  readonly #signal: AbortSignal | undefined;
  readonly #merge: FollowMerge;
  readonly #frames = new FrameAssembler();
  readonly #queue: QueueWatch;
  readonly #ready: Promise<void>;
  #sessionId: string | undefined;
  #seal: FollowSeal | undefined;
  #channel = "";
  #unlisten: (() => void) | undefined;
  /** Session mode: the log's tail. */
  #tail: LogTail | undefined;
  /** Turn mode: a read of the log in flight, and whether another is wanted after it. */
  #reading: Promise<void> | undefined;
  #readAgain = false;
  /** A read back for the answer a held question takes its call from (`FollowMerge.wantsAnswerBefore`), in flight. */
  #lookingBack = false;
  /** Turn mode: live messages with committed events so far (a read is worth it only when this moved). */
  #liveCommits = 0;
  #readAtCommits = -1;
  /** Turn mode: the furthest the worker said its log is durable (`LiveMessage.durableThrough`). */
  #durableHeard = -1;
  #wake: (() => void) | undefined;
  #failure: { error: unknown } | undefined;
  /** Nothing more is delivered. */
  #done = false;
  #closed = false;
  /** Turn mode: the turn's number, from its `turn/start`. */
  #turn: number | undefined;
  /** Turn mode: the turn finished and the log ends here; its end must come before. */
  #finalSeq: number | undefined;
  /** Session mode: no open turn — the follower ends once the log up to here is delivered. */
  #endAt: number | undefined;

  constructor(port: FollowPort, target: FollowTarget, options: FollowOptions = {}) {
    this.#port = port;
    this.#target = target;
    this.#signal = options.signal;
    this.#merge = new FollowMerge(
      options.maxBufferedChars === undefined ? {} : { maxBufferedChars: options.maxBufferedChars },
    );
    this.#queue = new QueueWatch(port, target, {
      anchor: (seq, published) => this.#anchor(seq, published),
      finished: (startSeq, nextSeq) => {
        this.#finalSeq = nextSeq;
        this.#anchor(startSeq, true);
        this.#readLog(); // the log holds the turn's end
      },
      idle: (endAt) => {
        this.#endAt = endAt;
        this.#wakeUp();
      },
      started: () => this.#turn !== undefined,
      read: () => this.#readLog(),
      fail: (error) => this.fail(error),
    });
    this.#signal?.addEventListener("abort", this.#onAbort, { once: true });
    if (this.#signal?.aborted === true) this.#onAbort();
    this.#ready = this.#init().catch((error: unknown) => this.fail(error));
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  /**
   * The last seq delivered that the follower has seen in the log (PostgreSQL committed it): a
   * worker's committed events arrive live before they are durable, and one that died before
   * saving them has them logged again differently (delivery goes back). The SSE encoder gives ids
   * only up to this (`TurnStream.durableThrough`).
   */
  durableThrough(): number {
    return (this.#merge.unsavedFrom ?? 0) - 1;
  }

  async next(): Promise<IteratorResult<TurnEvent>> {
    await this.#ready;
    for (;;) {
      if (!this.#done) {
        const event = this.#take();
        if (event !== undefined) return { done: false, value: event };
        if (this.#failure === undefined) this.#checkEnd();
      }
      if (this.#done) {
        await this.#close();
        return { done: true, value: undefined };
      }
      if (this.#failure !== undefined) {
        const { error } = this.#failure;
        await this.#close();
        throw error;
      }
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
    }
  }

  /** Stops following (the turn goes on). */
  async return(): Promise<IteratorResult<TurnEvent>> {
    await this.#ready;
    await this.#close();
    return { done: true, value: undefined };
  }

  /** Ends the follower with `error` after what is already deliverable. */
  fail(error: unknown): void {
    this.#failure ??= { error };
    this.#wakeUp();
  }

  /** The client is closing: ends this follower with `error` and releases what it holds. */
  async shut(error: FleetError): Promise<void> {
    this.fail(error);
    await this.#ready;
    await this.#close();
  }

  /** Listening first (the queue's channel, then the session's live channel), looking after: a change or a message from then on is heard. */
  async #init(): Promise<void> {
    const target = this.#target;
    this.#seal = await this.#port.seal();
    const sessionId = await this.#queue.subscribe();
    this.#sessionId = sessionId;
    this.#channel = liveChannel(sessionId);
    const unlisten = await this.#port.notifications.listen(this.#channel, (payload) => this.#onFrame(payload));
    const unreopen = this.#port.notifications.onReopen(() => this.#reopened());
    this.#unlisten = () => {
      unlisten();
      unreopen();
    };
    const state = await this.#queue.first();
    if (this.#closed) return;
    if (target.kind === "session") {
      const fault = followPositionFault(target.from, state.nextSeq, `follow session ${JSON.stringify(sessionId)}`);
      if (fault !== undefined) throw new FleetError(fault.code, fault.message);
      this.#merge.start(target.from + 1);
      this.#tail = new LogTail(
        this.#port.store,
        sessionId,
        (events) => {
          this.#merge.durable(events);
          this.#wakeUp();
        },
        (error) => this.fail(error),
      );
      await this.#tail.start(target.from + 1); // marks the session watched: a turn starting later is published
      if (state.turns.some((t) => t.status === "running")) await this.#queue.announce();
    }
    await this.#queue.start(state);
  }

  /** Turn mode: the turn's events are the log's from its first `turn/start` at or after `seq`. */
  #anchor(seq: number, published: boolean): void {
    if (this.#merge.started) return;
    this.#merge.start(seq);
    if (!published) this.#readLog(); // a late follower: what the log holds already
    this.#wakeUp();
  }

  /**
   * Turn mode: reads the log from the first seq not known saved, once at a time (a request during
   * a read makes one more). A failed read is left to the next trigger or look.
   */
  #readLog(): void {
    if (this.#done || !this.#merge.started || this.#sessionId === undefined) return;
    if (this.#reading !== undefined) {
      this.#readAgain = true;
      return;
    }
    const sessionId = this.#sessionId;
    this.#reading = (async () => {
      do {
        this.#readAgain = false;
        this.#readAtCommits = this.#liveCommits;
        const events = await this.#port
          .store()
          .readEvents(sessionId, this.#merge.unsavedFrom!)
          .catch(() => undefined);
        if (events === undefined) {
          this.#queue.refresh(); // the database is away: the queue's next look reads again when it can
          return;
        }
        this.#merge.durable(events);
        this.#wakeUp();
      } while (this.#readAgain && !this.#done);
    })().finally(() => {
      this.#reading = undefined;
    });
  }

  /**
   * Reads back for the latest answer before `seq`: the question held there was asked before its
   * call runs, and this follower started after the answer that holds the call. A read that fails
   * lets the question go without it (a reload from the log marks it) rather than hold the stream.
   */
  #lookBack(seq: number): void {
    if (this.#lookingBack || this.#sessionId === undefined) return;
    this.#lookingBack = true;
    const sessionId = this.#sessionId;
    const store = this.#port.store();
    void latestAnswerBefore((from, to) => store.readEvents(sessionId, from, to), seq)
      .catch(() => undefined)
      .then((answer) => {
        this.#lookingBack = false;
        this.#merge.answerFound(answer);
        this.#wakeUp();
      });
  }

  /**
   * A message that opened under none of the seal's keys: forged, or sealed under a key rotated
   * since one side read it. The seal reads the key again (at most once per FOLLOW_KEY_RELOAD_MS);
   * after a read, this follower announces itself again under the key it now holds — a worker
   * behind on the key reads it on hearing that, and either way publishes the turn again from its
   * start, which this follower now opens (what it had dropped included).
   */
  #unopened(): void {
    void this.#seal?.reloadKey().then((reload) => {
      if (reload !== "skipped" && !this.#done) void this.#queue.announce();
    });
  }

  #onFrame(payload: string): void {
    const sealed = this.#frames.push(payload);
    if (sealed === undefined || this.#done) return;
    const text = this.#seal?.open(this.#channel, sealed); // a forged or altered message does not open
    if (text === undefined) {
      this.#unopened();
      return;
    }
    const message = decodeMessage(text);
    if (message === undefined) return;
    const target = this.#target;
    if (target.kind === "turn" && message.turnId !== target.turnId) return;
    if (target.kind === "session") this.#queue.track(message.turnId); // may be a turn that started after the last look
    const heard = this.#merge.live(message);
    if (heard === "stale") return;
    if (heard === "missed") void this.#queue.announce(); // the worker publishes the turn again from its start
    if (message.items.some((item) => "seq" in item)) this.#liveCommits++;
    // A message with the turn's end needs no read of its own: the end is read from the log anyway.
    if (target.kind === "turn" && !message.items.some((item) => item.type === "turn-end"))
      this.#heardDurable(message.durableThrough);
    this.#wakeUp();
  }

  /**
   * The worker's log is durable through `seq`: when that covers an event delivered live and not
   * yet seen saved (or one not delivered yet), the log is read — so this follower's position
   * (`durableThrough`), and an SSE client's id, move on after each step's flush instead of
   * staying at the turn's start until its end. One read per advance, never one per message.
   */
  #heardDurable(seq: number | undefined): void {
    if (seq === undefined || seq <= this.#durableHeard) return;
    this.#durableHeard = seq;
    const unsaved = this.#merge.unsavedFrom;
    if (unsaved !== undefined && seq >= unsaved) this.#readLog();
  }

  /**
   * The LISTEN connection was lost and is back: live messages may have been missed (the next
   * message's number tells: the merge stops the blocks open across a gap). The worker is asked to
   * publish the turn again from its start (a restart message: blocks begun meanwhile), and the
   * queue and the log are read again.
   */
  #reopened(): void {
    if (this.#done) return;
    void this.#queue.announce();
    this.#queue.refresh();
    if (this.#target.kind === "turn") this.#readLog();
  }

  #take(): TurnEvent | undefined {
    for (;;) {
      const event = this.#merge.next();
      if (event === undefined) {
        const before = this.#merge.wantsAnswerBefore;
        if (before !== undefined) this.#lookBack(before);
        // Held up by a gap or a reference: the log may hold it once the worker committed more.
        if (this.#target.kind === "turn" && !this.#merge.idle && this.#liveCommits !== this.#readAtCommits)
          this.#readLog();
        return undefined;
      }
      if (this.#target.kind === "session") {
        if (event.type === "turn-end") this.#queue.refresh(); // the session may be idle now
        return event;
      }
      if (this.#turn === undefined) {
        if (event.type !== "turn-start") continue; // the end of an earlier turn (crash repair), before ours
        this.#turn = event.turn;
      }
      if (event.type === "turn-end" && event.turn === this.#turn) this.#done = true; // delivered, then done
      return event;
    }
  }

  /** With nothing left to deliver: a session follower of an idle session is done; a turn follower past a finished turn's log fails. */
  #checkEnd(): void {
    const cursor = this.#merge.cursor;
    if (cursor === undefined || !this.#merge.idle) return;
    if (this.#target.kind === "session") {
      if (this.#endAt !== undefined && cursor >= this.#endAt) this.#done = true;
    } else if (this.#finalSeq !== undefined && cursor >= this.#finalSeq && this.#reading === undefined)
      this.fail(
        new FleetError(
          "not-run",
          `the log of turn ${this.#target.turnId} ends at seq ${this.#finalSeq - 1} without the turn's end`,
        ),
      );
  }

  #onAbort = (): void => {
    this.fail(this.#signal?.reason ?? new FleetError("closed", "following was aborted"));
  };

  #wakeUp(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  /** Stops everything this follower started (idempotent). */
  async #close(): Promise<void> {
    this.#done = true;
    this.#wakeUp();
    if (this.#closed) return;
    this.#closed = true;
    this.#signal?.removeEventListener("abort", this.#onAbort);
    this.#unlisten?.();
    this.#port.forget(this);
    await this.#queue.close();
    await this.#tail?.close();
    await this.#reading;
  }
}

/** A follow refused before it starts: every `next()` rejects with `error`; `return()` ends it; it delivers nothing durable. */
export function refusedFollow(error: FleetError): FollowFeed {
  return {
    next: () => Promise.reject(error),
    durableThrough: () => -1,
    return: () => Promise.resolve({ done: true, value: undefined }),
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}
