// One flush of one session as one statement (APPEND in queries.ts: atomic by itself, one round
// trip): the append guard (optimistic concurrency + fencing), the rows in one multi-row insert
// through the guard. A watched session's live-tail notification follows the commit as a
// statement of its own (NOTIFY; decision 0036: a writing transaction that notified committed
// under PostgreSQL's notify lock, one at a time, each with its own WAL flush); it is a hint, so
// failing to send it fails nothing. When the guard matches no row nothing is written and the
// error says why — unless an earlier attempt of this very batch committed and only its answer was
// lost, which is recognised by its rows.
import { StoreError } from "../types.js";
import type { PgClient } from "./connection.js";
import { APPEND, NOTIFY, OWN_EVENTS, WRITE_STATE } from "./queries.js";

/** The lease a write is made under. */
export interface WriteLease {
  readonly owner: string;
  readonly epoch: number;
  /** The flush renews the lease for this long. */
  readonly leaseMs: number;
}

/** The batch: event lines from seq `from`, and a title for a session that has none yet. */
export interface Batch {
  readonly from: number;
  readonly lines: readonly string[];
  readonly title: string | undefined;
}

/** Writes the batch; returns how many of its lines are now stored (all, or those a lost commit stored). */
export async function writeGuardedBatch(
  client: Pick<PgClient, "query">,
  id: string,
  lease: WriteLease,
  batch: Batch,
  where: string,
): Promise<number> {
  const { from, lines } = batch;
  const to = from + lines.length;
  const appended = await client.query<{ watched: boolean }>(APPEND, [
    id,
    from,
    to,
    lease.owner,
    lease.epoch,
    lease.leaseMs,
    batch.title ?? null,
    lines.map((_, i) => from + i),
    lines,
  ]);
  if (appended.rows.length === 0) {
    const why = await guardFailure(client, id, lease, batch, where);
    if (typeof why === "number") return why;
    throw why;
  }
  if (appended.rows[0]!.watched) await notifyAppended(client, id, to);
  return lines.length;
}

/**
 * Tells the session's watchers (event-tail.ts) that its log is committed up to `nextSeq`, by a
 * notify-only statement after the commit. A failure is dropped: the rows are stored, and a
 * watcher catches up at the session's next notified append (the inspector also polls).
 */
async function notifyAppended(client: Pick<PgClient, "query">, id: string, nextSeq: number): Promise<void> {
  await client.query(NOTIFY, [id, nextSeq]).catch(() => undefined);
}

/**
 * Why the append guard matched no row: the lease is gone (`lease-lost`) or the log moved
 * (`conflict`) — unless the log moved by a prefix of this very batch: an earlier attempt whose
 * commit succeeded but whose answer was lost (the connection dropped at COMMIT). Then that
 * many events are stored already (returned).
 */
async function guardFailure(
  client: Pick<PgClient, "query">,
  id: string,
  lease: WriteLease,
  { from, lines }: Batch,
  where: string,
): Promise<StoreError | number> {
  const count = lines.length;
  const { rows } = await client.query<{
    next_seq: string;
    lease_owner: string | null;
    lease_epoch: string;
    live: boolean | null;
    watched: boolean;
  }>(WRITE_STATE, [id]);
  const row = rows[0];
  if (row === undefined) return new StoreError("not-found", `session ${id} no longer exists (${where})`);
  if (row.lease_owner !== lease.owner || Number(row.lease_epoch) !== lease.epoch || row.live !== true) {
    const why =
      Number(row.lease_epoch) !== lease.epoch
        ? `was taken over (epoch ${lease.epoch} → ${row.lease_epoch})`
        : row.lease_owner === null
          ? "was released"
          : "expired";
    return new StoreError(
      "lease-lost",
      `session ${id}: this store's lease ${why}, so its ${count} buffered event(s) were not written (${where}); load the session again`,
    );
  }
  const ahead = Number(row.next_seq) - from;
  if (ahead > 0 && ahead <= count) {
    const stored = await client.query<{ line: string }>(OWN_EVENTS, [id, from, from + ahead]);
    if (stored.rows.length === ahead && stored.rows.every((r, i) => r.line === lines[i])) {
      // That attempt committed but never got to notify (its answer, and the statement after it, were lost).
      if (row.watched) await notifyAppended(client, id, from + ahead);
      return ahead;
    }
  }
  return new StoreError(
    "conflict",
    `session ${id}: expected the stored log to end at seq ${from}, but it is at ${row.next_seq} (another writer appended), so ${count} event(s) were not written (${where})`,
  );
}
