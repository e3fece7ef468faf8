// Where a PostgreSQL store's connections come from, and how their failures read. `pg` (an
// optional peer dependency) is loaded on the first connect, so importing Keelson or its store
// layer never loads it, and a missing one is a MissingPackageError; a caller may instead hand in
// its own pool. The types here are structural and ours, so the public declarations never mention
// pg's (a consumer without @types/pg typechecks).
// Failures become StoreErrors naming the server by a URL without credentials.
import { errorMessage, loadOptionalPackage, MissingPackageError } from "../../errors/index.js";
import { StoreError, type StoreErrorCode } from "../types.js";
import { watchConnections } from "./prepared-statements.js";

/** A query result as `pg` returns it (the fields we read). */
export interface PgResult<R = Record<string, unknown>> {
  readonly rows: R[];
  readonly rowCount: number | null;
}

/** A dedicated connection (`pg.PoolClient`): transactions and LISTEN run on one. */
export interface PgClient {
  query<R = Record<string, unknown>>(text: string, values?: unknown[]): Promise<PgResult<R>>;
  /** Returns the connection to its pool; pass an error (or true) to destroy it instead. */
  release(destroy?: Error | boolean): void;
  /** `notification` listeners get `{ channel, payload? }`, `error` listeners an Error. */
  on(event: "notification" | "error", listener: (arg: never) => void): unknown;
  removeAllListeners(event?: string): unknown;
}

/** A connection pool (`pg.Pool` fits): what the store needs of it. */
export interface PgPool {
  query<R = Record<string, unknown>>(text: string, values?: unknown[]): Promise<PgResult<R>>;
  connect(): Promise<PgClient>;
  end(): Promise<void>;
  /** pg.Pool's connection options, read only to name the server in messages. */
  readonly options?: {
    readonly connectionString?: string | undefined;
    readonly host?: string | undefined;
    readonly port?: number | undefined;
    readonly database?: string | undefined;
    readonly password?: unknown;
  };
}

/** A database to use: a connection URL (the store owns a pool over it) or a pool the caller owns. */
/**
 * A database: a URL (the store opens a pool of `poolSize` connections, default 16 — at least one
 * per session flushing at once, or flushes queue for a connection) or a pool of the caller's.
 */
export type PostgresTarget =
  | { readonly url: string; readonly pool?: undefined; readonly poolSize?: number }
  | { readonly pool: PgPool };

/** `postgres://user@host:port/db` without the password (or a placeholder for an unparsable URL). */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.password = "";
    parsed.search = ""; // query parameters may carry a password too
    return parsed.toString();
  } catch {
    return "(an unparsable PostgreSQL URL)";
  }
}

/** How messages name the target's server: a redacted URL. */
export function labelOf(target: PostgresTarget): string {
  if (target.pool === undefined) return redactUrl(target.url);
  const o = target.pool.options ?? {};
  if (o.connectionString !== undefined) return redactUrl(o.connectionString);
  if (o.host === undefined && o.database === undefined) return "the PostgreSQL pool passed in";
  return `postgres://${o.host ?? "localhost"}${o.port === undefined ? "" : `:${o.port}`}/${o.database ?? ""}`;
}

/** Connections a store opens for a URL unless told otherwise. */
export const DEFAULT_POOL_SIZE = 16;

/** The pool a target names; a URL's pool is created here (loading pg) and owned by the caller of this. */
export async function poolOf(target: PostgresTarget): Promise<{ pool: PgPool; owned: boolean }> {
  if (target.pool !== undefined) return { pool: target.pool, owned: false };
  // a missing `pg` is a MissingPackageError; a broken install stays the store's `unavailable`
  let Pool: typeof import("pg").Pool;
  try {
    ({ Pool } = await loadOptionalPackage<typeof import("pg")>("pg", "the PostgreSQL store"));
  } catch (cause) {
    if (cause instanceof MissingPackageError) throw cause;
    throw new StoreError("unavailable", `the PostgreSQL store could not load \`pg\`: ${errorMessage(cause)}`, {
      cause,
    });
  }
  const pool = new Pool({ connectionString: target.url, max: target.poolSize ?? DEFAULT_POOL_SIZE });
  // An idle connection that dies (server restart) must not crash the process: the next query reports it.
  pool.on("error", () => undefined);
  // A checked-out connection terminated between statements (pg_terminate_backend, failover) emits
  // `error` on the client: the statement in flight fails; the process must not. Each connection
  // names its parameterized statements (prepared once, planned once).
  watchConnections(pool, target.url);
  return { pool: pool as unknown as PgPool, owned: true };
}

/** The longest driver message a StoreError quotes (a server message may quote a value). */
const MAX_DRIVER_TEXT = 500;

/**
 * A driver/server failure as a StoreError naming the server (StoreErrors pass through). A
 * privilege or authentication refusal (SQLSTATE 42501, class 28) is `permission-denied`, not
 * `code`: retrying cannot help, and the operator must grant the role what Keelson needs.
 */
export function dbError(error: unknown, label: string, what: string, code: StoreErrorCode, secret?: string): unknown {
  if (error instanceof StoreError) return error;
  let text = errorMessage(error);
  if (error instanceof AggregateError && error.errors.length > 0)
    text = error.errors.map((e: unknown) => errorMessage(e)).join("; ");
  if (secret !== undefined && secret.length > 0) text = text.split(secret).join("***");
  const sqlstate = (error as { code?: unknown } | null)?.code;
  text ||= String(sqlstate);
  if (text.length > MAX_DRIVER_TEXT) text = `${text.slice(0, MAX_DRIVER_TEXT - 1)}…`;
  if (sqlstate === "42501" || (typeof sqlstate === "string" && sqlstate.startsWith("28")))
    return new StoreError(
      "permission-denied",
      `${label}: ${what} failed: ${text} (SQLSTATE ${sqlstate}: ${sqlstate === "42501" ? "the database role lacks a privilege Keelson needs — SELECT, INSERT and UPDATE on keelson_sessions and keelson_events, SELECT on keelson_schema_version; see src/store/README.md" : "the server refused these credentials"})`,
      { cause: error },
    );
  return new StoreError(code, `${label}: ${what} failed: ${text}`, { cause: error });
}

/** The password in a target's URL, if any (so messages can be scrubbed of it). */
export function secretOf(target: PostgresTarget): string | undefined {
  const options = target.pool?.options;
  if (typeof options?.password === "string" && options.password !== "") return options.password;
  const url = target.pool === undefined ? target.url : options?.connectionString;
  if (url === undefined) return undefined;
  try {
    const password = new URL(url).password;
    return password === "" ? undefined : decodeURIComponent(password);
  } catch {
    return undefined;
  }
}

/** Runs `body` in one transaction on a dedicated connection; rolls back on any throw. */
export async function inTransaction<T>(pool: PgPool, body: (client: PgClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query("BEGIN");
    const result = await body(client);
    await client.query("COMMIT");
    return result;
  } catch (e) {
    await client.query("ROLLBACK").catch((rollbackError: unknown) => {
      broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
    });
    throw e;
  } finally {
    client.release(broken);
  }
}
