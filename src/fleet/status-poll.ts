// One poll per client for the turns its followers wait on (decision 0016). The queue notifies
// every status change, but a notification sent while the LISTEN connection was down is lost, so
// a follower of a queued turn also needs a look now and then: instead of one query per follower
// per interval, the client reads the statuses of every tracked turn in one statement every
// `pollMs` (while any is tracked) and calls back those whose status moved. The same poll keeps
// followed queued turns marked followed (MARK_FOLLOWED, renewed every third of its length), so
// the worker that starts such a turn knows it is followed.
import type { PgPool } from "../store/postgres/index.js";
import type { TurnNotifications } from "./turn-notifications.js";
import { MARK_FOLLOWED } from "./turn-queries.js";
import type { TurnStatus } from "./types.js";

const STATUSES = "SELECT id::text AS id, status FROM keelson_turns WHERE id = ANY ($1::bigint[])";
/** How long a follower's mark on a queued turn lasts without renewal. */
export const FOLLOW_MARK_MS = 30_000;

interface Tracked {
  readonly status: TurnStatus;
  readonly onChange: () => void;
  /** Whether to keep the turn marked followed while it waits. */
  readonly mark: boolean;
}

export class StatusPoll {
  readonly #pool: PgPool;
  readonly #notifications: TurnNotifications;
  readonly #pollMs: number;
  readonly #tracked = new Map<string, Set<Tracked>>();
  #timer: NodeJS.Timeout | undefined;
  #markedAt = 0;

  constructor(pool: PgPool, notifications: TurnNotifications, pollMs: number) {
    this.#pool = pool;
    this.#notifications = notifications;
    this.#pollMs = pollMs;
  }

  /**
   * Calls `onChange` once turn `id` is seen in another status than `status`, keeping it marked
   * followed meanwhile when `mark`; returns the untrack.
   */
  track(id: string, status: TurnStatus, onChange: () => void, mark = false): () => void {
    const entry: Tracked = { status, onChange, mark };
    let entries = this.#tracked.get(id);
    if (entries === undefined) {
      entries = new Set();
      this.#tracked.set(id, entries);
    }
    entries.add(entry);
    this.#arm();
    const mine = entries;
    return () => {
      mine.delete(entry);
      if (mine.size === 0 && this.#tracked.get(id) === mine) this.#tracked.delete(id);
    };
  }

  #arm(): void {
    if (this.#timer !== undefined || this.#tracked.size === 0) return;
    this.#timer = setTimeout(() => void this.#poll(), this.#pollMs);
    this.#timer.unref(); // the followers' connections keep the process alive while it matters
  }

  async #poll(): Promise<void> {
    try {
      void this.#notifications.listening(); // reopens a lost LISTEN connection, its channels with it
      const ids = [...this.#tracked.keys()];
      if (performance.now() - this.#markedAt >= FOLLOW_MARK_MS / 3) {
        const marked = ids.filter((id) => [...(this.#tracked.get(id) ?? [])].some((entry) => entry.mark));
        if (marked.length > 0) await this.#pool.query(MARK_FOLLOWED, [marked, FOLLOW_MARK_MS]);
        this.#markedAt = performance.now();
      }
      const { rows } = await this.#pool.query<{ id: string; status: TurnStatus }>(STATUSES, [ids]);
      const now = new Map(rows.map((r) => [r.id, r.status]));
      for (const id of ids)
        for (const entry of [...(this.#tracked.get(id) ?? [])]) if (now.get(id) !== entry.status) entry.onChange(); // moved, or gone
    } catch {
      // the database is away: the next poll looks again
    } finally {
      this.#timer = undefined;
      this.#arm();
    }
  }

  close(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#tracked.clear();
  }
}
