// The pools Keelson opens name their parameterized statements (src/store/postgres/
// prepared-statements.ts): parsed and planned once per connection. A server that lost the
// statements (what a transaction-mode pooler looks like to a client: 26000 on a statement the
// client had prepared) costs one retry unnamed outside a transaction and turns naming off for
// the pool; inside a transaction that statement fails, and the pool goes on unnamed.
import { Pool } from "pg";
import { afterEach, describe, expect, test } from "vitest";
import { watchConnections } from "../../src/store/postgres/prepared-statements.js";
import { usePgDatabase } from "./postgres-harness.js";

const database = usePgDatabase();
const pools: Pool[] = [];
afterEach(async () => {
  for (const pool of pools.splice(0)) await pool.end().catch(() => undefined);
});

/** A pool of one connection wired as the store's and the fleet's pools are. */
function pool(url = database().url): { pool: Pool; state: { naming: boolean } } {
  const p = new Pool({ connectionString: url, max: 1 });
  pools.push(p);
  p.on("error", () => undefined);
  return { pool: p, state: watchConnections(p, url) };
}

/** The connection's own prepared statements (pg_prepared_statements is per session), sent unnamed. */
async function preparedOn(p: Pool): Promise<string[]> {
  const { rows } = await p.query<{ name: string }>(
    "SELECT name FROM pg_prepared_statements WHERE name LIKE 'keelson_%' ORDER BY name",
  );
  return rows.map((r) => r.name);
}

const SESSIONS = "SELECT count(*)::int AS n FROM keelson_sessions WHERE id <> $1";

describe("named statements", () => {
  test("a parameterized statement is prepared once on the connection and reused; one without values is not named", async () => {
    const { pool: p } = pool();
    for (let i = 0; i < 3; i++) expect((await p.query(SESSIONS, [`x${i}`])).rows).toEqual([{ n: 0 }]);
    await p.query("SELECT 1");
    const names = await preparedOn(p);
    expect(names).toHaveLength(1);
    expect(names[0]).toMatch(/^keelson_[0-9a-f]{24}$/);
    // The promise form and a checked-out client name it the same way.
    const client = await p.connect();
    try {
      expect((await client.query(SESSIONS, ["y"])).rows).toEqual([{ n: 0 }]);
      expect((await client.query("SELECT $1::text AS v", ["z"])).rows).toEqual([{ v: "z" }]);
    } finally {
      client.release();
    }
    expect(await preparedOn(p)).toHaveLength(2);
  });

  test("statements the server lost (a pooler's symptom): retried unnamed, naming off for the pool", async () => {
    const { pool: p, state } = pool();
    await p.query(SESSIONS, ["a"]);
    await p.query("DEALLOCATE ALL"); // the server forgets; the client still thinks it prepared it
    expect((await p.query(SESSIONS, ["b"])).rows).toEqual([{ n: 0 }]);
    expect(state.naming).toBe(false);
    await p.query("SELECT $1::int AS v", [7]);
    expect(await preparedOn(p)).toEqual([]);
  });

  test("inside a transaction the statement fails once (the transaction is aborted); the pool goes on unnamed", async () => {
    const { pool: p, state } = pool();
    await p.query(SESSIONS, ["a"]);
    await p.query("DEALLOCATE ALL");
    const client = await p.connect();
    try {
      await client.query("BEGIN");
      await expect(client.query(SESSIONS, ["b"])).rejects.toMatchObject({ code: "26000" });
      await client.query("ROLLBACK");
      expect(state.naming).toBe(false);
      await client.query("BEGIN");
      expect((await client.query(SESSIONS, ["c"])).rows).toEqual([{ n: 0 }]);
      await client.query("COMMIT");
    } finally {
      client.release();
    }
  });

  test("a URL with pgbouncer=true starts with naming off", async () => {
    const url = new URL(database().url);
    url.searchParams.set("pgbouncer", "true");
    const { pool: p, state } = pool(url.toString());
    expect(state.naming).toBe(false);
    await p.query(SESSIONS, ["a"]);
    expect(await preparedOn(p)).toEqual([]);
  });
});
