// The PostgreSQL store's schema and its versioned migration (docs/decisions/0008). `migrate`
// brings a database to SCHEMA_VERSION in one transaction under a transaction-scoped advisory lock
// (concurrent migrators wait, then find nothing left to do) and records each applied version in
// `keelson_schema_version`. A store checks the version before its first use and refuses a
// database with no schema or an older one (`not-migrated`, naming `keelson db migrate`) or a
// newer one (`newer-version`): it never creates or alters tables itself.
import {
  dbError,
  inTransaction,
  labelOf,
  type PgClient,
  type PgPool,
  type PostgresTarget,
  poolOf,
} from "./connection.js";
import { StoreError } from "../types.js";

/** The schema version this Keelson reads and writes. */
export const SCHEMA_VERSION = 1;

/** `pg_advisory_xact_lock` key of the migration: "keelson" in ASCII, as a bigint. */
const MIGRATION_LOCK = "30229308793646958";

/** Each migration takes the schema from version i to i + 1 (index i). Never edit a released one: add the next. */
const MIGRATIONS: readonly string[] = [
  `CREATE TABLE keelson_sessions (
     id text PRIMARY KEY,
     header text NOT NULL,
     parent_id text,
     seed_from text REFERENCES keelson_sessions (id),
     seed_length bigint NOT NULL DEFAULT 0,
     created_at double precision NOT NULL,
     updated_at timestamptz NOT NULL DEFAULT now(),
     cwd text,
     title text,
     next_seq bigint NOT NULL,
     lease_owner text,
     lease_epoch bigint NOT NULL DEFAULT 0,
     lease_expires_at timestamptz,
     lease_heartbeat_at timestamptz,
     watched_until timestamptz,
     CHECK (seed_from IS NULL OR seed_length > 0)
   );
   CREATE INDEX keelson_sessions_created ON keelson_sessions (created_at, id);
   CREATE INDEX keelson_sessions_seed_from ON keelson_sessions (seed_from) WHERE seed_from IS NOT NULL;
   CREATE TABLE keelson_events (
     session_id text NOT NULL REFERENCES keelson_sessions (id),
     seq bigint NOT NULL,
     line text NOT NULL,
     PRIMARY KEY (session_id, seq)
   );`,
];

export interface MigrateResult {
  /** The schema version before (0: no Keelson schema). */
  readonly from: number;
  readonly to: number;
}

const VERSION_TABLE = `CREATE TABLE IF NOT EXISTS keelson_schema_version (
  version integer PRIMARY KEY,
  applied_at timestamptz NOT NULL DEFAULT now()
)`;

/**
 * Creates or upgrades the Keelson tables to SCHEMA_VERSION: one transaction, serialized by an
 * advisory lock, idempotent. Refuses (`newer-version`, nothing changed) a database a newer
 * Keelson migrated. A URL's pool is opened and closed here; a passed pool is left open.
 */
export async function migrate(target: PostgresTarget): Promise<MigrateResult> {
  const label = labelOf(target);
  const { pool, owned } = await poolOf(target);
  try {
    return await inTransaction(pool, async (client) => {
      await client.query(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`);
      await client.query(VERSION_TABLE);
      const from = await versionOf(client);
      if (from > SCHEMA_VERSION) throw newerSchema(label, from);
      for (let v = from; v < SCHEMA_VERSION; v++) {
        await client.query(MIGRATIONS[v]!);
        await client.query("INSERT INTO keelson_schema_version (version) VALUES ($1)", [v + 1]);
      }
      return { from, to: SCHEMA_VERSION };
    });
  } catch (e) {
    throw dbError(e, label, "migrating the Keelson schema", "write-failed");
  } finally {
    if (owned) await pool.end().catch(() => undefined);
  }
}

async function versionOf(client: Pick<PgClient, "query">): Promise<number> {
  const { rows } = await client.query<{ v: number | null }>("SELECT max(version) AS v FROM keelson_schema_version");
  return rows[0]?.v ?? 0;
}

const newerSchema = (label: string, version: number): StoreError =>
  new StoreError(
    "newer-version",
    `${label}: the Keelson schema is version ${version}, written by a newer Keelson; this Keelson uses version ${SCHEMA_VERSION} (upgrade Keelson)`,
  );

/** Refuses a database whose schema is not exactly SCHEMA_VERSION (missing, older or newer). */
export async function checkSchema(pool: PgPool, label: string): Promise<void> {
  let version: number;
  try {
    version = await versionOf(pool);
  } catch (e) {
    if ((e as { code?: unknown }).code !== "42P01") throw e; // undefined_table: never migrated
    version = 0;
  }
  if (version > SCHEMA_VERSION) throw newerSchema(label, version);
  if (version < SCHEMA_VERSION)
    throw new StoreError(
      "not-migrated",
      `${label}: ${version === 0 ? "has no Keelson schema" : `the Keelson schema is version ${version}, older than this Keelson's ${SCHEMA_VERSION}`}; run \`keelson db migrate --url <url>\` (or migrate() from keelson/store/postgres) first`,
    );
}
