// What a follower knows about the queue (decision 0016): one query reads the followed session's
// log length and lease with its open turns (and the followed turn, finished or not), and
// `LeaseJudge` turns a running turn's lease into a verdict. A running turn whose session lease
// is live is alive: look again when it expires. One whose lease lapsed (its worker died, paused
// or lost the database) is given one more lease length for another worker to recover it —
// which writes its end into the log (crash repair: `turn/end` interrupted) or queues it again —
// and is then `lost`: the follower ends with FleetError('worker-lost') instead of waiting for a
// worker that may never come. Every time is the server's, measured as a duration.
// Liveness (decision 0040): a live lease whose worker no longer holds its liveness lock (killed)
// is `suspect`, looked at every second: another live worker counts it dead after its grace and
// recovers the turn (its end reaches the follower through the log); with no live worker left for
// `deadAfterMs` (the client's option, default DEFAULT_DEAD_AFTER_MS), nobody will, and the turn
// is `lost` at once — seconds after the kill, not two leases. A live lease of a live worker is
// looked at every `deadAfterMs` (not only at its expiry), so that kill is seen.
import type { PgPool } from "../store/postgres/index.js";
import { fleetDbError } from "./fleet-pool.js";
import { FOLLOW_STATE } from "./turn-queries.js";
import { DEFAULT_DEAD_AFTER_MS } from "./worker-liveness.js";
import { FleetError, type StoredOutcome, type TurnStatus } from "./types.js";

export interface FollowedTurn {
  readonly id: string;
  readonly status: TurnStatus;
  readonly attempts: number;
  readonly startSeq: number | null;
  readonly outcome: StoredOutcome | null;
  readonly error: string | null;
}

export interface FollowState {
  readonly sessionId: string;
  readonly nextSeq: number;
  /** Whether the session's lease is held and live. */
  readonly leased: boolean;
  /** Until the lease expires (ms; ≤ 0 when expired; null without a lease). */
  readonly expiresInMs: number | null;
  /** The lease's length as last renewed (ms; null without a lease). */
  readonly leaseMs: number | null;
  /** Whether the live lease's worker holds its liveness lock (null: no live lease, or an owner that is no registered worker). */
  readonly ownerLive: boolean | null;
  /** How many workers hold their liveness locks (null when the lease's owner does: not read). */
  readonly liveWorkers: number | null;
  /** The session's open turns and the followed one, oldest first. */
  readonly turns: readonly FollowedTurn[];
}

interface StateRow {
  session_id: string;
  next_seq: string;
  leased: boolean;
  expires_in_ms: number | null;
  lease_ms: number | null;
  owner_live: boolean | null;
  live_workers: number | null;
  turns: {
    id: string;
    status: TurnStatus;
    attempts: number;
    startSeq: number | string | null;
    outcome: StoredOutcome | null;
    error: string | null;
  }[];
}

/**
 * The state of session `sessionId` (or of turn `turnId`'s session), marking it watched for
 * `markMs` when given; undefined when there is none.
 */
export async function readFollowState(
  pool: PgPool,
  label: string,
  target: { readonly sessionId?: string; readonly turnId?: string; readonly markMs?: number },
): Promise<FollowState | undefined> {
  let row: StateRow | undefined;
  try {
    ({
      rows: [row],
    } = await pool.query<StateRow>(FOLLOW_STATE, [
      target.sessionId ?? null,
      target.turnId ?? null,
      target.markMs ?? null,
    ]));
  } catch (e) {
    throw fleetDbError(
      e,
      label,
      `reading the state of ${target.turnId === undefined ? `session ${target.sessionId}` : `turn ${target.turnId}`}`,
    );
  }
  if (row === undefined) return undefined;
  return {
    sessionId: row.session_id,
    nextSeq: Number(row.next_seq),
    leased: row.leased,
    expiresInMs: row.expires_in_ms,
    leaseMs: row.lease_ms,
    ownerLive: row.owner_live,
    liveWorkers: row.live_workers,
    turns: row.turns.map((t) => ({ ...t, startSeq: t.startSeq === null ? null : Number(t.startSeq) })),
  };
}

export type LeaseVerdict =
  | {
      readonly kind: "alive" | "suspect" | "lapsed";
      /** Look again after this long (ms). */
      readonly recheckMs: number;
    }
  | { readonly kind: "lost"; readonly message: string };

/** Used when the lease's length was never seen (a lease already cleared when first looked at). */
const DEFAULT_LEASE_MS = 30_000;
/** Looked at a little after the lease's expiry, so a renewal that lands at the edge is seen. */
const MARGIN_MS = 50;
/** How often, at most, a suspect lease (its worker's liveness lock gone) is looked at (a fifth of a shorter `deadAfterMs`). */
const SUSPECT_RECHECK_MS = 1000;

/** Since when (the follower's clock) something has held for a turn's attempt; reset when it stops holding. */
class Since {
  #key: string | undefined;
  #since = 0;
  /** How long it has held at `now` for `key` (0 the first time). */
  for(key: string, now: number): number {
    if (this.#key !== key) {
      this.#key = key;
      this.#since = now;
    }
    return now - this.#since;
  }
  reset(): void {
    this.#key = undefined;
  }
}

export class LeaseJudge {
  readonly #deadAfterMs: number;
  #leaseMs = DEFAULT_LEASE_MS;
  readonly #lapsed = new Since();
  readonly #suspect = new Since();
  /** Since when no worker has held its liveness lock (while the followed turn's worker did not either). */
  readonly #orphaned = new Since();

  /** `deadAfterMs`: the workers' (default DEFAULT_DEAD_AFTER_MS). */
  constructor(deadAfterMs = DEFAULT_DEAD_AFTER_MS) {
    this.#deadAfterMs = deadAfterMs;
  }

  /** The verdict on `turn` (running) given its session's `state`, at `now` (the follower's clock, ms). */
  judge(turn: FollowedTurn, state: FollowState, now: number): LeaseVerdict {
    if (state.leaseMs !== null && state.leaseMs > 0) this.#leaseMs = state.leaseMs;
    const key = `${turn.id}/${turn.attempts}`;
    if (state.liveWorkers === 0) {
      if (this.#orphaned.for(key, now) >= this.#deadAfterMs)
        return this.#lost(turn, state, "no worker is alive to recover it");
    } else this.#orphaned.reset();
    if (state.leased) {
      this.#lapsed.reset();
      const expiry = Math.max(state.expiresInMs ?? 0, 0) + MARGIN_MS;
      if (state.ownerLive === false) {
        this.#suspect.for(key, now);
        return { kind: "suspect", recheckMs: Math.min(expiry, this.#suspectRecheckMs) };
      }
      this.#suspect.reset();
      return { kind: "alive", recheckMs: state.ownerLive === true ? Math.min(expiry, this.#deadAfterMs) : expiry };
    }
    this.#suspect.reset();
    const left = this.#leaseMs - this.#lapsed.for(key, now);
    if (left > 0) {
      const recheckMs = left + MARGIN_MS;
      return {
        kind: "lapsed",
        recheckMs: state.liveWorkers === 0 ? Math.min(recheckMs, this.#suspectRecheckMs) : recheckMs,
      };
    }
    return this.#lost(turn, state, `no worker has recovered it within a lease (${this.#leaseMs} ms)`);
  }

  get #suspectRecheckMs(): number {
    return Math.min(SUSPECT_RECHECK_MS, Math.ceil(this.#deadAfterMs / 5));
  }

  #lost(turn: FollowedTurn, state: FollowState, why: string): LeaseVerdict {
    return {
      kind: "lost",
      message: `turn ${turn.id} (attempt ${turn.attempts}) is still running, but its worker stopped holding session ${state.sessionId} and ${why}; the next worker to claim the session recovers it (interrupted if its prompt was saved, run again if not)`,
    };
  }
}

/**
 * `awaitTurn({ untilLost })`'s look at a running turn's lease: when the last verdict said to look
 * again (not at every poll of the wait: it reads the liveness locks), with one `LeaseJudge` for
 * the whole wait. A look that fails (the database away, a login that may not read the leases)
 * is no verdict: the wait goes on, as it did before it was asked to judge.
 */
export class RunningTurnWatch {
  readonly #judge: LeaseJudge;
  #nextAt = 0;

  constructor(deadAfterMs: number) {
    this.#judge = new LeaseJudge(deadAfterMs);
  }

  /** The verdict on turn `turnId` now; undefined when it is not time to look, it is not running, or the look failed. */
  async look(pool: PgPool, label: string, turnId: string): Promise<LeaseVerdict | undefined> {
    if (performance.now() < this.#nextAt) return undefined;
    let state: FollowState | undefined;
    try {
      state = await readFollowState(pool, label, { turnId });
    } catch (error) {
      if (error instanceof FleetError) return undefined;
      throw error;
    }
    const turn = state?.turns.find((t) => t.id === turnId);
    if (state === undefined || turn?.status !== "running") return undefined;
    const verdict = this.#judge.judge(turn, state, performance.now());
    if (verdict.kind !== "lost") this.#nextAt = performance.now() + verdict.recheckMs;
    return verdict;
  }
}
