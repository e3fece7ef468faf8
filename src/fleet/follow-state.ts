// What a follower knows about the queue (decision 0016): one query reads the followed session's
// log length and lease with its open turns (and the followed turn, finished or not), and
// `LeaseJudge` turns a running turn's lease into a verdict. A running turn whose session lease
// is live is alive: look again when it expires. One whose lease lapsed (its worker died, paused
// or lost the database) is given one more lease length for another worker to recover it —
// which writes its end into the log (crash repair: `turn/end` interrupted) or queues it again —
// and is then `lost`: the follower ends with FleetError('worker-lost') instead of waiting for a
// worker that may never come. Every time is the server's, measured as a duration.
import type { PgPool } from "../store/postgres/index.js";
import { fleetDbError } from "./fleet-pool.js";
import { FOLLOW_STATE } from "./turn-queries.js";
import type { StoredOutcome, TurnStatus } from "./types.js";

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
  /** The session's open turns and the followed one, oldest first. */
  readonly turns: readonly FollowedTurn[];
}

interface StateRow {
  session_id: string;
  next_seq: string;
  leased: boolean;
  expires_in_ms: number | null;
  lease_ms: number | null;
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
    turns: row.turns.map((t) => ({ ...t, startSeq: t.startSeq === null ? null : Number(t.startSeq) })),
  };
}

export type LeaseVerdict =
  | { readonly kind: "alive" | "lapsed" /** Look again after this long (ms). */; readonly recheckMs: number }
  | { readonly kind: "lost"; readonly message: string };

/** Used when the lease's length was never seen (a lease already cleared when first looked at). */
const DEFAULT_LEASE_MS = 30_000;
/** Looked at a little after the lease's expiry, so a renewal that lands at the edge is seen. */
const MARGIN_MS = 50;

export class LeaseJudge {
  #leaseMs = DEFAULT_LEASE_MS;
  #lapsed: { key: string; since: number } | undefined;

  /** The verdict on `turn` (running) given its session's `state`, at `now` (the follower's clock, ms). */
  judge(turn: FollowedTurn, state: FollowState, now: number): LeaseVerdict {
    if (state.leaseMs !== null && state.leaseMs > 0) this.#leaseMs = state.leaseMs;
    if (state.leased) {
      this.#lapsed = undefined;
      return { kind: "alive", recheckMs: Math.max(state.expiresInMs ?? 0, 0) + MARGIN_MS };
    }
    const key = `${turn.id}/${turn.attempts}`;
    if (this.#lapsed?.key !== key) this.#lapsed = { key, since: now };
    const left = this.#lapsed.since + this.#leaseMs - now;
    if (left > 0) return { kind: "lapsed", recheckMs: left + MARGIN_MS };
    return {
      kind: "lost",
      message: `turn ${turn.id} (attempt ${turn.attempts}) is still running, but its worker stopped holding session ${state.sessionId} and no worker has recovered it within a lease (${this.#leaseMs} ms); the next worker to claim the session recovers it (interrupted if its prompt was saved, run again if not)`,
    };
  }
}
