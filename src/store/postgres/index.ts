// Public API of the PostgreSQL store (`keelson/store/postgres`). `pg` is loaded on the first
// connect, never by importing this module; the types here are Keelson's own (no pg types).
export type { PgClient, PgPool, PgResult, PostgresTarget } from "./connection.js";
export { inTransaction, redactUrl } from "./connection.js";
export type { SessionWatch, WatchOptions } from "./event-tail.js";
export { DEFAULT_RECONNECT_MS, type PostgresStoreOptions, PostgresSessionStore } from "./postgres-store.js";
export { isConnectionError, type RetryPolicy } from "./transient.js";
export { checkSchema, type MigrateResult, migrate, SCHEMA_VERSION } from "./schema.js";
export type { StoredHead } from "./stored-log-reader.js";
