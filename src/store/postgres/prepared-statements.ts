// Server-side prepared statements for the pools Keelson opens itself (the store's and the
// fleet's). Every parameterized statement Keelson sends is one of a few dozen constant texts, yet
// an unnamed statement is parsed, analysed and planned again on every call: at 200 ms model
// latency that was ~30% of PostgreSQL's CPU per fleet turn (8.6–8.9 → 5.7–6.3 ms with names).
// Each connection of such a pool names a parameterized statement by a hash of its text, so `pg`
// parses it once per connection and the server keeps its plan. A statement without values (DDL,
// LISTEN, BEGIN/COMMIT, multi-statement scripts) is sent as before.
//
// Poolers: a transaction-mode pooler (PgBouncer before 1.21, or without
// `max_prepared_statements`) moves a connection's statements between server connections, so a
// named statement can be missing (26000) or already taken (42P05) there. The first such failure
// turns naming off for the whole pool and, outside a transaction, runs the statement again
// unnamed (it never started); inside one, the transaction fails once as any dropped connection
// would. A URL with `pgbouncer=true` (Prisma's convention) starts with naming off. So does a
// plan a schema change made stale (0A000, "cached plan must not change result type").
import { createHash } from "node:crypto";

/** What a connection of a pool shares with the others: whether statements are named. */
export interface PreparedState {
  naming: boolean;
}

/** The `pg` client methods this patches (structural: pg's types stay out of the declarations). */
interface NamingClient {
  query: (...args: unknown[]) => unknown;
  getTransactionStatus?: () => string | null;
}

/** Distinct statement texts named at most (a caller's own dynamic SQL must not grow this without bound). */
const MAX_NAMED = 512;
const names = new Map<string, string>();

/** The name for `text`, or undefined once `MAX_NAMED` texts are named. */
function nameOf(text: string): string | undefined {
  let name = names.get(text);
  if (name === undefined) {
    if (names.size >= MAX_NAMED) return undefined;
    name = `keelson_${createHash("sha256").update(text).digest("hex").slice(0, 24)}`;
    names.set(text, name);
  }
  return name;
}

/** SQLSTATEs that say a named statement cannot be used here (see the module comment). */
const NAMING_FAILURES = new Set(["26000", "42P05", "0A000"]);
const isNamingFailure = (error: unknown): boolean =>
  NAMING_FAILURES.has(String((error as { code?: unknown } | null)?.code));

/** The state for a pool opened from `url`: naming on unless the URL says a transaction pooler is in between. */
export function preparedStateFor(url: string): PreparedState {
  let pooled = false;
  try {
    pooled = new URL(url).searchParams.get("pgbouncer") === "true";
  } catch {
    // an unparsable URL fails at connect, not here
  }
  return { naming: !pooled };
}

/** The `pg.Pool` methods `watchConnections` uses. */
interface ConnectingPool {
  on(
    event: "connect",
    listener: (client: NamingClient & { on(event: "error", listener: () => void): unknown }) => void,
  ): unknown;
}

/**
 * What every pool Keelson opens from `url` does with a new connection: ignores its `error` event
 * (a connection terminated between two statements — a restart, `pg_terminate_backend` — must not
 * crash the process: its next statement fails and the caller sees that) and names its
 * parameterized statements (`nameStatements`, with one `PreparedState` for the pool).
 */
export function watchConnections(pool: ConnectingPool, url: string): PreparedState {
  const state = preparedStateFor(url);
  pool.on("connect", (client) => {
    client.on("error", () => undefined);
    nameStatements(client, state);
  });
  return state;
}

/**
 * Makes `client` (a `pg.Client` a pool just connected) send its parameterized statements named,
 * while `state.naming` holds. Both of pg's call forms are kept: `query(text, values, callback)`
 * (what `pool.query` uses) and `query(text, values)` → promise.
 */
export function nameStatements(client: NamingClient, state: PreparedState): void {
  const send = client.query;
  const idle = (): boolean => client.getTransactionStatus?.() === "I";
  client.query = function (this: unknown, ...args: unknown[]): unknown {
    const [text, values, callback] = args;
    const name = state.naming && typeof text === "string" && Array.isArray(values) ? nameOf(text) : undefined;
    if (name === undefined) return send.apply(this, args);
    const named = { name, text, values };
    if (typeof callback === "function")
      return send.call(this, named, (error: unknown, result: unknown) => {
        if (error === undefined || error === null || !isNamingFailure(error)) return callback(error, result);
        state.naming = false;
        if (!idle()) return callback(error, result);
        send.call(this, text, values, callback);
      });
    return (send.call(this, named) as Promise<unknown>).catch((error: unknown) => {
      if (!isNamingFailure(error)) throw error;
      state.naming = false;
      if (!idle()) throw error;
      return send.call(this, text, values);
    });
  };
}
