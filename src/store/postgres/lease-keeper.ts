// The heartbeat of a PostgreSQL store's leases: every leaseMs / 3 it renews, in one statement,
// the live leases this store holds (owner and epoch must still match, so a lease taken over is
// never revived). The timer is unref'd: it never keeps a process alive. A failed renewal is not
// an error here — the next flush's guard reports a lost lease where it matters.
import { StoreError } from "../types.js";
import type { PgClient, PgPool } from "./connection.js";
import { RENEW_LEASES, SESSION_STATE } from "./queries.js";

export class LeaseKeeper {
  readonly #pool: () => PgPool | undefined;
  readonly #owner: string;
  readonly #leaseMs: number;
  readonly #held: () => Iterable<readonly [string, number]>;
  #timer: NodeJS.Timeout | undefined;
  #renewing = false;

  /** `held`: the sessions whose lease this store holds, with the epoch it holds each at. */
  constructor(
    pool: () => PgPool | undefined,
    owner: string,
    leaseMs: number,
    held: () => Iterable<readonly [string, number]>,
  ) {
    this.#pool = pool;
    this.#owner = owner;
    this.#leaseMs = leaseMs;
    this.#held = held;
  }

  /** Starts the heartbeat (idempotent). */
  start(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setInterval(() => void this.renew(), Math.max(1, Math.floor(this.#leaseMs / 3)));
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** Renews every held lease now; returns the ids renewed (an overlapping call renews nothing). */
  async renew(): Promise<string[]> {
    const pool = this.#pool();
    const held = [...this.#held()];
    if (pool === undefined || held.length === 0 || this.#renewing) return [];
    this.#renewing = true;
    try {
      const { rows } = await pool.query<{ id: string }>(RENEW_LEASES, [
        this.#owner,
        held.map(([id]) => id),
        held.map(([, epoch]) => epoch),
        this.#leaseMs,
      ]);
      return rows.map((r) => r.id);
    } catch {
      return [];
    } finally {
      this.#renewing = false;
    }
  }
}

/** Why a session could not be created or leased: `locked` (another owner's live lease), `exists` or `not-found`. */
export async function takenError(
  client: Pick<PgClient, "query">,
  id: string,
  owner: string,
  where: string,
  creating = true,
): Promise<StoreError> {
  const { rows } = await client.query<{ lease_owner: string | null; live: boolean | null }>(SESSION_STATE, [id]);
  const row = rows[0];
  if (row === undefined) return new StoreError("not-found", `no session ${id} (${where})`);
  if (row.lease_owner !== null && row.live === true && row.lease_owner !== owner)
    return new StoreError("locked", `session ${id} is held by another writer (a live lease; ${where})`);
  return creating
    ? new StoreError("exists", `session ${id} already exists (${where})`)
    : new StoreError("locked", `session ${id}: its lease could not be taken (${where})`);
}
