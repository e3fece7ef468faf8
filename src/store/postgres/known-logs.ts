// Fork by reference, the cheap proof (docs/decisions/0008). A store remembers, per stored
// session it created, loaded or wrote, a Session whose first `length` events are exactly that
// session's committed rows (the log is append-only, so once true it stays true). A fork's seed
// is then proven to be the parent's prefix by identity, in O(1):
//   - `seed` is a Session's own `events` view: `Session.fromLog(header, seed)` shares a view's
//     event objects and copies any other array, so `created.events[n-1] === seed[n-1]` says so;
//   - the parent's known Session has the very same object at seq n - 1. An event object is
//     appended to exactly one Session and only ever shared with prefixes of it, so the n events
//     before and including it are the same objects in both.
// Anything else is checked against the parent's stored rows (O(n), by the caller).
import { isSafeSessionId, type Session, type SessionEvent, type SessionMeta } from "../../session/index.js";
import type { PgPool } from "./connection.js";
import { EVENT_RANGE } from "./queries.js";

export interface KnownLog {
  readonly session: Session;
  /** How many of `session`'s first events are the stored session's committed rows. */
  readonly length: number;
}

/** The known logs of one store: least recently used dropped beyond `capacity`. */
export class KnownLogs {
  readonly #capacity: number;
  readonly #entries = new Map<string, KnownLog>();

  constructor(capacity = 64) {
    this.#capacity = capacity;
  }

  get(id: string): KnownLog | undefined {
    const entry = this.#entries.get(id);
    if (entry !== undefined) {
      this.#entries.delete(id);
      this.#entries.set(id, entry);
    }
    return entry;
  }

  /** The known log of `id`, leaving the LRU order as it is. */
  peek(id: string): KnownLog | undefined {
    return this.#entries.get(id);
  }

  set(id: string, entry: KnownLog): void {
    if (this.#capacity <= 0) return;
    this.#entries.delete(id);
    this.#entries.set(id, entry);
    for (const oldest of this.#entries.keys()) {
      if (this.#entries.size <= this.#capacity) break;
      this.#entries.delete(oldest);
    }
  }
}

/**
 * Whether `seed` is, by identity, the first `seed.length` events of the known log: `created`
 * must be `Session.fromLog(header, seed)`. O(1) but for building the known session's `events`
 * view when it has appended since it was last read.
 */
export function sharesKnownPrefix(
  seed: readonly SessionEvent[],
  created: Session,
  known: KnownLog | undefined,
): boolean {
  const n = seed.length;
  if (known === undefined || n === 0 || n > known.length || created.length !== n) return false;
  const last = seed[n - 1];
  return created.events[n - 1] === last && known.session.events[n - 1] === last;
}

/**
 * The session a created fork's seed is a reference to (its parent), or undefined: store a copy.
 * Proven by identity when the parent is a log this store knows (no read); otherwise the seed's
 * lines are compared with the parent's stored rows.
 */
export async function seedReference(
  pool: Pick<PgPool, "query">,
  header: SessionMeta,
  seed: readonly SessionEvent[],
  created: Session,
  known: KnownLogs,
  lines: () => readonly string[],
): Promise<string | undefined> {
  const parent = header.parentSession;
  const n = seed.length;
  if (parent === undefined || n === 0 || header.seedLength !== n || !isSafeSessionId(parent) || parent === header.id)
    return undefined;
  if (sharesKnownPrefix(seed, created, known.get(parent))) return parent;
  const { rows } = await pool.query<{ seq: string; line: string }>(EVENT_RANGE, [parent, 0, n]);
  if (rows.length !== n) return undefined;
  const encoded = lines();
  for (let i = 0; i < n; i++) if (rows[i]!.line !== encoded[i]) return undefined;
  return parent;
}
