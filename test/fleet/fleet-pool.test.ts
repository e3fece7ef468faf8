// The worker's pool survives its connections being terminated (pg_terminate_backend, a server
// restart) at any moment, including a connection checked out between two statements of a
// transaction: the process does not crash on an unhandled `error` event, the next statement on
// that connection fails, and the pool serves new connections.
import { expect, test } from "vitest";
import { openPool } from "../../src/fleet/fleet-pool.js";
import { useFleetDatabase } from "./fleet-harness.js";

const database = useFleetDatabase();

test("a checked-out connection terminated between statements fails its next statement; the process and the pool carry on", async () => {
  const opened = await openPool(database().url, { applicationName: "keelson-worker pool-test" });
  try {
    const client = await opened.pool.connect();
    await client.query("BEGIN");
    const [killed] = await database().query<{ n: number }>(
      "SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE application_name = 'keelson-worker pool-test'",
    );
    expect(killed).toEqual({ n: 1 });
    // The server's FATAL arrives as an `error` event on the idle, checked-out client.
    await new Promise((resolve) => setTimeout(resolve, 200));
    await expect(client.query("SELECT 1")).rejects.toThrow();
    client.release(true);
    const { rows } = await opened.pool.query<{ one: number }>("SELECT 1 AS one");
    expect(rows).toEqual([{ one: 1 }]);
  } finally {
    await opened.close();
  }
});
