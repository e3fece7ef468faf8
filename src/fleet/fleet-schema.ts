// The turn queue's schema and its own versioned migration (docs/decisions/0012), beside the
// session store's (src/store/postgres/schema.ts), which it builds on: `migrateFleet` first brings
// the store's tables up to date (its own transaction), then, in one transaction under its own
// advisory lock, applies the fleet's missing versions and records each in
// `keelson_fleet_schema_version`. Workers and clients check the version before first use and
// refuse a database without it (`not-migrated`) or with a newer one (`newer-version`).
import { errorMessage } from "../errors/index.js";
import { type MigrateResult, migrate, type PgPool, type PostgresTarget } from "../store/postgres/index.js";
import { openPool } from "./fleet-pool.js";
import { FleetError } from "./types.js";

/** The fleet schema version this Keelson reads and writes. */
export const FLEET_SCHEMA_VERSION = 10;

/** `pg_advisory_xact_lock` key of the fleet migration (the store's key + 1: "keelson" in ASCII is the store's). */
const FLEET_MIGRATION_LOCK = "30229308793646959";

/** Each migration takes the fleet schema from version i to i + 1 (index i). Never edit a released one: add the next. */
const MIGRATIONS: readonly string[] = [
  `CREATE TABLE keelson_turns (
     id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
     session_id text NOT NULL REFERENCES keelson_sessions (id),
     prompt text NOT NULL,
     profile text NOT NULL,
     status text NOT NULL DEFAULT 'queued'
       CHECK (status IN ('queued', 'running', 'done', 'failed', 'interrupted')),
     attempts integer NOT NULL DEFAULT 0,
     start_seq bigint,
     claimed_by text,
     claimed_at timestamptz,
     claim_epoch bigint,
     outcome jsonb,
     error text,
     enqueued_at timestamptz NOT NULL DEFAULT now(),
     started_at timestamptz,
     finished_at timestamptz,
     updated_at timestamptz NOT NULL DEFAULT now()
   );
   CREATE INDEX keelson_turns_open ON keelson_turns (session_id, id) WHERE status IN ('queued', 'running');
   CREATE UNIQUE INDEX keelson_turns_one_running ON keelson_turns (session_id) WHERE status = 'running';`,
  // 2: how many claims got as far as sending the prompt (each may have called the model) before
  // being queued again with nothing saved — so a turn failed for too many attempts says so (#20 F16).
  `ALTER TABLE keelson_turns ADD COLUMN started_attempts integer NOT NULL DEFAULT 0;`,
  // 3: a client follows the turn (until then; renewed while it waits): the worker that starts it
  // publishes its events from its start (decision 0016).
  `ALTER TABLE keelson_turns ADD COLUMN followed_until timestamptz;`,
  // 4: a queued decision on a pending approval (#23 §1) — the row continues a paused turn through
  // agent.decide instead of sending a prompt — and the typed code of a refused input
  // (already-decided, cancelled, awaiting-approval, …) so a client can branch on it.
  `ALTER TABLE keelson_turns ADD COLUMN decision jsonb;
   ALTER TABLE keelson_turns ADD COLUMN error_code text;`,
  // 5: the queue protocol changed (#20 F21, decision 0030) — workers hear enqueues and claims on
  // keelson_queue only, so a client or worker of version 4 (which notifies or LISTENs
  // keelson_turns alone) must not share the database with version 5: the version check refuses it.
  `COMMENT ON TABLE keelson_turns IS 'Keelson turn queue; enqueues and claims notify keelson_turns and keelson_queue (fleet schema 5)';`,
  // 6: the claim's pick costs the same whatever the backlog (decision 0034), where it read every
  // open turn of the fleet. First, without locks, each branch's best candidate, each from an
  // index: the oldest queued turn of each served profile that heads its session (no older open
  // turn) under a free lease; the best preferred session (its head counted affinity_ms earlier);
  // and, only when `orphans` is true, the oldest orphan (a running head under a lapsed lease: its
  // worker died) — that search reads every running turn, O(the fleet's concurrency), so a worker
  // asks for it on a timer, not on every claim. Then, earliest candidate first, its branch takes
  // the first session it can lock (SKIP LOCKED: one another claimer holds is passed over) whose
  // lease is still free: the candidate itself unless another claim holds it. Only the session
  // returned is locked, so a concurrent claim never finds nothing while a turn waits. A function,
  // so its plans are made once per connection (generic: planning the statement cost more than
  // running it), whatever sits between worker and server (PgBouncer forgets prepared statements).
  `CREATE INDEX keelson_turns_queued ON keelson_turns (profile, enqueued_at, id) WHERE status = 'queued';
   CREATE FUNCTION keelson_pick_session(profiles text[], preferred text[], affinity_ms double precision, orphans boolean)
     RETURNS TABLE (session_id text, lease_epoch bigint, next_seq bigint, head_id bigint, head_status text)
     LANGUAGE plpgsql VOLATILE SET plan_cache_mode = force_generic_plan
   AS $pick$
   #variable_conflict use_column
   DECLARE
     c record;
   BEGIN
     FOR c IN
       WITH queued AS (
         SELECT 'queued' AS kind, w.profile, h.* FROM unnest(profiles) AS w (profile) CROSS JOIN LATERAL (
           SELECT t.session_id AS sid, t.id AS head, t.enqueued_at AS k
           FROM keelson_turns t JOIN keelson_sessions s ON s.id = t.session_id
           WHERE t.status = 'queued' AND t.profile = w.profile
             AND (s.lease_owner IS NULL OR s.lease_expires_at <= now())
             AND NOT EXISTS (SELECT 1 FROM keelson_turns o
               WHERE o.session_id = t.session_id AND o.status IN ('queued', 'running') AND o.id < t.id)
           ORDER BY t.enqueued_at, t.id LIMIT 1) h
       ), orphaned AS (
         SELECT 'orphaned' AS kind, NULL::text AS profile, t.session_id AS sid, t.id AS head, t.enqueued_at AS k
         FROM keelson_turns t JOIN keelson_sessions s ON s.id = t.session_id
         WHERE orphans AND t.status = 'running' AND (s.lease_owner IS NULL OR s.lease_expires_at <= now())
           AND NOT EXISTS (SELECT 1 FROM keelson_turns o
             WHERE o.session_id = t.session_id AND o.status IN ('queued', 'running') AND o.id < t.id)
         ORDER BY t.enqueued_at, t.id LIMIT 1
       ), affine AS (
         SELECT 'affine' AS kind, NULL::text AS profile, s.id AS sid, h.id AS head,
           h.enqueued_at - affinity_ms * interval '1 millisecond' AS k
         FROM keelson_sessions s CROSS JOIN LATERAL (
           SELECT o.id, o.status, o.profile, o.enqueued_at FROM keelson_turns o
           WHERE o.session_id = s.id AND o.status IN ('queued', 'running') ORDER BY o.id LIMIT 1) h
         WHERE s.id = ANY (preferred) AND (s.lease_owner IS NULL OR s.lease_expires_at <= now())
           AND (h.status = 'running' OR h.profile = ANY (profiles))
         ORDER BY 5, 4 LIMIT 1
       )
       SELECT * FROM (SELECT * FROM queued UNION ALL SELECT * FROM orphaned UNION ALL SELECT * FROM affine) b
       ORDER BY b.k, b.head
     LOOP
       IF c.kind = 'queued' THEN
         RETURN QUERY SELECT s.id, s.lease_epoch, s.next_seq, t.id, t.status
           FROM keelson_turns t JOIN keelson_sessions s ON s.id = t.session_id
           WHERE t.status = 'queued' AND t.profile = c.profile
             AND (s.lease_owner IS NULL OR s.lease_expires_at <= now())
             AND NOT EXISTS (SELECT 1 FROM keelson_turns o
               WHERE o.session_id = t.session_id AND o.status IN ('queued', 'running') AND o.id < t.id)
           ORDER BY t.enqueued_at, t.id LIMIT 1
           FOR NO KEY UPDATE OF s SKIP LOCKED;
       ELSIF c.kind = 'orphaned' THEN
         RETURN QUERY SELECT s.id, s.lease_epoch, s.next_seq, t.id, t.status
           FROM keelson_turns t JOIN keelson_sessions s ON s.id = t.session_id
           WHERE t.status = 'running' AND (s.lease_owner IS NULL OR s.lease_expires_at <= now())
             AND NOT EXISTS (SELECT 1 FROM keelson_turns o
               WHERE o.session_id = t.session_id AND o.status IN ('queued', 'running') AND o.id < t.id)
           ORDER BY t.enqueued_at, t.id LIMIT 1
           FOR NO KEY UPDATE OF s SKIP LOCKED;
       ELSE -- a preferred session held by another claim is among the others' (its profile's, or as an orphan)
         RETURN QUERY SELECT s.id, s.lease_epoch, s.next_seq, t.id, t.status
           FROM keelson_sessions s JOIN keelson_turns t ON t.id = c.head
           WHERE s.id = c.sid AND (s.lease_owner IS NULL OR s.lease_expires_at <= now())
           FOR NO KEY UPDATE OF s SKIP LOCKED;
       END IF;
       IF FOUND THEN RETURN; END IF;
     END LOOP;
   END
   $pick$;`,
  // 7: affinity means "this worker holds the log as it is" (decision 0035). A preferred session
  // comes with the next_seq of the log the worker holds, and counts as preferred only when the
  // stored log has not moved since: a session another worker ran meanwhile is a fresh load here
  // like anywhere, so it is no one's preference. (Preferring every session a worker ever served
  // made the preference meaningless once each worker had served most sessions: with 4 workers
  // 62–70 % of claims took a session whose log the worker no longer held.) Only the affine
  // branch changes; the function takes the held next_seqs beside the ids.
  `DROP FUNCTION keelson_pick_session(text[], text[], double precision, boolean);
   CREATE FUNCTION keelson_pick_session(profiles text[], preferred text[], preferred_next_seq bigint[],
       affinity_ms double precision, orphans boolean)
     RETURNS TABLE (session_id text, lease_epoch bigint, next_seq bigint, head_id bigint, head_status text)
     LANGUAGE plpgsql VOLATILE SET plan_cache_mode = force_generic_plan
   AS $pick$
   #variable_conflict use_column
   DECLARE
     c record;
   BEGIN
     FOR c IN
       WITH queued AS (
         SELECT 'queued' AS kind, w.profile, h.* FROM unnest(profiles) AS w (profile) CROSS JOIN LATERAL (
           SELECT t.session_id AS sid, t.id AS head, t.enqueued_at AS k
           FROM keelson_turns t JOIN keelson_sessions s ON s.id = t.session_id
           WHERE t.status = 'queued' AND t.profile = w.profile
             AND (s.lease_owner IS NULL OR s.lease_expires_at <= now())
             AND NOT EXISTS (SELECT 1 FROM keelson_turns o
               WHERE o.session_id = t.session_id AND o.status IN ('queued', 'running') AND o.id < t.id)
           ORDER BY t.enqueued_at, t.id LIMIT 1) h
       ), orphaned AS (
         SELECT 'orphaned' AS kind, NULL::text AS profile, t.session_id AS sid, t.id AS head, t.enqueued_at AS k
         FROM keelson_turns t JOIN keelson_sessions s ON s.id = t.session_id
         WHERE orphans AND t.status = 'running' AND (s.lease_owner IS NULL OR s.lease_expires_at <= now())
           AND NOT EXISTS (SELECT 1 FROM keelson_turns o
             WHERE o.session_id = t.session_id AND o.status IN ('queued', 'running') AND o.id < t.id)
         ORDER BY t.enqueued_at, t.id LIMIT 1
       ), affine AS (
         SELECT 'affine' AS kind, NULL::text AS profile, s.id AS sid, h.id AS head,
           h.enqueued_at - affinity_ms * interval '1 millisecond' AS k
         FROM unnest(preferred, preferred_next_seq) AS p (id, held)
           JOIN keelson_sessions s ON s.id = p.id AND s.next_seq = p.held
           CROSS JOIN LATERAL (
             SELECT o.id, o.status, o.profile, o.enqueued_at FROM keelson_turns o
             WHERE o.session_id = s.id AND o.status IN ('queued', 'running') ORDER BY o.id LIMIT 1) h
         WHERE (s.lease_owner IS NULL OR s.lease_expires_at <= now())
           AND (h.status = 'running' OR h.profile = ANY (profiles))
         ORDER BY 5, 4 LIMIT 1
       )
       SELECT * FROM (SELECT * FROM queued UNION ALL SELECT * FROM orphaned UNION ALL SELECT * FROM affine) b
       ORDER BY b.k, b.head
     LOOP
       IF c.kind = 'queued' THEN
         RETURN QUERY SELECT s.id, s.lease_epoch, s.next_seq, t.id, t.status
           FROM keelson_turns t JOIN keelson_sessions s ON s.id = t.session_id
           WHERE t.status = 'queued' AND t.profile = c.profile
             AND (s.lease_owner IS NULL OR s.lease_expires_at <= now())
             AND NOT EXISTS (SELECT 1 FROM keelson_turns o
               WHERE o.session_id = t.session_id AND o.status IN ('queued', 'running') AND o.id < t.id)
           ORDER BY t.enqueued_at, t.id LIMIT 1
           FOR NO KEY UPDATE OF s SKIP LOCKED;
       ELSIF c.kind = 'orphaned' THEN
         RETURN QUERY SELECT s.id, s.lease_epoch, s.next_seq, t.id, t.status
           FROM keelson_turns t JOIN keelson_sessions s ON s.id = t.session_id
           WHERE t.status = 'running' AND (s.lease_owner IS NULL OR s.lease_expires_at <= now())
             AND NOT EXISTS (SELECT 1 FROM keelson_turns o
               WHERE o.session_id = t.session_id AND o.status IN ('queued', 'running') AND o.id < t.id)
           ORDER BY t.enqueued_at, t.id LIMIT 1
           FOR NO KEY UPDATE OF s SKIP LOCKED;
       ELSE -- a preferred session held by another claim is among the others' (its profile's, or as an orphan)
         RETURN QUERY SELECT s.id, s.lease_epoch, s.next_seq, t.id, t.status
           FROM keelson_sessions s JOIN keelson_turns t ON t.id = c.head
           WHERE s.id = c.sid AND (s.lease_owner IS NULL OR s.lease_expires_at <= now())
           FOR NO KEY UPDATE OF s SKIP LOCKED;
       END IF;
       IF FOUND THEN RETURN; END IF;
     END LOOP;
   END
   $pick$;`,
  // 8: the follow key (decision 0037): followed turns' live messages and follow announcements go
  // sealed under it (follow-seal.ts), so a login of the database that may not read this table can
  // neither read them nor forge them. 32 random bytes from two v4 UUIDs (pg_strong_random; 244
  // random bits), made once by the migration; readable only by the roles the owner grants.
  `CREATE TABLE keelson_fleet_secret (
     one boolean PRIMARY KEY DEFAULT true CHECK (one),
     follow_key bytea NOT NULL CHECK (length(follow_key) = 32)
   );
   INSERT INTO keelson_fleet_secret (follow_key)
     VALUES (decode(replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''), 'hex'));`,
  // 9: workers' liveness (decision 0040, worker-liveness.ts): each running worker has a row here
  // and holds the session-level advisory lock (WORKER_LOCK_CLASS, lock_key) on a connection of its
  // own; a worker whose lock has been gone for a grace period is dead, and its leases are expired
  // at once instead of at their end.
  `CREATE TABLE keelson_workers (
     owner text PRIMARY KEY,
     lock_key integer NOT NULL,
     started_at timestamptz NOT NULL DEFAULT now(),
     locked_at timestamptz NOT NULL DEFAULT now(),
     missing_since timestamptz
   );`,
  // 10: the profiles each live worker serves, so that a client can say that no live worker serves
  // a queued turn's profile (`liveWorkers({ profile })`); empty for a worker of an older Keelson.
  "ALTER TABLE keelson_workers ADD COLUMN profiles text[] NOT NULL DEFAULT '{}';",
];

const VERSION_TABLE = `CREATE TABLE IF NOT EXISTS keelson_fleet_schema_version (
  version integer PRIMARY KEY,
  applied_at timestamptz NOT NULL DEFAULT now()
)`;

/**
 * Creates or upgrades the session store's tables and then the turn queue's to
 * FLEET_SCHEMA_VERSION: idempotent, each in one transaction under its advisory lock. Returns the
 * fleet schema's versions before and after. A URL's pool is opened and closed here.
 */
export async function migrateFleet(target: PostgresTarget): Promise<MigrateResult> {
  const opened = await openPool(target.pool ?? target.url);
  try {
    await migrate({ pool: opened.pool });
    const client = await opened.pool.connect();
    let broken: Error | undefined;
    try {
      await client.query("BEGIN");
      await client.query(`SELECT pg_advisory_xact_lock(${FLEET_MIGRATION_LOCK})`);
      await client.query(VERSION_TABLE);
      const from = await fleetVersionOf(client);
      if (from > FLEET_SCHEMA_VERSION) throw newerFleetSchema(opened.label, from);
      for (let v = from; v < FLEET_SCHEMA_VERSION; v++) {
        await client.query(MIGRATIONS[v]!);
        await client.query("INSERT INTO keelson_fleet_schema_version (version) VALUES ($1)", [v + 1]);
      }
      await client.query("COMMIT");
      return { from, to: FLEET_SCHEMA_VERSION };
    } catch (e) {
      await client.query("ROLLBACK").catch((rollbackError: unknown) => {
        broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
      });
      if (e instanceof FleetError) throw e;
      throw new FleetError("unavailable", `${opened.label}: migrating the fleet schema failed: ${errorMessage(e)}`, {
        cause: e,
      });
    } finally {
      client.release(broken);
    }
  } finally {
    await opened.close();
  }
}

async function fleetVersionOf(client: Pick<PgPool, "query">): Promise<number> {
  const { rows } = await client.query<{ v: number | null }>(
    "SELECT max(version) AS v FROM keelson_fleet_schema_version",
  );
  return rows[0]?.v ?? 0;
}

const newerFleetSchema = (label: string, version: number): FleetError =>
  new FleetError(
    "newer-version",
    `${label}: the Keelson fleet schema is version ${version}, written by a newer Keelson; this Keelson uses version ${FLEET_SCHEMA_VERSION} (upgrade Keelson)`,
  );

/** Refuses a database whose fleet schema is not exactly FLEET_SCHEMA_VERSION (missing, older or newer). */
export async function checkFleetSchema(pool: PgPool, label: string): Promise<void> {
  let version: number;
  try {
    version = await fleetVersionOf(pool);
  } catch (e) {
    if ((e as { code?: unknown }).code !== "42P01") throw e; // undefined_table: never migrated
    version = 0;
  }
  if (version > FLEET_SCHEMA_VERSION) throw newerFleetSchema(label, version);
  if (version < FLEET_SCHEMA_VERSION)
    throw new FleetError(
      "not-migrated",
      `${label}: ${version === 0 ? "has no Keelson turn queue" : `the Keelson fleet schema is version ${version}, older than this Keelson's ${FLEET_SCHEMA_VERSION}`}; run \`keelson db migrate --url <url>\` (or migrateFleet() from keelson/fleet) first`,
    );
}
