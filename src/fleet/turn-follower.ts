// `fleetClient.stream(turnId)` and `streamSession(sessionId)` (decision 0014): a turn's events, from
// whichever worker runs it, to a client in any process. A follower LISTENs on the session's
// live channel, watches the session's log (store.watch — which also marks the session watched,
// so a turn that starts later is published from its start), announces the session when a turn
// runs already, and merges the worker's live messages with the durable events (follow-merge.ts).
// A turn follower waits while its turn is queued, starts at the turn's `turn/start`, and ends
// with its `turn-end` as the log holds it; a session follower starts after `from` and ends when
// the session has no open turn and everything logged is delivered. Its state (follow-state.ts) is
// looked at again on the queue's notifications for its turns, at the running turn's lease
// expiry, and every `pollMs` while a turn is queued: a worker that died is noticed within about
// two leases, never waited for forever.
import type { TurnEvent } from "../loop/index.js";
import type { PgPool, PostgresSessionStore, SessionWatch } from "../store/postgres/index.js";
import { FollowMerge } from "./follow-merge.js";
import { type FollowState, LeaseJudge, readFollowState } from "./follow-state.js";
import { decodeMessage, FrameAssembler, liveChannel } from "./follow-wire.js";
import type { TurnNotifications } from "./turn-notifications.js";
import { ANNOUNCE_FOLLOW } from "./turn-queries.js";
import { FINISHED_STATUSES, FleetError } from "./types.js";

/** What a follower uses of its client. */
export interface FollowPort {
  readonly pool: PgPool;
  readonly label: string;
  readonly notifications: TurnNotifications;
  readonly store: () => PostgresSessionStore;
  /** The follower ended: the client stops tracking it. */
  readonly forget: (follower: TurnFollower) => void;
}

export interface FollowOptions {
  /** Ends the iteration (it throws the signal's reason); the turn is not affected. */
  readonly signal?: AbortSignal;
  /** How often a queued turn is looked at besides the queue's notifications (ms, default 2000). */
  readonly pollMs?: number;
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

const WATCH_RETRY_MS = [50, 200, 1000] as const;

export class TurnFollower implements AsyncIterableIterator<TurnEvent> {
  readonly #port: FollowPort;
  readonly #target: FollowTarget;
  readonly #pollMs: number;
  readonly #signal: AbortSignal | undefined;
  readonly #merge: FollowMerge;
  readonly #frames = new FrameAssembler();
  readonly #lease = new LeaseJudge();
  readonly #ready: Promise<void>;
  #sessionId: string | undefined;
  #unlisten: (() => void) | undefined;
  #unsubscribe: (() => void) | undefined;
  #watch: SessionWatch | undefined;
  #watchFailures = 0;
  /** Bumped by every (re)start: deliveries of a replaced watch are ignored. */
  #watchGeneration = 0;
  #watchRetry: NodeJS.Timeout | undefined;
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
  /** Turn mode: the first turn/start at or after this seq is the turn's. */
  #anchored = false;
  #announced = 0;
  #turn: number | undefined;
  /** Turn mode: the turn finished and the log ends here; its end must come before. */
  #finalSeq: number | undefined;
  /** Session mode: no open turn — the follower ends once the log up to here is delivered. */
  #endAt: number | undefined;

  constructor(port: FollowPort, target: FollowTarget, options: FollowOptions = {}) {
    this.#port = port;
    this.#target = target;
    this.#pollMs = options.pollMs ?? 2000;
    this.#signal = options.signal;
    this.#merge = new FollowMerge(
      options.maxBufferedChars === undefined ? {} : { maxBufferedChars: options.maxBufferedChars },
    );
    if (target.kind === "turn") this.#tracked.add(target.turnId);
    this.#signal?.addEventListener("abort", this.#onAbort, { once: true });
    this.#ready = this.#init().catch((error: unknown) => this.fail(error));
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  async next(): Promise<IteratorResult<TurnEvent>> {
    await this.#ready;
    for (;;) {
      if (this.#done) {
        await this.#close();
        return { done: true, value: undefined };
      }
      const event = this.#take();
      if (event !== undefined) return { done: false, value: event };
      if (this.#failure === undefined) this.#checkEnd();
      if (this.#done) continue;
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

  async #init(): Promise<void> {
    const target = this.#target;
    if (target.kind === "turn" && !/^[0-9]{1,18}$/.test(target.turnId))
      throw new FleetError("not-found", `no turn ${JSON.stringify(target.turnId)} (turn ids are numbers)`);
    const first = await this.#read();
    if (first === undefined)
      throw new FleetError(
        "not-found",
        target.kind === "turn"
          ? `no turn ${target.turnId} in ${this.#port.label}`
          : `no session ${JSON.stringify(target.sessionId)} in ${this.#port.label}`,
      );
    if (
      target.kind === "session" &&
      (!Number.isSafeInteger(target.from) || target.from < -1 || target.from >= first.nextSeq)
    )
      throw new FleetError(
        "invalid-position",
        `follow session ${JSON.stringify(target.sessionId)} from seq ${String(target.from)}: the log has seqs 0..${first.nextSeq - 1}`,
      );
    const sessionId = first.sessionId;
    this.#sessionId = sessionId;
    const { notifications } = this.#port;
    this.#unlisten = await notifications.listen(liveChannel(sessionId), (payload) => this.#onFrame(payload));
    this.#unsubscribe = notifications.subscribe((id) => {
      if (this.#tracked.has(id)) this.#refresh();
    });
    if (target.kind === "session") {
      this.#merge.start(target.from + 1);
      await this.#startWatch(target.from + 1);
      await this.#announce();
    } else await this.#startWatch(first.nextSeq); // marks the session watched: its turn is published from its start
    // Read again now that the notifications are heard: a change between the two reads is not lost.
    const state = await this.#read();
    if (state !== undefined) await this.#apply(state);
  }

  async #read(): Promise<FollowState | undefined> {
    const target = this.#target;
    return readFollowState(
      this.#port.pool,
      this.#port.label,
      target.kind === "turn" ? { turnId: target.turnId } : { sessionId: target.sessionId },
    );
  }

  /** Acts on what the queue says: anchors and announces a turn that runs, judges its lease, or polls. */
  async #apply(state: FollowState): Promise<void> {
    if (this.#done) return;
    clearTimeout(this.#timer);
    const target = this.#target;
    const running = state.turns.find((t) => t.status === "running");
    if (target.kind === "session") {
      for (const t of state.turns) if (!FINISHED_STATUSES.includes(t.status)) this.#tracked.add(t.id);
      this.#endAt = state.turns.some((t) => !FINISHED_STATUSES.includes(t.status)) ? undefined : state.nextSeq;
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
        if (!this.#anchored) await this.#anchor(turn.startSeq);
        this.#wakeUp();
        return;
      }
      if (turn.status === "running") {
        // Before its start is recorded, the log ends where the previous turn (and any repair) left it.
        if (!this.#anchored) await this.#anchor(turn.startSeq ?? state.nextSeq);
        if (turn.attempts > this.#announced) {
          this.#announced = turn.attempts;
          await this.#announce();
        }
      }
    }
    if (running !== undefined && (target.kind === "session" || running.id === target.turnId)) {
      const verdict = this.#lease.judge(running, state, performance.now());
      if (verdict.kind === "lost") throw new FleetError("worker-lost", verdict.message);
      this.#schedule(verdict.recheckMs);
    } else if (state.turns.some((t) => t.status === "queued")) this.#schedule(this.#pollMs);
    this.#wakeUp();
  }

  async #anchor(seq: number): Promise<void> {
    this.#anchored = true;
    this.#merge.start(seq);
    if (this.#merge.durableNext <= seq && (this.#watch !== undefined || this.#watchRetry !== undefined)) return;
    // The watch passed `seq` already (its events before the start were not kept): read again from there.
    await this.#restartWatch(seq);
  }

  /** Tells the workers this session is followed (after the watch marks it, so none can miss both). */
  async #announce(): Promise<void> {
    // A failure is not fatal: the turn's committed events still come from the log.
    await this.#port.pool.query(ANNOUNCE_FOLLOW, [this.#sessionId]).catch(() => undefined);
  }

  #schedule(ms: number): void {
    clearTimeout(this.#timer);
    if (this.#done) return;
    this.#timer = setTimeout(() => this.#refresh(), ms);
  }

  /** Looks at the queue again (one look at a time; a request during one makes one more). */
  #refresh(): void {
    if (this.#done) return;
    if (this.#refreshing !== undefined) {
      this.#refreshAgain = true;
      return;
    }
    this.#refreshing = (async () => {
      do {
        this.#refreshAgain = false;
        try {
          void this.#port.notifications.listening(); // reopens a lost LISTEN connection (and its channels)
          const state = await this.#read();
          if (state === undefined)
            throw new FleetError("not-found", `the followed session is gone from ${this.#port.label}`);
          await this.#apply(state);
        } catch (error) {
          if (error instanceof FleetError && error.code === "unavailable") this.#schedule(this.#pollMs);
          else this.fail(error);
        }
      } while (this.#refreshAgain && !this.#done);
    })().finally(() => {
      this.#refreshing = undefined;
    });
  }

  async #restartWatch(from: number): Promise<void> {
    clearTimeout(this.#watchRetry);
    this.#watchRetry = undefined;
    const watch = this.#watch;
    this.#watch = undefined;
    await watch?.close().catch(() => undefined);
    await this.#startWatch(from);
  }

  async #startWatch(from: number): Promise<void> {
    if (this.#done || this.#sessionId === undefined) return;
    this.#merge.durableFrom(from);
    const generation = ++this.#watchGeneration;
    const current = (): boolean => generation === this.#watchGeneration && !this.#done;
    try {
      const watch = await this.#port.store().watch(
        this.#sessionId,
        (events) => {
          if (!current()) return; // a delivery of a watch replaced meanwhile
          this.#watchFailures = 0;
          this.#merge.durable(events);
          this.#wakeUp();
        },
        { fromSeq: from, onError: (error) => (current() ? this.#watchFailed(error) : undefined) },
      );
      if (current()) this.#watch = watch;
      else await watch.close();
    } catch (error) {
      if (current()) this.#watchFailed(error);
    }
  }

  /** The log's tail failed (a fetch, its connection): reopened where it stopped, after a backoff. */
  #watchFailed(_error: unknown): void {
    if (this.#done || this.#watchRetry !== undefined) return;
    const watch = this.#watch;
    this.#watch = undefined;
    void watch?.close().catch(() => undefined);
    const delay = WATCH_RETRY_MS[Math.min(this.#watchFailures++, WATCH_RETRY_MS.length - 1)]!;
    this.#watchRetry = setTimeout(() => {
      this.#watchRetry = undefined;
      void this.#startWatch(this.#merge.durableNext);
    }, delay);
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
    if (this.#merge.live(message)) this.#wakeUp();
  }

  #take(): TurnEvent | undefined {
    for (;;) {
      const event = this.#merge.next();
      if (event === undefined) return undefined;
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

  /** With nothing left to deliver: a session follower whose session is idle is done; a turn follower past a finished turn's log fails. */
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
    clearTimeout(this.#watchRetry);
    this.#signal?.removeEventListener("abort", this.#onAbort);
    this.#unlisten?.();
    this.#unlisten = undefined;
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    this.#port.forget(this);
    this.#watchGeneration++;
    const watch = this.#watch;
    this.#watch = undefined;
    await watch?.close().catch(() => undefined);
    await this.#refreshing;
  }

  /** The client is closing: ends this follower (`closed`) and releases what it holds. */
  async shut(error: FleetError): Promise<void> {
    this.fail(error);
    await this.#ready;
    await this.#close();
  }
}
