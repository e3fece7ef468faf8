// How the fleet tells a dead worker from a slow one without waiting out its leases (decision
// 0040). A running worker has a row in `keelson_workers` (fleet schema 9; its profiles since 10) and holds a
// session-level advisory lock (WORKER_LOCK_CLASS, its row's `lock_key`) on a connection of its
// own; PostgreSQL drops the lock the moment that connection ends — the process killed, its host
// gone — and the worker takes it again, with a fresh key if another session holds that one, as
// soon as it reconnects (0.1 s, doubling to 1 s). Other workers' claims sweep, at most once a
// second (with their orphan search): a registered worker without its lock is marked missing; one
// missing for `deadAfterMs` (default 5 s) and still without its lock is dead — its leases are
// expired at once, so the next orphan search recovers its turns (and the clients following them
// get their `interrupted` end) in seconds rather than at the end of a 30 s lease — and its row
// goes. A live worker that merely lost its connection is back within the grace; a worker paused
// (SIGSTOP) or partitioned from the database keeps its lock server-side until the server drops
// the connection, and falls back to the lease as before. Nothing here can end a live turn that
// the lease would keep: a lease expired early is taken over like any lapsed one, and the store's
// epoch fence stops the old holder's appends. Forging is one way only: a login that takes a
// worker's key makes a dead worker look alive (the lease then decides); it cannot make a live one
// look dead. A worker restarted under the same fixed `workerId` finds its earlier run's row without
// its lock and ends that run's leases as it starts (nobody else would: the id is alive again).
import { randomInt } from "node:crypto";
import type { PgClient, PgPool } from "../store/postgres/index.js";

/** The advisory lock class of workers' liveness locks: "klsw" in ASCII (the two-int form; pg_locks shows objsubid 2). */
export const WORKER_LOCK_CLASS = 0x6b6c7377;
/** Default time a worker's liveness lock may be gone before the fleet counts the worker dead. */
export const DEFAULT_DEAD_AFTER_MS = 5000;
/** SQL: the `pg_locks` row `l` is the liveness lock of the `keelson_workers` row `w`, held, in this database. */
const LOCK_OF_W = `l.locktype = 'advisory' AND l.granted AND l.objsubid = 2 AND l.classid = ${WORKER_LOCK_CLASS}::oid
  AND l.objid = w.lock_key::oid AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())`;
/** SQL: whether the liveness lock of the `keelson_workers` row aliased `w` is held now (by any session of this database). */
export const LOCK_HELD = `EXISTS (SELECT 1 FROM pg_locks l WHERE ${LOCK_OF_W})`;
/** SQL: how many registered workers hold their liveness locks (one read of pg_locks). */
export const LIVE_WORKERS = `SELECT count(*)::integer FROM keelson_workers w JOIN pg_locks l ON ${LOCK_OF_W}`;
/** SQL: how many of them serve profile $1 — a worker registered without profiles (an older Keelson) may. */
export const LIVE_WORKERS_SERVING = `${LIVE_WORKERS} WHERE cardinality(w.profiles) = 0 OR $1 = ANY (w.profiles)`;
/** The sweep's own transaction-scoped lock: one sweep at a time fleet-wide (the others skip). */
const SWEEP_LOCK = 0x6b6c7378;
const REOPEN_FIRST_MS = 100;
const REOPEN_MAX_MS = 1000;

const LOCK = "SELECT pg_try_advisory_lock($1::integer, $2::integer) AS locked";
/**
 * The server probes the liveness connection (TCP keep-alive: after 5 s idle, every 2 s, 3 misses)
 * and gives up on unacknowledged data after 10 s, so a host that vanished without resetting its
 * sockets loses its lock in about 11 s, not at the system's default (2 h 11 min). A paused process's
 * kernel still answers the probes: a paused worker keeps its lock and is judged by its lease.
 * Ignored on a Unix socket.
 */
const PROBE = `SELECT set_config('tcp_keepalives_idle', '5', false), set_config('tcp_keepalives_interval', '2', false),
  set_config('tcp_keepalives_count', '3', false), set_config('tcp_user_timeout', '10000', false)`;
const REGISTER = `INSERT INTO keelson_workers (owner, lock_key, profiles) VALUES ($1, $2, $3::text[])
  ON CONFLICT (owner) DO UPDATE SET lock_key = EXCLUDED.lock_key, profiles = EXCLUDED.profiles,
    locked_at = now(), missing_since = NULL`;
/**
 * At a worker's start, before REGISTER ($1 owner): when a row of the same id is
 * there and its lock is not held, that row is an earlier run of this worker that died (restarted
 * under a fixed `workerId`, e.g. a pod's name) — its leases end now, as a sweep would end them.
 */
const END_EARLIER_RUN = `UPDATE keelson_sessions s SET lease_expires_at = now()
  FROM keelson_workers w
  WHERE w.owner = $1 AND s.lease_owner = $1 AND s.lease_expires_at > now()
    AND NOT ${LOCK_HELD}`;
const UNREGISTER = "DELETE FROM keelson_workers WHERE owner = $1 AND lock_key = $2";

/**
 * The sweep ($1 the grace in ms), in one statement under SWEEP_LOCK: a row
 * whose lock is held again loses its mark; one whose lock is gone is marked missing; one marked
 * for the grace (and not locked again since it was marked) is dead: its live leases end now and
 * its row goes. Returns the dead owners and how many leases were ended.
 */
export const SWEEP_WORKERS = `WITH sweeping AS (
    SELECT pg_try_advisory_xact_lock(${SWEEP_LOCK}) AS got
  ), workers AS (
    SELECT w.owner, w.missing_since, w.locked_at, ${LOCK_HELD} AS live
    FROM keelson_workers w, sweeping WHERE sweeping.got
  ), healed AS (
    UPDATE keelson_workers w SET missing_since = NULL FROM workers k
    WHERE w.owner = k.owner AND k.live AND w.missing_since IS NOT NULL
  ), marked AS (
    UPDATE keelson_workers w SET missing_since = now() FROM workers k
    WHERE w.owner = k.owner AND NOT k.live AND w.missing_since IS NULL
  ), dead AS (
    SELECT owner FROM workers
    WHERE NOT live AND missing_since > locked_at AND missing_since <= now() - $1 * interval '1 millisecond'
  ), ended AS (
    UPDATE keelson_sessions s SET lease_expires_at = now() FROM dead d
    WHERE s.lease_owner = d.owner AND s.lease_expires_at > now()
    RETURNING s.id
  ), gone AS (
    DELETE FROM keelson_workers w USING dead d WHERE w.owner = d.owner AND w.missing_since IS NOT NULL
    RETURNING w.owner
  )
  SELECT coalesce((SELECT array_agg(owner) FROM gone), '{}') AS dead, (SELECT count(*) FROM ended)::integer AS ended`;

/** What one sweep found: the workers it counted dead and how many of their leases it ended. */
export interface SweepResult {
  readonly dead: readonly string[];
  readonly ended: number;
}

/** Sweeps the fleet's workers (SWEEP_WORKERS) with grace `deadAfterMs`. */
export async function sweepWorkers(pool: PgPool, deadAfterMs: number): Promise<SweepResult> {
  const { rows } = await pool.query<{ dead: string[]; ended: number }>(SWEEP_WORKERS, [deadAfterMs]);
  const row = rows[0];
  return { dead: row?.dead ?? [], ended: row?.ended ?? 0 };
}

/** One worker's side: its row and its lock, held on a connection of its own until `stop()`. */
export class WorkerLiveness {
  readonly #pool: PgPool;
  readonly #owner: string;
  /** The profiles the worker serves (its row says so: `liveWorkers({ profile })`). */
  readonly #profiles: readonly string[];
  /** Told what failed: `what` is "taking the worker's liveness lock" or "unregistering the worker". */
  readonly #onError: (error: unknown, what: string) => void;
  #key = 0;
  /** Whether a row was ever written for this worker (stop() then removes it). */
  #registered = false;
  #client: PgClient | undefined;
  #opening: Promise<void> | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #delayMs = REOPEN_FIRST_MS;
  #stopped = false;

  constructor(
    pool: PgPool,
    owner: string,
    onError: (error: unknown, what: string) => void,
    profiles: readonly string[] = [],
  ) {
    this.#pool = pool;
    this.#owner = owner;
    this.#profiles = profiles;
    this.#onError = onError;
  }

  /** The key of the lock held now (0 while none is). */
  get lockKey(): number {
    return this.#client === undefined ? 0 : this.#key;
  }

  /** Takes the lock and registers; rejects when the database cannot be reached (the caller retries). */
  start(): Promise<void> {
    this.#opening ??= this.#open().finally(() => {
      this.#opening = undefined;
    });
    return this.#opening;
  }

  async #open(): Promise<void> {
    const client = await this.#pool.connect();
    client.on("error", () => this.#lost(client));
    try {
      await client.query(PROBE);
      let locked = false;
      for (let tries = 0; !locked; tries++) {
        if (tries === 8)
          throw new Error("could not take a liveness lock: eight random keys were held by other sessions");
        this.#key = randomInt(1, 2 ** 31);
        const { rows } = await client.query<{ locked: boolean }>(LOCK, [WORKER_LOCK_CLASS, this.#key]);
        locked = rows[0]?.locked === true;
      }
      if (!this.#registered) await client.query(END_EARLIER_RUN, [this.#owner]);
      await client.query(REGISTER, [this.#owner, this.#key, this.#profiles]);
      this.#registered = true;
    } catch (error) {
      client.release(true); // the lock, if taken, goes with the connection
      throw error;
    }
    if (this.#stopped) {
      client.release(true);
      return;
    }
    this.#client = client;
    this.#delayMs = REOPEN_FIRST_MS;
  }

  /** The connection died (a server restart, pg_terminate_backend): the lock went with it; take it again. */
  #lost(client: PgClient): void {
    if (this.#client !== client) return;
    this.#client = undefined;
    client.release(true);
    this.#reopen();
  }

  #reopen(): void {
    if (this.#stopped || this.#timer !== undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.start().catch((error: unknown) => {
        this.#delayMs = Math.min(this.#delayMs * 2, REOPEN_MAX_MS);
        this.#onError(error, "taking the worker's liveness lock");
        this.#reopen();
      });
    }, this.#delayMs);
    this.#timer.unref();
  }

  /** Unregisters and lets the lock go (a stopped worker is not dead: nobody sweeps it). */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#opening?.catch(() => undefined);
    const client = this.#client;
    this.#client = undefined;
    if (!this.#registered) return;
    try {
      await (client ?? this.#pool).query(UNREGISTER, [this.#owner, this.#key]);
    } catch (error) {
      this.#onError(error, "unregistering the worker"); // its row is swept like a dead worker's: it holds no lease
    } finally {
      client?.release(true);
    }
  }
}
