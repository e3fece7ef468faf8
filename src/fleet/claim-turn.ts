// The claim: one transaction that picks the session to serve (FOR NO KEY UPDATE SKIP LOCKED),
// takes its lease (epoch + 1, fencing any previous holder), recovers the turns a dead worker
// left running, and marks the session's oldest queued turn running under that epoch. The claim
// and the lease are one commit, so a running turn always has a lease row saying who runs it; when
// that lease lapses, the next claim of the session recovers the turn with the log length as of
// the take-over — decided under the session row's lock, after the epoch moved, so the old worker
// can no longer append and the decision cannot race its last flush. A turn whose prompt reached
// the log is adopted for closing instead (`repair`): the worker loads the session (crash repair)
// and records it interrupted; nothing else of the session runs until then.
// The common case — a queued head, nothing to recover — is one statement (CLAIM_HEAD: one round
// trip instead of BEGIN + six statements + COMMIT, #20 F21); the transaction runs only when that
// statement found a session needing more (a dead worker's turn, a head out of attempts). What a
// claim changed (`<id> running <owner>`, recovered turns) is notified once it has committed, by
// a notify-only statement (notify-turns.ts, decision 0036): a second round trip, which keeps the
// claim's commit out of PostgreSQL's notify lock.
import { inTransaction, type PgClient, type PgPool, type StoredHead } from "../store/postgres/index.js";
import {
  ADOPT_STARTED,
  CLAIM_HEAD,
  CLEAR_SESSION,
  HEAD_QUEUED,
  MARK_ABANDONED,
  MARK_RUNNING,
  PICK_SESSION,
  REQUEUE_UNSTARTED,
  TAKE_SESSION,
} from "./turn-queries.js";
import { notifyTurns } from "./notify-turns.js";
import { FleetError, type QueuedDecision, type TurnStatus } from "./types.js";

/** A turn this worker now runs, under its session's lease at `epoch`. */
export interface ClaimedTurn {
  readonly id: string;
  readonly sessionId: string;
  readonly prompt: string;
  readonly profile: string;
  /** A queued decision on a pending approval: the turn is `agent.decide`, not `agent.send(prompt)`. */
  readonly decision?: QueuedDecision;
  /** This claim's number (1 for the first); with the owner, it identifies the claim. */
  readonly attempts: number;
  readonly epoch: number;
  /** The session's head as the one-statement claim read it with the lease (the writable load adopts both). */
  readonly head?: StoredHead;
}

/** A turn whose worker died after its prompt was logged, now this worker's to close (session leased at `epoch`). */
export interface AdoptedTurn {
  readonly id: string;
  readonly sessionId: string;
  /** The log length its worker started it at. */
  readonly startSeq: number;
  readonly attempts: number;
  readonly epoch: number;
}

export interface ClaimResult {
  /** A session was examined (another claim may find more work at once). */
  readonly found: boolean;
  readonly claimed: ClaimedTurn | undefined;
  /** Set instead of `claimed` when the session first needs its dead worker's turn closed. */
  readonly repair?: AdoptedTurn;
  /** Turns this claim moved out of `running` (a dead worker's) or failed for too many attempts. */
  readonly recovered: readonly { readonly id: string; readonly sessionId: string; readonly status: TurnStatus }[];
}

export interface ClaimOptions {
  readonly owner: string;
  readonly leaseMs: number;
  readonly profiles: readonly string[];
  readonly maxAttempts: number;
  /**
   * Sessions whose logs this worker's store holds, each with the length of the log it holds:
   * preferred within `affinityMs` while the stored log is still that long (no other worker ran
   * the session since, so its load here reads no row).
   */
  readonly preferred?: readonly PreferredSession[];
  /** How much earlier a preferred session's turn counts as queued (ms, default 0: strictly oldest first). */
  readonly affinityMs?: number;
  /**
   * Whether to look for orphans — running turns whose lease lapsed (default true). That search
   * reads every running turn of the fleet, where the rest of the pick reads a few index pages.
   */
  readonly orphans?: boolean;
  /** Called when the claim committed but its notification could not be sent (the claim stands; listeners poll). */
  readonly onNotifyError?: (error: unknown) => void;
}

/** A session a worker prefers to claim: its store holds the session's log up to `nextSeq`. */
export interface PreferredSession {
  readonly sessionId: string;
  readonly nextSeq: number;
}

/** The preferred sessions as the pick takes them: the ids and, at the same index, the lengths held. */
const preferredColumns = (preferred: readonly PreferredSession[] = []): [string[], number[]] => [
  preferred.map((p) => p.sessionId),
  preferred.map((p) => p.nextSeq),
];

const NOTHING: ClaimResult = { found: false, claimed: undefined, recovered: [] };

interface HeadRow extends Partial<StoredHead> {
  session_id: string;
  turn_id: string | null;
  prompt: string;
  profile: string;
  attempts: number;
  decision: QueuedDecision | null;
  epoch: string;
  lease_epoch: string | null;
}

/** Claims the next turn for `options.owner`: one statement as a rule, one transaction when the session needs recovery. */
export async function claimTurn(pool: PgPool, options: ClaimOptions): Promise<ClaimResult> {
  const { owner, leaseMs, profiles, maxAttempts } = options;
  const [preferred, held] = preferredColumns(options.preferred);
  const { rows } = await pool.query<HeadRow>(CLAIM_HEAD, [
    profiles,
    preferred,
    options.affinityMs ?? 0,
    owner,
    leaseMs,
    maxAttempts,
    options.orphans ?? true,
    held,
  ]);
  const head = rows[0];
  if (head === undefined) return NOTHING;
  if (head.turn_id === null) {
    const { result, changed } = await inTransaction(pool, (client) => claimIn(client, options));
    await notifyTurns(pool, changed, options.onNotifyError); // committed: who won, what was recovered
    return result;
  }
  await notifyTurns(pool, [`${head.turn_id} running ${owner}`], options.onNotifyError); // who won (claim-race.ts)
  if (head.lease_epoch !== head.epoch)
    // The session row is locked from the pick to the lease update: they cannot differ.
    throw new FleetError(
      "unavailable",
      `claim of turn ${head.turn_id}: lease epoch ${String(head.lease_epoch)} is not the claim's ${head.epoch}`,
    );
  const claimed: ClaimedTurn = {
    id: head.turn_id,
    sessionId: head.session_id,
    prompt: head.prompt,
    profile: head.profile,
    ...(head.decision === null ? {} : { decision: head.decision }),
    attempts: head.attempts,
    epoch: Number(head.epoch),
    head: {
      header: head.header!,
      next_seq: head.next_seq!,
      seed_from: head.seed_from ?? null,
      seed_length: head.seed_length!,
    },
  };
  return { found: true, claimed, recovered: [] };
}

/** The full claim, in the caller's transaction: what it found, and the changes to notify once it has committed. */
async function claimIn(
  client: PgClient,
  options: ClaimOptions,
): Promise<{ readonly result: ClaimResult; readonly changed: readonly string[] }> {
  const { owner, leaseMs, profiles, maxAttempts } = options;
  const [preferred, held] = preferredColumns(options.preferred);
  const picked = (
    await client.query<{ id: string }>(PICK_SESSION, [
      profiles,
      preferred,
      options.affinityMs ?? 0,
      options.orphans ?? true,
      held,
    ])
  ).rows[0];
  if (picked === undefined) return { result: NOTHING, changed: [] };
  const sessionId = picked.id;
  const lease = (
    await client.query<{ lease_epoch: string; next_seq: string }>(TAKE_SESSION, [sessionId, owner, leaseMs])
  ).rows[0]!;
  const epoch = Number(lease.lease_epoch);
  const recovered: { id: string; sessionId: string; status: TurnStatus }[] = [];
  for (const row of (await client.query<{ id: string }>(REQUEUE_UNSTARTED, [sessionId, lease.next_seq])).rows)
    recovered.push({ id: row.id, sessionId, status: "queued" });
  const adopted = (
    await client.query<{ id: string; start_seq: string; attempts: number }>(ADOPT_STARTED, [
      sessionId,
      lease.next_seq,
      owner,
      epoch,
    ])
  ).rows[0]; // one at most: one running turn per session
  if (adopted !== undefined) {
    const repair = {
      id: adopted.id,
      sessionId,
      startSeq: Number(adopted.start_seq),
      attempts: adopted.attempts,
      epoch,
    };
    return {
      result: { found: true, claimed: undefined, recovered, repair },
      changed: recovered.map((r) => `${r.id} ${r.status}`),
    };
  }
  let claimed: ClaimedTurn | undefined;
  for (;;) {
    const head = (
      await client.query<{
        id: string;
        prompt: string;
        profile: string;
        attempts: number;
        started_attempts: number;
        decision: QueuedDecision | null;
      }>(HEAD_QUEUED, [sessionId])
    ).rows[0];
    if (head === undefined || !profiles.includes(head.profile)) break; // FIFO per session: never skip the head
    if (head.attempts >= maxAttempts) {
      await client.query(MARK_ABANDONED, [head.id, tooManyAttempts(head.attempts, head.started_attempts)]);
      recovered.push({ id: head.id, sessionId, status: "failed" });
      continue;
    }
    const { attempts } = (await client.query<{ attempts: number }>(MARK_RUNNING, [head.id, owner, epoch])).rows[0]!;
    claimed = {
      id: head.id,
      sessionId,
      prompt: head.prompt,
      profile: head.profile,
      ...(head.decision === null ? {} : { decision: head.decision }),
      attempts,
      epoch,
    };
    break;
  }
  if (claimed === undefined) await client.query(CLEAR_SESSION, [sessionId, owner, epoch]);
  const changed = [
    ...recovered.map((r) => `${r.id} ${r.status}`),
    ...(claimed === undefined ? [] : [`${claimed.id} running ${owner}`]), // who won (claim-race.ts)
  ];
  return { result: { found: true, claimed, recovered }, changed };
}

/**
 * Why a turn is failed after `attempts` claims of which `started` sent the prompt: exactly what
 * is known — the log holds nothing of any attempt, and each started one may have called the
 * model (model calls are at least once; the log is exactly once).
 */
export function tooManyAttempts(attempts: number, started: number): string {
  const how =
    started === 0
      ? "none got as far as sending the prompt"
      : `${started === attempts ? (attempts === 1 ? "it" : "each") : `${started} of them`} sent the prompt and may have called the model, but nothing of ${started === 1 ? "it" : "them"} was saved to the log`;
  return `claimed ${attempts} time${attempts === 1 ? "" : "s"}; ${how} (its workers died, were fenced, or lost the session first); not claimed again`;
}
