// How a worker notices that it lost a session while running its turn (paused past its lease,
// partitioned, taken over): every leaseMs / 3 it asks the server which of its running sessions'
// leases it still holds live at the epoch it claimed them at. A session missing from the answer —
// or one not confirmed for a whole lease length because the server cannot be reached — is
// reported lost once; the worker then cancels that turn. (Its appends would fail anyway: the
// store's append guard checks the epoch in every flush. This makes it stop instead of calling the
// model for a turn it can no longer record.) The timer is unref'd.
import type { PgPool } from "../store/postgres/index.js";
import { HELD_LEASES } from "./turn-queries.js";

interface Watched {
  readonly epoch: number;
  confirmedAt: number;
  readonly onLost: () => void;
}

export class LeaseWatch {
  readonly #pool: PgPool;
  readonly #owner: string;
  readonly #leaseMs: number;
  readonly #watched = new Map<string, Watched>();
  #timer: NodeJS.Timeout | undefined;
  #checking = false;

  constructor(pool: PgPool, owner: string, leaseMs: number) {
    this.#pool = pool;
    this.#owner = owner;
    this.#leaseMs = leaseMs;
  }

  /** Watches session `id`, held at `epoch`; returns the function that stops watching it. */
  watch(id: string, epoch: number, onLost: () => void): () => void {
    const entry: Watched = { epoch, confirmedAt: performance.now(), onLost };
    this.#watched.set(id, entry);
    this.#timer ??= setInterval(() => void this.check(), Math.max(1, Math.floor(this.#leaseMs / 3)));
    this.#timer.unref();
    return () => {
      if (this.#watched.get(id) === entry) this.#watched.delete(id);
      if (this.#watched.size === 0) this.stop();
    };
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** Checks every watched session now (an overlapping call does nothing). */
  async check(): Promise<void> {
    if (this.#checking || this.#watched.size === 0) return;
    this.#checking = true;
    const asked = [...this.#watched.entries()];
    const at = performance.now();
    try {
      const { rows } = await this.#pool.query<{ id: string }>(HELD_LEASES, [
        this.#owner,
        asked.map(([id]) => id),
        asked.map(([, w]) => w.epoch),
      ]);
      const held = new Set(rows.map((r) => r.id));
      for (const [id, watched] of asked) {
        if (held.has(id)) watched.confirmedAt = at;
        else this.#lose(id, watched);
      }
    } catch {
      for (const [id, watched] of asked) if (at - watched.confirmedAt > this.#leaseMs) this.#lose(id, watched);
    } finally {
      this.#checking = false;
    }
  }

  #lose(id: string, watched: Watched): void {
    if (this.#watched.get(id) !== watched) return;
    this.#watched.delete(id);
    watched.onLost();
  }
}
