// The fleet's vocabulary: the turn queue's records and statuses, the worker's options, and the
// layer's error type. Agent profiles (how a worker builds the agent for a turn) are the loop's
// (src/loop/profile.ts), shared with the agent host. The contracts of the queue itself (claim
// order, exactly-once) are written in README.md and decision 0012.
import { KeelsonError } from "../errors/index.js";
import type { AgentProfile } from "../loop/index.js";
import type { PgPool } from "../store/postgres/index.js";
import type { JsonValue } from "../json/index.js";

/**
 * A queued turn's life: `queued` → `running` → `done` | `failed` | `interrupted`. A running turn
 * whose worker lost the session goes back to `queued` when its prompt never reached the log, or
 * to `interrupted` when it did (never run twice).
 */
export type TurnStatus = "queued" | "running" | "done" | "failed" | "interrupted";

/** The statuses a turn never leaves. */
export const FINISHED_STATUSES: readonly TurnStatus[] = ["done", "failed", "interrupted"];

/** How a worker's run of a turn ended (the loop's `TurnOutcome`, as stored in jsonb). */
export interface StoredOutcome {
  readonly turn: number;
  readonly reason: string;
  /** Whether everything the turn logged was durable when it ended. */
  readonly saved: boolean;
}

/**
 * A decision on a pending approval (`FleetClient.enqueueDecision`), or with `kind: "response"` an
 * answer to a pending question (`enqueueResponse`), queued as a continuation.
 */
export type QueuedDecision = QueuedApproval | QueuedResponse;

/** An answer to a pending question (`input/request`), queued as a continuation. */
export interface QueuedResponse {
  readonly kind: "response";
  readonly id: string;
  readonly value: JsonValue;
  readonly by?: string;
  /** A subagent's session whose question it answers (`InputAnswer.session`). */
  readonly session?: string;
}

/** A decision on a pending approval, queued as a continuation. */
export interface QueuedApproval {
  readonly kind?: "decision";
  readonly callId: string;
  readonly approve: boolean;
  readonly by?: string;
  readonly note?: string;
  /** Edited arguments (JSON text), for an approval of a tool that allows them. */
  readonly arguments?: string;
  /** A subagent's session whose request it decides (the worker decides it through the queued session: `ApprovalDecision.session`). */
  readonly session?: string;
}

/** One row of the turn queue. Returned objects are fresh copies; times are ms since the epoch (server clock). */
export interface TurnRecord {
  readonly id: string;
  readonly sessionId: string;
  readonly prompt: string;
  readonly profile: string;
  readonly status: TurnStatus;
  /** How many times a worker claimed it. */
  readonly attempts: number;
  /**
   * How many earlier claims sent the prompt (so may have called the model) and were then queued
   * again because nothing of them reached the log (their worker died or was fenced first). The
   * log holds each turn once; model calls are at least once.
   */
  readonly startedAttempts: number;
  /** The session's log length when the turn's worker started it (after crash repair); absent until then. */
  readonly startSeq?: number;
  /** The worker that claimed it last. */
  readonly claimedBy?: string;
  readonly outcome?: StoredOutcome;
  /** Why it failed or was interrupted. */
  readonly error?: string;
  /**
   * The typed code of an input the session refused, nothing logged: a decision's `ApprovalError`
   * code (`already-decided`, `cancelled`, …) or `awaiting-approval` for a prompt queued while the
   * session waits for a decision.
   */
  readonly errorCode?: string;
  /** For a queued decision: what it decides (the row's `prompt` is then only a label). */
  readonly decision?: QueuedDecision;
  readonly enqueuedAt: number;
  readonly finishedAt?: number;
}

/** A database: a connection URL (opened and closed by whoever takes it) or a pool the caller owns. */
export type FleetStore = string | PgPool;

/** Options of `openFleetClient`. */
export interface FleetClientOptions {
  /**
   * The workers' `deadAfterMs` (ms, default 5000; decision 0040): a follower of a running turn
   * whose worker's liveness lock is gone ends `worker-lost` once no worker has held its lock for
   * this long (nobody is left to recover the turn); it looks that often while the turn runs.
   */
  readonly deadAfterMs?: number;
}

export interface WorkerOptions {
  /** The database (it must have been migrated: `migrateFleet`, `keelson db migrate`). */
  readonly store: FleetStore;
  /** The profiles this worker serves, by name; it claims only turns queued under these names. */
  readonly profiles: Readonly<Record<string, AgentProfile>>;
  /** Turns run at once (default 1). */
  readonly concurrency?: number;
  /** Session lease length (ms, default 30 000): how long a dead worker's sessions stay held. */
  readonly leaseMs?: number;
  /**
   * How long another worker's liveness lock may be gone before this worker counts it dead and
   * ends its leases early (ms, default 5000; decision 0040, worker-liveness.ts): a killed worker's
   * turns are recovered within about this, not at the end of their lease. Keep it well above a
   * reconnect (a live worker takes its lock again within a second) and the same across the fleet.
   */
  readonly deadAfterMs?: number;
  /** How often an idle worker looks for work besides the queue's notifications (ms, default 1000). */
  readonly pollMs?: number;
  /** Claims after which a turn that never started is failed instead of queued again (default 5). */
  readonly maxAttempts?: number;
  /**
   * How long start-up keeps retrying a database it cannot reach or whose connections drop (a
   * server restarting, a failover: ms, default 30 000; 0: fail at once). Anything else — a schema
   * not migrated, a refused password — fails at once.
   */
  readonly waitForDatabaseMs?: number;
  /** The worker's identity as lease owner (default `<host>/<pid>/<random>`); unique per running worker. */
  readonly workerId?: string;
  /** Contained failures (a claim or a record that could not be written, a turn abandoned): for logs. */
  readonly onError?: (error: unknown, where: string) => void;
  /** Every turn this worker finished, abandoned or recovered, as recorded (for logs and tests). */
  readonly onTurn?: (event: WorkerTurnEvent) => void;
  /**
   * A turn is queued under a profile this worker does not serve (it stays queued for a worker
   * that does): called once per profile name — at start for turns already queued, then as
   * enqueues are heard — so an operator sees why a turn waits (`keelson worker` prints it).
   */
  readonly onUnserved?: (profile: string, turnId: string) => void;
}

/** What a worker did with a turn. */
export interface WorkerTurnEvent {
  readonly kind: "started" | "finished" | "abandoned" | "recovered";
  readonly turnId: string;
  readonly sessionId: string;
  /** The recorded status (finished, recovered) or what it stays as (abandoned: `running`, left for recovery). */
  readonly status: TurnStatus;
}

export interface StopOptions {
  /**
   * `drain` (default): let running turns finish, record them, release their sessions.
   * `cancel`: cancel running turns (they end `aborted` in the log and are recorded `interrupted`).
   */
  readonly mode?: "drain" | "cancel";
}

export interface Worker {
  readonly id: string;
  /** Turns running now. */
  readonly running: number;
  /** Stops claiming, ends running turns as `mode` says, releases every lease, closes what it opened. Idempotent. */
  stop(options?: StopOptions): Promise<void>;
}

export type FleetErrorCode =
  | "invalid-options"
  | "invalid-profile"
  | "invalid-turn"
  | "not-migrated"
  | "newer-version"
  | "not-found"
  | "invalid-position"
  | "position-beyond-log"
  | "not-run"
  | "worker-lost"
  | "timeout"
  | "unavailable"
  | "permission-denied"
  | "closed";

export class FleetError extends KeelsonError<FleetErrorCode> {}
