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
import type { Session, SessionEvent } from "../../session/index.js";

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
