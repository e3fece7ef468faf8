// What a follower knows of the queue (decision 0016): the followed turns' statuses and their
// session's lease, looked at (follow-state.ts) first, then again on the queue's notifications for
// them, at a running turn's lease expiry, and — while one waits — with the client's StatusPoll.
// It tells the follower (`QueueSide`) where a turn starts, that it finished, that the session is
// idle, or why following must stop (`not-found`, `not-run`, `worker-lost`). It also gets a turn
// published from its start: a turn follower's first look marks its queued turn followed (kept
// marked by the poll), and the session is announced to the workers when the turn is heard
// claimed or found running.
import { fleetDbError } from "./fleet-pool.js";
import { type FollowState, LeaseJudge, readFollowState } from "./follow-state.js";
import { FOLLOW_MARK_MS } from "./status-poll.js";
import { announcementText } from "./follow-announcement.js";
import { FOLLOW_CHANNEL } from "./follow-wire.js";
import type { FollowPort, FollowTarget } from "./turn-follower.js";
import { canonicalTurnId } from "./turn-record.js";
import { ANNOUNCE_FOLLOW, TURN_SESSION } from "./turn-queries.js";
import { FINISHED_STATUSES, FleetError } from "./types.js";

/** What the queue tells a follower. */
export interface QueueSide {
  /** Turn mode: the turn's events are the log's from its first `turn/start` at or after `seq`; `published`: it was seen queued, so it is published from its start. */
  anchor(seq: number, published: boolean): void;
  /** Turn mode: the turn (which started at `startSeq`) finished; its end is in the log, which ends before `nextSeq`. */
  finished(startSeq: number, nextSeq: number): void;
  /** Session mode: with no open turn, the session is idle once its log up to `endAt` is delivered. */
  idle(endAt: number | undefined): void;
  /** Turn mode: the turn's start was delivered (a finished turn's end is then simply read from the log). */
  started(): boolean;
  /** Turn mode: read the log now (the turn finished). */
  read(): void;
  fail(error: unknown): void;
}

export class QueueWatch {
  readonly #port: FollowPort;
  readonly #target: FollowTarget;
  readonly #side: QueueSide;
  readonly #lease: LeaseJudge;
  /** Turns whose notifications concern this follower. */
  readonly #tracked = new Set<string>();
  #sessionId: string | undefined;
  #unsubscribe: (() => void) | undefined;
  #untrack: (() => void)[] = [];
  #timer: NodeJS.Timeout | undefined;
  #refreshing: Promise<void> | undefined;
  #refreshAgain = false;
  #ready = false;
  /** A look was asked for while starting. */
  #deferred = false;
  #closed = false;
  /** Turn mode: the claim's notification was heard and announced (the look that follows need not). */
  #claimHeard = false;
  /** Turn mode: the turn was queued when looked at (and so marked followed before it started). */
  #sawQueued = false;
  /** The attempt last announced (turn mode). */
  #announced = 0;

  constructor(port: FollowPort, target: FollowTarget, side: QueueSide) {
    this.#port = port;
    this.#lease = new LeaseJudge(port.deadAfterMs);
    this.#target = target;
    this.#side = side;
    if (target.kind === "turn") this.#tracked.add(target.turnId);
  }

  /** Subscribes to the queue's notifications (heard from now on) and resolves with the session followed. */
  async subscribe(): Promise<string> {
    const target = this.#target;
    if (target.kind === "turn" && canonicalTurnId(target.turnId) !== target.turnId)
      throw new FleetError("not-found", `no turn ${target.turnId} (turn ids are numbers)`);
    const { notifications } = this.#port;
    this.#unsubscribe = notifications.subscribe((id, status) => {
      if (!this.#tracked.has(id)) return;
      if (target.kind === "turn" && this.#side.started() && FINISHED_STATUSES.includes(status)) {
        this.#side.read(); // its end is in the log now (written by its worker or by crash repair)
        return;
      }
      // Claimed: tell its worker at once (before looking), so it publishes from the turn's start.
      if (status === "running" && target.kind === "turn" && this.#sessionId !== undefined) {
        this.#claimHeard = true;
        // Fresh when a look saw the turn queued: that look came after this follower LISTENed on the
        // live channel, so the claim, and every message published after it, came later still.
        void this.announce(this.#sawQueued);
      }
      this.#refresh();
    });
    await notifications.listening();
    this.#sessionId = target.kind === "turn" ? await this.#sessionOf(target.turnId) : target.sessionId;
    return this.#sessionId;
  }

  /** The first look (a turn follower's marks its queued turn followed: the worker that starts it publishes it). */
  async first(): Promise<FollowState> {
    const state = await this.#look(this.#target.kind === "turn" ? FOLLOW_MARK_MS : undefined);
    if (state === undefined)
      throw new FleetError("not-found", `no session ${JSON.stringify(this.#sessionId)} in ${this.#port.label}`);
    return state;
  }

  /** Acts on the first look, then on every look. */
  async start(state: FollowState): Promise<void> {
    await this.#apply(state);
    this.#ready = true;
    if (this.#deferred) this.#refresh(); // notified while starting
  }

  /**
   * Tells the workers this session is followed; a failure is not fatal (committed events still come
   * from the log). `fresh`: this follower listened before the turn was claimed, so a publication
   * under way needs no restart for it (decision 0038); otherwise the worker publishes the turn
   * again from its start if it has sent anything of it.
   */
  async announce(fresh = false): Promise<void> {
    const sessionId = this.#sessionId;
    const seal = await this.#port.seal().catch(() => undefined); // the follower's start read it (or failed on it)
    if (sessionId === undefined || seal === undefined) return;
    // Sealed: only the fleet's workers (holders of the follow key) learn which session is followed.
    const text = announcementText(sessionId, Date.now(), fresh); // timely and single-use (follow-announcement.ts)
    await this.#port.pool.query(ANNOUNCE_FOLLOW, [seal.seal(FOLLOW_CHANNEL, text)]).catch(() => undefined);
  }

  /** Session mode: a turn this follower did not know of runs (its message arrived). */
  track(turnId: string): void {
    if (this.#tracked.has(turnId)) return;
    this.#tracked.add(turnId);
    this.#side.idle(undefined);
  }

  /** Looks at the queue again soon (one look at a time; a request during one makes one more). */
  refresh(): void {
    this.#refresh();
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    for (const untrack of this.#untrack.splice(0)) untrack();
    this.#unsubscribe?.();
    await this.#refreshing;
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

  /** Acts on what the queue says: a turn that runs is anchored, announced and its lease judged; one that waits is polled. */
  async #apply(state: FollowState): Promise<void> {
    if (this.#closed) return;
    clearTimeout(this.#timer);
    for (const untrack of this.#untrack.splice(0)) untrack();
    const target = this.#target;
    const open = state.turns.filter((t) => !FINISHED_STATUSES.includes(t.status));
    if (target.kind === "session") {
      for (const t of open) this.#tracked.add(t.id);
      this.#side.idle(open.length === 0 ? state.nextSeq : undefined);
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
        if (!inLog(turn.startSeq, state.nextSeq))
          // start_seq is the log's length when the prompt went in: never past the log (a row written by hand).
          throw new FleetError(
            "not-run",
            `turn ${turn.id} is recorded ${turn.status} from seq ${turn.startSeq}, but the session's log ends before seq ${state.nextSeq}: the queue's record does not match the log`,
          );
        this.#side.finished(turn.startSeq, state.nextSeq);
        return;
      }
      if (turn.status === "queued") this.#sawQueued = true;
      else {
        // Before its start is recorded, the log ends where the previous turn (and any repair) left it
        // (and a start no log can have — a row written by hand — is read as not recorded yet).
        const start = turn.startSeq !== null && inLog(turn.startSeq, state.nextSeq) ? turn.startSeq : state.nextSeq;
        this.#side.anchor(start, this.#sawQueued);
        if (turn.attempts > this.#announced) {
          this.#announced = turn.attempts;
          if (!this.#claimHeard) await this.announce(); // found running: announced now
        }
        this.#claimHeard = false;
      }
    }
    const running = open.find((t) => t.status === "running" && this.#tracked.has(t.id));
    if (running !== undefined) {
      const verdict = this.#lease.judge(running, state, performance.now());
      if (verdict.kind === "lost") throw new FleetError("worker-lost", verdict.message);
      this.#timer = setTimeout(() => this.#refresh(), verdict.recheckMs);
    } else
      for (const t of open)
        if (this.#tracked.has(t.id))
          // A followed turn that waits stays marked followed (the first look marked it).
          this.#untrack.push(this.#port.poll.track(t.id, t.status, () => this.#refresh(), target.kind === "turn"));
  }

  #refresh(): void {
    if (this.#closed) return;
    if (!this.#ready) {
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
          } else this.#side.fail(error);
        }
      } while (this.#refreshAgain && !this.#closed);
    })().finally(() => {
      this.#refreshing = undefined;
    });
  }
}

/** Whether `startSeq` is a position the log (ending before `nextSeq`) can have started a turn at. */
const inLog = (startSeq: number, nextSeq: number): boolean =>
  Number.isSafeInteger(startSeq) && startSeq >= 0 && startSeq <= nextSeq;
