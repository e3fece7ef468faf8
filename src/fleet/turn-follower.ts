// `fleetClient.stream(turnId)` and `streamSession(sessionId)` (decision 0014): a turn's events, from
// whichever worker runs it, to a client in any process. A follower LISTENs on the session's live
// channel and merges the worker's live messages with the log's durable events (follow-merge.ts).
// The worker publishes a turn once someone follows: a turn follower marks its queued turn
// followed (the worker sees it when the turn starts) and announces the session when it hears
// its turn claimed or finds it running; a session follower watches the session's log, which
// the worker sees too, and announces once for a turn already running. A turn follower reads
// the log (`readEvents`) when it must: at its start, when a gap or a reference holds it up and
// the worker has committed more, and when the turn ends — its `turn-end` is the log's. A
// session follower tails the log continuously (log-tail.ts). A turn follower waits while its
// turn is queued (the client's StatusPoll backs up the queue's notifications) and ends with its
// turn's end; a session follower starts after `from` and ends when the session has no open turn
// and everything logged is delivered. A running turn's lease is judged at its expiry
// (follow-state.ts): a dead worker is noticed within about two leases.
import type { TurnEvent } from "../loop/index.js";
import type { PgPool, PostgresSessionStore } from "../store/postgres/index.js";
import { FollowMerge } from "./follow-merge.js";
import { type FollowState, LeaseJudge, readFollowState } from "./follow-state.js";
import { decodeMessage, FrameAssembler, liveChannel } from "./follow-wire.js";
import { fleetDbError } from "./fleet-pool.js";
import { LogTail } from "./log-tail.js";
import { FOLLOW_MARK_MS, type StatusPoll } from "./status-poll.js";
import type { TurnNotifications } from "./turn-notifications.js";
import { ANNOUNCE_FOLLOW, TURN_SESSION } from "./turn-queries.js";
import { FINISHED_STATUSES, FleetError } from "./types.js";

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
  readonly notifications: TurnNotifications;
  readonly poll: StatusPoll;
  readonly store: () => PostgresSessionStore;
  /** The follower ended: the client stops tracking it. */
  readonly forget: (follower: TurnFollower) => void;
}

export class TurnFollower implements AsyncIterableIterator<TurnEvent> {
  readonly #port: FollowPort;
  readonly #target: FollowTarget;
  readonly #signal: AbortSignal | undefined;
  readonly #merge: FollowMerge;
  readonly #frames = new FrameAssembler();
  readonly #lease = new LeaseJudge();
  readonly #ready: Promise<void>;
  #sessionId: string | undefined;
  /** Session mode: the log's tail. */
  #tail: LogTail | undefined;
  /** Turn mode: a read of the log in flight, and whether another is wanted after it. */
  #reading: Promise<void> | undefined;
  #readAgain = false;
  /** Turn mode: live messages with committed events so far (a read is worth it only when this moved). */
  #liveCommits = 0;
  #readAtCommits = -1;
  #unlisten: (() => void) | undefined;
  #unsubscribe: (() => void) | undefined;
  #untrack: (() => void)[] = [];
  #timer: NodeJS.Timeout | undefined;
  #refreshing: Promise<void> | undefined;
  #refreshAgain = false;
  #wake: (() => void) | undefined;
  #failure: { error: unknown } | undefined;
  /** Nothing more is delivered. */
  #done = false;
  #closed = false;
  /** Turns whose notifications concern this follower. */
  readonly #tracked = new Set<string>();
  #initialized = false;
  /** A look was asked for while starting. */
  #deferred = false;
  /** Turn mode: the claim's notification was heard and announced (the look that follows need not). */
  #claimHeard = false;
  /** Turn mode: the turn was queued when looked at (and so marked followed before it started). */
  #sawQueued = false;
  /** The attempt last announced (turn mode). */
  #announced = 0;
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
    if (target.kind === "turn") this.#tracked.add(target.turnId);
    this.#signal?.addEventListener("abort", this.#onAbort, { once: true });
    if (this.#signal?.aborted === true) this.#onAbort();
    this.#ready = this.#init().catch((error: unknown) => this.fail(error));
  }

  [Symbol.asyncIterator](): this {
    return this;
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

  async #init(): Promise<void> {
    const target = this.#target;
    if (target.kind === "turn" && !/^[0-9]{1,18}$/.test(target.turnId))
      throw new FleetError("not-found", `no turn ${JSON.stringify(target.turnId)} (turn ids are numbers)`);
    const { notifications } = this.#port;
    this.#unsubscribe = notifications.subscribe((id, status) => {
      if (!this.#tracked.has(id)) return;
      // Its start was delivered: its end is in the log now (written by its worker or by crash repair).
      if (target.kind === "turn" && this.#turn !== undefined && FINISHED_STATUSES.includes(status)) {
        this.#readLog();
        return;
      }
      // Claimed: tell its worker at once (before looking), so it publishes from the turn's start.
      if (status === "running" && target.kind === "turn" && this.#sessionId !== undefined) {
        this.#claimHeard = true;
        void this.#announce();
      }
      this.#refresh();
    });
    // Listening first (the queue's channel, then the session's live channel), looking after: a
    // change or a message from then on is heard.
    await notifications.listening();
    const sessionId = target.kind === "turn" ? await this.#sessionOf(target.turnId) : target.sessionId;
    this.#sessionId = sessionId;
    this.#unlisten = await notifications.listen(liveChannel(sessionId), (payload) => this.#onFrame(payload));
    // A turn follower's first look marks its queued turn followed: the worker that starts it publishes it.
    const state = await this.#look(target.kind === "turn" ? FOLLOW_MARK_MS : undefined);
    if (state === undefined)
      throw new FleetError("not-found", `no session ${JSON.stringify(sessionId)} in ${this.#port.label}`);
    if (this.#closed) return;
    if (target.kind === "session") {
      if (!Number.isSafeInteger(target.from) || target.from < -1 || target.from >= state.nextSeq)
        throw new FleetError(
          "invalid-position",
          `follow session ${JSON.stringify(sessionId)} from seq ${String(target.from)}: the log has seqs 0..${state.nextSeq - 1}`,
        );
      this.#merge.start(target.from + 1);
      this.#tail = new LogTail(this.#port.store, sessionId, (events) => {
        this.#merge.durable(events);
        this.#wakeUp();
      });
      await this.#tail.start(target.from + 1); // marks the session watched: a turn starting later is published
      if (state.turns.some((t) => t.status === "running")) await this.#announce();
    }
    await this.#apply(state);
    this.#initialized = true;
    if (this.#deferred) this.#refresh(); // notified while starting
  }

  async #sessionOf(turnId: string): Promise<string> {
    const { rows } = await this.#port.pool.query<{ session_id: string }>(TURN_SESSION, [turnId]).catch((e: unknown) => {
      throw fleetDbError(e, this.#port.label, `looking up turn ${turnId}`);
    });
    if (rows[0] === undefined) throw new FleetError("not-found", `no turn ${turnId} in ${this.#port.label}`);
    return rows[0].session_id;
  }

  #look(markMs?: number): Promise<FollowState | undefined> {
    const target = this.#target;
    return readFollowState(this.#port.pool, this.#port.label, {
      ...(target.kind === "turn" ? { turnId: target.turnId } : { sessionId: target.sessionId }),
      ...(markMs === undefined ? {} : { markMs }),
    });
  }

  /** Acts on what the queue says: anchors and announces a turn that runs, judges its lease, or waits. */
  async #apply(state: FollowState): Promise<void> {
    if (this.#done) return;
    clearTimeout(this.#timer);
    for (const untrack of this.#untrack.splice(0)) untrack();
    const target = this.#target;
    const open = state.turns.filter((t) => !FINISHED_STATUSES.includes(t.status));
    if (target.kind === "session") {
      for (const t of open) this.#tracked.add(t.id);
      this.#endAt = open.length === 0 ? state.nextSeq : undefined;
    } else {
      const turn = state.turns.find((t) => t.id === target.turnId);
      if (turn === undefined)
        throw new FleetError("not-found", `turn ${target.turnId} is gone from ${this.#port.label}`);
      if (FINISHED_STATUSES.includes(turn.status)) {
        if (turn.outcome === null || turn.startSeq === null)
          throw new FleetError(
            "not-run",
            `turn ${turn.id} ended ${turn.status} without running${turn.error === null ? "" : `: ${turn.error}`}`,
          );
        this.#finalSeq = state.nextSeq;
        this.#anchor(turn.startSeq);
        this.#readLog(); // the log holds the turn's end
        this.#wakeUp();
        return;
      }
      if (turn.status === "queued") this.#sawQueued = true;
      if (turn.status === "running") {
        // Before its start is recorded, the log ends where the previous turn (and any repair) left it.
        this.#anchor(turn.startSeq ?? state.nextSeq);
        if (turn.attempts > this.#announced) {
          this.#announced = turn.attempts;
          if (!this.#claimHeard) await this.#announce(); // found running: announced now
        }
        this.#claimHeard = false;
      }
    }
    const running = open.find((t) => t.status === "running" && this.#tracked.has(t.id));
    if (running !== undefined) {
      const verdict = this.#lease.judge(running, state, performance.now());
      if (verdict.kind === "lost") throw new FleetError("worker-lost", verdict.message);
      this.#timer = setTimeout(() => this.#refresh(), verdict.recheckMs);
    } else {
      // A followed turn that waits stays marked followed (the first look marked it), so the
      // worker that starts it publishes it.
      const waiting = open.filter((t) => this.#tracked.has(t.id));
      for (const t of waiting)
        this.#untrack.push(this.#port.poll.track(t.id, t.status, () => this.#refresh(), target.kind === "turn"));
    }
    this.#wakeUp();
  }

  /** Turn mode: the turn's events are the log's from its first `turn/start` at or after `seq`. */
  #anchor(seq: number): void {
    if (this.#merge.started) return;
    this.#merge.start(seq);
    // What the log holds already — unless the turn was seen queued: then it is published from its start.
    if (!this.#sawQueued) this.#readLog();
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
        const from = this.#merge.unsavedFrom!;
        const events = await this.#port
          .store()
          .readEvents(sessionId, from)
          .catch(() => undefined);
        if (events === undefined) {
          this.#timer ??= setTimeout(() => this.#refresh(), 1000); // the database is away: look again
          return;
        }
        this.#merge.durable(events);
        this.#wakeUp();
      } while (this.#readAgain && !this.#done);
    })().finally(() => {
      this.#reading = undefined;
    });
  }

  /** Tells the workers this session is followed; a failure is not fatal (committed events still come from the log). */
  async #announce(): Promise<void> {
    await this.#port.pool.query(ANNOUNCE_FOLLOW, [this.#sessionId]).catch(() => undefined);
  }

  /** Looks at the queue again (one look at a time; a request during one makes one more). */
  #refresh(): void {
    if (this.#done) return;
    if (!this.#initialized) {
      this.#deferred = true;
      return;
    }
    if (this.#refreshing !== undefined) {
      this.#refreshAgain = true;
      return;
    }
    this.#refreshing = (async () => {
      do {
        this.#refreshAgain = false;
        try {
          const state = await this.#look();
          if (state === undefined)
            throw new FleetError("not-found", `the followed session is gone from ${this.#port.label}`);
          await this.#apply(state);
        } catch (error) {
          if (error instanceof FleetError && error.code === "unavailable") {
            void this.#port.notifications.listening(); // reopens a lost LISTEN connection (and its channels)
            this.#timer = setTimeout(() => this.#refresh(), 1000);
          } else this.fail(error);
        }
      } while (this.#refreshAgain && !this.#done);
    })().finally(() => {
      this.#refreshing = undefined;
    });
  }

  #onFrame(payload: string): void {
    const text = this.#frames.push(payload);
    if (text === undefined || this.#done) return;
    const message = decodeMessage(text);
    if (message === undefined) return;
    const target = this.#target;
    if (target.kind === "turn" && message.turnId !== target.turnId) return;
    if (target.kind === "session" && !this.#tracked.has(message.turnId)) {
      this.#tracked.add(message.turnId); // a turn that started after the last look
      this.#endAt = undefined;
    }
    if (!this.#merge.live(message)) return;
    if (message.items.some((item) => "seq" in item)) this.#liveCommits++;
    this.#wakeUp();
  }

  #take(): TurnEvent | undefined {
    for (;;) {
      const event = this.#merge.next();
      if (event === undefined) {
        // Held up by a gap or a reference: the log may hold it once the worker committed more.
        if (this.#target.kind === "turn" && !this.#merge.idle && this.#liveCommits !== this.#readAtCommits)
          this.#readLog();
        return undefined;
      }
      if (this.#target.kind === "session") {
        if (event.type === "turn-end") this.#refresh(); // the session may be idle now
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
    } else if (this.#finalSeq !== undefined && cursor >= this.#finalSeq)
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
    clearTimeout(this.#timer);
    for (const untrack of this.#untrack.splice(0)) untrack();
    this.#signal?.removeEventListener("abort", this.#onAbort);
    this.#unlisten?.();
    this.#unsubscribe?.();
    this.#port.forget(this);
    await this.#tail?.close();
    await this.#refreshing;
    await this.#reading;
  }
}
