// The queue's notifications, sent after the change they announce has committed, by a statement of
// their own (decision 0036). PostgreSQL serializes notifying transactions with one lock, taken at
// pre-commit and held until the commit has finished — for a transaction that wrote rows, across
// its WAL flush: every enqueue, claim and turn end that notified in its own transaction committed
// one at a time, each with its own flush. A transaction that only notifies writes no WAL before
// its commit record, so its commit is not flushed synchronously and it holds the lock for the
// queue append only; the writes it follows commit concurrently and share flushes.
//
// The notification is a hint (decision 0012): a failure to send one after the change committed is
// reported, never thrown — the change stands, and every listener also polls (workers: their
// poll timer, idle-slots.ts; clients: `awaitTurn`'s poll and status-poll.ts).
import type { PgPool } from "../store/postgres/index.js";
import { NOTIFY_TURNS } from "./turn-queries.js";

/**
 * Sends each `<id> <status>[ <detail>]` of `changes` (NOTIFY_TURNS: keelson_turns, and
 * keelson_queue for queued and running) in one autocommit statement; resolves once it is sent
 * or failed (`onError` then; the error is the driver's, which names no connection secret).
 */
export async function notifyTurns(
  pool: Pick<PgPool, "query">,
  changes: readonly string[],
  onError: (error: unknown) => void = () => undefined,
): Promise<void> {
  if (changes.length === 0) return;
  try {
    await pool.query(NOTIFY_TURNS, [changes]);
  } catch (error) {
    onError(error);
  }
}
