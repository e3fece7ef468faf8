// Reading a stored log reads that log's rows, whatever else keelson_events holds: LOAD_LOG and
// EVENT_RANGE read each ancestor's rows with an index range scan (a LATERAL subquery the planner
// may not flatten), under the generic plan a prepared statement gets. A plain join let the
// planner, guessing 101 rows for the recursive chain, scan every session's events instead.
import pg from "pg";
import { afterEach, expect, test } from "vitest";
import { EVENT_RANGE, LOAD_LOG } from "../../src/store/postgres/queries.js";
import { newSession, twoTurnLog } from "../support/builders.js";
import { storeSession } from "../support/store-contract.js";
import { usePgDatabase } from "./postgres-harness.js";

const database = usePgDatabase();
afterEach(async () => {
  await database().closeStores();
  await database().empty();
});

test("a load and a range read touch the session's own rows, not the table's (generic plans, 12,000 other rows)", async () => {
  const store = database().open();
  const session = twoTurnLog(newSession("mine"));
  await storeSession(store, session);
  await store.release("mine");
  await database().query(
    `INSERT INTO keelson_sessions (id, header, created_at, next_seq) SELECT 'other-' || g, '{}', g, 60 FROM generate_series(1, 200) g`,
  );
  await database().query(
    `INSERT INTO keelson_events (session_id, seq, line)
     SELECT 'other-' || g, q, repeat('x', 300) FROM generate_series(1, 200) g, generate_series(0, 59) q`,
  );
  await database().query("ANALYZE keelson_events");
  await database().query("ANALYZE keelson_sessions");

  const client = new pg.Client({ connectionString: database().url });
  await client.connect();
  try {
    await client.query("SET plan_cache_mode = force_generic_plan"); // as a prepared statement runs after a few calls
    await client.query("BEGIN");
    const eventRowsRead = async (): Promise<number> =>
      (
        await client.query<{ n: number }>(
          `SELECT (pg_stat_get_xact_tuples_returned('keelson_events'::regclass)
                 + pg_stat_get_xact_tuples_fetched('keelson_events'::regclass))::int AS n`,
        )
      ).rows[0]!.n;
    const read = async (name: string, text: string, values: unknown[]): Promise<{ rows: number; read: number }> => {
      await client.query({ name, text, values }); // prepared, and its plan made
      const before = await eventRowsRead();
      const { rows } = await client.query({ name, text, values });
      return { rows: rows.length, read: (await eventRowsRead()) - before };
    };
    const whole = await read("load", LOAD_LOG, ["mine"]);
    expect(whole.rows).toBe(session.length + 1); // the header row and every event
    expect(whole.read).toBeLessThanOrEqual(2 * session.length); // before: 12,000 and more
    const tail = await read("range", EVENT_RANGE, ["mine", session.length - 3, session.length]);
    expect(tail.rows).toBe(3);
    expect(tail.read).toBeLessThanOrEqual(6);
    await client.query("ROLLBACK");
  } finally {
    await client.end();
  }
});
