// W6 part 4 — what the claim's pick costs PostgreSQL as the queue's backlog grows (decision
// 0034): N sessions with a queued turn each, 32 more whose turns run under a live lease, then
// the same connection picks over and over — the pick every claim makes (`keelson_pick_session`,
// fleet schema 6, its affinity made exact in 7; with and without its orphan search) next to the schema-5 statement it replaced
// (kept here as the baseline: it read every open turn and session). Backend CPU per pick is read
// from /proc for the connection's server process; nothing is claimed (each pick runs in its own
// transaction and releases its lock).
import { readFileSync } from "node:fs";
import pg from "pg";
import { migrateFleet } from "../../src/fleet/index.js";
import { PICK_SESSION } from "../../src/fleet/turn-queries.js";

const TICK_MS = 10; // USER_HZ on Linux: /proc stat times are in 1/100 s
/** How long each pick variant runs per backlog (enough 10 ms CPU ticks to read). */
const RUN_MS = 1500;
export const BACKLOGS = [100, 1000, 10_000] as const;
const RUNNING = 32;

/** The schema-5 pick (the baseline): every open turn's session head by DISTINCT ON, sorted by age. */
const SCHEMA_5_PICK = `SELECT s.id, s.next_seq::text AS next_seq
  FROM (SELECT DISTINCT ON (session_id) session_id, id, profile, status, enqueued_at
          FROM keelson_turns WHERE status IN ('queued', 'running')
          ORDER BY session_id, id) h
  JOIN keelson_sessions s ON s.id = h.session_id
  WHERE (s.lease_owner IS NULL OR s.lease_expires_at <= now())
    AND (h.status = 'running' OR h.profile = ANY ($1::text[]))
  ORDER BY h.enqueued_at - CASE WHEN s.id = ANY ($2::text[]) THEN $3 * interval '1 millisecond' ELSE interval '0' END,
    h.id
  LIMIT 1
  FOR NO KEY UPDATE OF s SKIP LOCKED`;

export interface PickRow {
  readonly backlog: number;
  /** Backend CPU ms and wall ms per pick, per variant. */
  readonly schema5: { readonly cpuMs: number; readonly wallMs: number };
  readonly fn: { readonly cpuMs: number; readonly wallMs: number };
  readonly fnOrphans: { readonly cpuMs: number; readonly wallMs: number };
}

export async function pickBacklogRows(url: string): Promise<PickRow[]> {
  await migrateFleet({ url });
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  pool.on("error", () => undefined);
  try {
    const rows: PickRow[] = [];
    let have = 0;
    for (const backlog of BACKLOGS) {
      await pool.query(
        `WITH s AS (INSERT INTO keelson_sessions (id, header, created_at, next_seq)
           SELECT 'pick-' || g, '{}', g, 1 FROM generate_series($1::int, $2::int - 1) g RETURNING id)
         INSERT INTO keelson_turns (session_id, prompt, profile) SELECT id, 'p', 'default' FROM s`,
        [have, backlog + RUNNING],
      );
      have = backlog + RUNNING;
      await pool.query(
        `UPDATE keelson_sessions SET lease_owner = 'busy', lease_expires_at = now() + interval '1 hour'
         WHERE id IN (SELECT 'pick-' || g FROM generate_series(0, $1::int - 1) g)`,
        [RUNNING],
      );
      await pool.query(
        `UPDATE keelson_turns SET status = 'running'
         WHERE session_id IN (SELECT 'pick-' || g FROM generate_series(0, $1::int - 1) g)`,
        [RUNNING],
      );
      await pool.query("ANALYZE keelson_turns");
      await pool.query("ANALYZE keelson_sessions");
      const preferred = [`pick-${RUNNING + 5}`];
      rows.push({
        backlog,
        schema5: await picks(pool, SCHEMA_5_PICK, [["default"], preferred, 1000]),
        fn: await picks(pool, PICK_SESSION, [["default"], preferred, 1000, false, [1]]),
        fnOrphans: await picks(pool, PICK_SESSION, [["default"], preferred, 1000, true, [1]]),
      });
    }
    return rows;
  } finally {
    await pool.end();
  }
}

async function picks(pool: pg.Pool, text: string, values: unknown[]): Promise<{ cpuMs: number; wallMs: number }> {
  const client = await pool.connect();
  try {
    const pid = (await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!.pid;
    const once = async (): Promise<void> => {
      await client.query("BEGIN");
      const { rows } = await client.query(text, values);
      if (rows.length !== 1) throw new Error("the pick found no session");
      await client.query("ROLLBACK");
    };
    for (let i = 0; i < 10; i++) await once(); // plans made, caches warm
    const cpu0 = backendCpuMs(pid);
    const t0 = performance.now();
    let n = 0;
    while (performance.now() - t0 < RUN_MS) {
      await once();
      n++;
    }
    const wallMs = (performance.now() - t0) / n;
    return { cpuMs: (backendCpuMs(pid) - cpu0) / n, wallMs };
  } finally {
    client.release();
  }
}

/** CPU (user + system) of one server process so far, ms. */
function backendCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}
