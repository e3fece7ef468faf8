// Where the fleet's connections come from. A URL gets a pool of our own (`pg` loaded on first
// use, as the store does), named by `application_name` so an operator — or a fault-injecting
// test — can tell a worker's connections apart in pg_stat_activity; a pool passed in is used
// as is and left open. Failures name the server without credentials.
import { errorMessage, isKeelsonError, loadOptionalPackage, MissingPackageError } from "../errors/index.js";
import { type PgPool, redactUrl } from "../store/postgres/index.js";
import { watchConnections } from "../store/postgres/prepared-statements.js";
import { FleetError, type FleetStore } from "./types.js";

export interface OpenedPool {
  readonly pool: PgPool;
  /** Whether `close` ends it (we opened it from a URL). */
  readonly owned: boolean;
  /** The server as messages name it. */
  readonly label: string;
  close(): Promise<void>;
}

/** The pool for `store`; `max` and `applicationName` apply to a pool opened from a URL only. */
export async function openPool(
  store: FleetStore,
  options: { readonly max?: number; readonly applicationName?: string } = {},
): Promise<OpenedPool> {
  if (typeof store !== "string") {
    const label =
      store.options?.connectionString === undefined
        ? "the PostgreSQL pool passed in"
        : redactUrl(store.options.connectionString);
    return { pool: store, owned: false, label, close: async () => undefined };
  }
  if (!/^postgres(ql)?:\/\//.test(store))
    throw new FleetError("invalid-options", `store must be a postgres:// URL or a pool, got ${redactUrl(store)}`);
  // a missing `pg` is a MissingPackageError; a broken install stays the fleet's `unavailable`
  let Pool: typeof import("pg").Pool;
  try {
    ({ Pool } = await loadOptionalPackage<typeof import("pg")>("pg", "the fleet (a PostgreSQL queue)"));
  } catch (cause) {
    if (cause instanceof MissingPackageError) throw cause;
    throw new FleetError("unavailable", `the fleet could not load \`pg\`: ${errorMessage(cause)}`, { cause });
  }
  const pool = new Pool({
    connectionString: store,
    max: options.max ?? 8,
    ...(options.applicationName === undefined ? {} : { application_name: options.applicationName.slice(0, 63) }),
  });
  // A connection that dies (server restart, pg_terminate_backend) must not crash the process:
  // `pool.on("error")` covers idle connections; a checked-out one between two statements (inside a
  // transaction, the store's included) emits `error` on the client itself, unhandled unless every
  // client has a listener. Its next statement then fails and the caller sees that.
  pool.on("error", () => undefined);
  // Each connection also names its parameterized statements (store/postgres/prepared-statements.ts).
  watchConnections(pool, store);
  let ended = false;
  return {
    pool: pool as unknown as PgPool,
    owned: true,
    label: redactUrl(store),
    close: async () => {
      if (ended) return;
      ended = true;
      await pool.end().catch(() => undefined);
    },
  };
}

/** A driver or server failure as a FleetError naming the server (Keelson errors pass through). */
export function fleetDbError(error: unknown, label: string, what: string): unknown {
  if (isKeelsonError(error)) return error;
  const text = errorMessage(error);
  // A refused login or a missing privilege (SQLSTATE class 28, 42501): retrying cannot help, as the store says.
  const sqlstate = (error as { code?: unknown } | null)?.code;
  if (sqlstate === "42501" || (typeof sqlstate === "string" && sqlstate.startsWith("28")))
    return new FleetError("permission-denied", `${label}: ${what} failed: ${text} (SQLSTATE ${sqlstate})`, {
      cause: error,
    });
  return new FleetError("unavailable", `${label}: ${what} failed: ${text}`, { cause: error });
}
