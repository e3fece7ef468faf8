// Which PostgreSQL failures a write may retry, and the bounded retry itself. A connection-class
// failure — the backend terminated (pg_terminate_backend, failover, restart: SQLSTATE 57P01…),
// the socket reset, a connect refused — says nothing about the log: the statement either did
// not run or committed with its answer lost, and the write's own guard (the log position and the
// lease, checked on every attempt) tells the two apart. Such a failure is retried on a fresh pool
// connection with capped exponential backoff until a deadline; anything else (a refused guard, a
// constraint, bad data, a permission) is final at once.

/** SQLSTATEs of a lost or refused connection, or of a statement the server rolled back to be retried. */
const TRANSIENT_SQLSTATES = new Set([
  "57P01", // admin_shutdown: terminating connection due to administrator command
  "57P02", // crash_shutdown
  "57P03", // cannot_connect_now: the server is starting up or shutting down
  "53300", // too_many_connections
  "40001", // serialization_failure
  "40P01", // deadlock_detected
]);

/** Node socket errors of a lost or unreachable server. */
const TRANSIENT_ERRNOS = new Set([
  "ECONNRESET",
  "ECONNREFUSED",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENETDOWN",
  "EAI_AGAIN",
]);

/** What `pg` says (with no code) when a connection died under it or a connect timed out. */
const TRANSIENT_MESSAGE =
  /^(Connection terminated|Client has encountered a connection error|timeout exceeded when trying to connect|Connection terminated due to connection timeout)/;

/** Whether `error` (or what it wraps) is a lost or unreachable connection: worth retrying on a fresh one. */
export function isConnectionError(error: unknown, depth = 0): boolean {
  if (typeof error !== "object" || error === null || depth > 4) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string") {
    if (code.startsWith("08") || TRANSIENT_SQLSTATES.has(code) || TRANSIENT_ERRNOS.has(code)) return true;
  }
  if (error instanceof AggregateError && error.errors.some((e: unknown) => isConnectionError(e, depth + 1)))
    return true;
  const message = (error as { message?: unknown }).message;
  if (typeof message === "string" && TRANSIENT_MESSAGE.test(message)) return true;
  // A StoreError from connecting (`unavailable`/`write-failed`) carries the driver's error as its cause.
  return isConnectionError((error as { cause?: unknown }).cause, depth + 1);
}

/** How long a write keeps retrying a lost connection, and the clock it does so by. */
export interface RetryPolicy {
  /** Retry connection-class failures until this many ms after the first attempt (0: never retry). */
  readonly forMs: number;
  /** The clock of the deadline (ms); default `performance.now`. */
  readonly now?: () => number;
  /** Waits between attempts; default a timer. */
  readonly sleep?: (ms: number) => Promise<void>;
}

/** The first backoff, and its cap (it doubles in between). */
const FIRST_DELAY_MS = 20;
const MAX_DELAY_MS = 1_000;

const timer = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** How a retried write ended: its value, or the failure that ended it after `retries` lost connections. */
export type Retried<T> =
  | { readonly ok: true; readonly value: T; readonly retries: number }
  | { readonly ok: false; readonly error: unknown; readonly retries: number };

/**
 * Runs `attempt` until it succeeds, fails with something other than a lost connection, or the
 * deadline passes (a wait that would end past it is not started).
 */
export async function retryConnection<T>(policy: RetryPolicy, attempt: () => Promise<T>): Promise<Retried<T>> {
  const now = policy.now ?? (() => performance.now());
  const sleep = policy.sleep ?? timer;
  const deadline = now() + policy.forMs;
  let retries = 0;
  for (let delay = FIRST_DELAY_MS; ; delay = Math.min(delay * 2, MAX_DELAY_MS)) {
    try {
      return { ok: true, value: await attempt(), retries };
    } catch (error) {
      if (!isConnectionError(error) || now() + delay > deadline) return { ok: false, error, retries };
    }
    retries++;
    await sleep(delay);
  }
}
