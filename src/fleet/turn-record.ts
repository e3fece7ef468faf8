// A turn's row of `keelson_turns` as the client's `TurnRecord`: snake_case columns to the record's
// fields, absent where the column is null.
import type { QueuedDecision, StoredOutcome, TurnRecord, TurnStatus } from "./types.js";

/** The columns of `keelson_turns` the client reads (TURN and the enqueue statements return them). */
export interface TurnRow {
  id: string;
  session_id: string;
  prompt: string;
  profile: string;
  status: TurnStatus;
  attempts: number;
  started_attempts: number;
  start_seq: string | null;
  claimed_by: string | null;
  outcome: StoredOutcome | null;
  error: string | null;
  error_code: string | null;
  decision: QueuedDecision | null;
  enqueued_at: number;
  finished_at: number | null;
}

/** The record of `row`. */
export function recordOf(row: TurnRow): TurnRecord {
  return {
    id: row.id,
    sessionId: row.session_id,
    prompt: row.prompt,
    profile: row.profile,
    status: row.status,
    attempts: row.attempts,
    startedAttempts: row.started_attempts,
    ...(row.start_seq === null ? {} : { startSeq: Number(row.start_seq) }),
    ...(row.claimed_by === null ? {} : { claimedBy: row.claimed_by }),
    ...(row.outcome === null ? {} : { outcome: row.outcome }),
    ...(row.error === null ? {} : { error: row.error }),
    ...(row.error_code === null ? {} : { errorCode: row.error_code }),
    ...(row.decision === null ? {} : { decision: row.decision }),
    enqueuedAt: row.enqueued_at,
    ...(row.finished_at === null ? {} : { finishedAt: row.finished_at }),
  };
}

/**
 * A turn id as the queue writes it (`keelson_turns.id`, a bigint: decimal digits, no leading
 * zero) from what a caller passed — a string of digits (leading zeros name the same turn), a safe
 * non-negative integer or a bigint — or undefined for anything else (no turn has that id; an
 * object is never sent to the database, where it would fail as an outage).
 */
export function canonicalTurnId(id: unknown): string | undefined {
  let text: string;
  if (typeof id === "string") text = id;
  else if (typeof id === "number" && Number.isSafeInteger(id) && id >= 0) text = String(id);
  else if (typeof id === "bigint" && id >= 0n) text = id.toString();
  else return undefined;
  if (!/^[0-9]{1,40}$/.test(text)) return undefined;
  const canonical = text.replace(/^0+(?=[0-9])/, "");
  return canonical.length <= 18 ? canonical : undefined;
}
