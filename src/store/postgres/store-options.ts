// A PostgreSQL store's options, their defaults and their validation at the boundary: where the
// database is, the lease length and owner, the known-logs cache size, and how long a write
// rides out a lost connection (transient.ts).
import { randomUUID } from "node:crypto";
import { previewJson } from "../../json/index.js";
import type { PostgresTarget } from "./connection.js";
import { storableText } from "./log-rows.js";
import type { RetryPolicy } from "./transient.js";

export type PostgresStoreOptions = PostgresTarget & {
  /** How long a lease lasts without renewal (ms); the store renews every leaseMs / 3. Default 30 000. */
  readonly leaseMs?: number;
  /**
   * The lease owner: default a random id per store instance. Store instances given the same
   * owner share leases (a worker identity across connections); between them, only the log
   * position guards appends (`conflict`).
   */
  readonly owner?: string;
  /** How many stored sessions' logs to remember for forks by reference (least recently used dropped). Default 64. */
  readonly knownSessions?: number;
  /**
   * How a flush (and a lease release) rides out a lost connection — a terminated backend, a reset
   * socket, a refused connect: it is retried on a fresh pool connection with backoff for
   * `forMs` (default 30 000; 0: fail at once). The log position and the lease are checked on
   * every attempt, so a retry never duplicates and never writes over a lease that is gone.
   * `now`/`sleep` replace the deadline's clock and the wait between attempts (tests).
   */
  readonly reconnect?: Partial<RetryPolicy>;
};

/** How long a write retries a lost connection unless told otherwise (ms). */
export const DEFAULT_RECONNECT_MS = 30_000;

/** The options with their defaults, checked (a TypeError names the bad one). */
export interface ResolvedStoreOptions {
  readonly target: PostgresTarget;
  readonly owner: string;
  readonly leaseMs: number;
  readonly knownSessions: number;
  readonly reconnect: RetryPolicy;
}

export function resolveStoreOptions(options: PostgresStoreOptions): ResolvedStoreOptions {
  const target: PostgresTarget =
    options.pool === undefined
      ? { url: options.url, ...(options.poolSize === undefined ? {} : { poolSize: options.poolSize }) }
      : { pool: options.pool };
  const owner = options.owner ?? randomUUID();
  if (typeof owner !== "string" || owner === "" || owner !== storableText(owner))
    throw new TypeError(
      `owner must be a non-empty string PostgreSQL TEXT can hold (no U+0000), got ${previewJson(options.owner)}`,
    );
  const leaseMs = options.leaseMs ?? 30_000;
  if (!Number.isSafeInteger(leaseMs) || leaseMs < 3)
    throw new TypeError(`leaseMs must be an integer ≥ 3, got ${previewJson(options.leaseMs)}`);
  const reconnect = { ...options.reconnect, forMs: options.reconnect?.forMs ?? DEFAULT_RECONNECT_MS };
  if (!Number.isSafeInteger(reconnect.forMs) || reconnect.forMs < 0)
    throw new TypeError(`reconnect.forMs must be an integer ≥ 0, got ${previewJson(options.reconnect?.forMs)}`);
  return { target, owner, leaseMs, knownSessions: options.knownSessions ?? 64, reconnect };
}
