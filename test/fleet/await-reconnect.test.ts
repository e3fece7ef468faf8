// awaitTurn (and so `keelson send`) rides out a database that goes away while it waits (#20 F3):
// its LISTEN connection terminated by the server, then every connection cut and refused for a
// while (a restart) — the wait carries on, reconnects, and returns the turn once a worker has
// run it; only the caller's timeout ends it.
import { expect, test } from "vitest";
import { FleetError, openFleetClient } from "../../src/fleet/index.js";
import { useFleetDatabase } from "./fleet-harness.js";
import { profiles } from "./fixtures/fleet-profiles.mjs";
import { startTcpProxy } from "./tcp-proxy.js";
import { until } from "../support/until.js";

const database = useFleetDatabase();

test("awaitTurn keeps waiting through a terminated LISTEN connection and an outage, and returns the turn done", async () => {
  const proxy = await startTcpProxy(database().url);
  const client = await openFleetClient(proxy.url);
  try {
    const id = await client.enqueueTurn({ sessionId: "f3-outage", prompt: "after the outage", profile: "echo" });
    let settled: "pending" | "resolved" | "rejected" = "pending";
    const waiting = client.awaitTurn(id, { pollMs: 20, timeoutMs: 60_000 });
    waiting.then(
      () => (settled = "resolved"),
      () => (settled = "rejected"),
    );
    // The server ends the client's LISTEN connection (as a failover or an operator would).
    const listener = async () =>
      database().query<{ pid: number }>(
        "SELECT pid FROM pg_stat_activity WHERE application_name = 'keelson-client' AND query LIKE 'LISTEN%' AND datname = current_database()",
      );
    await until(async () => (await listener()).length === 1, "the client to LISTEN");
    const [first] = await listener();
    await database().query("SELECT pg_terminate_backend($1)", [first!.pid]);
    // Then the server is away: every connection cut, every new one dropped, while awaitTurn looks again.
    proxy.down();
    await until(() => proxy.refused >= 3, "awaitTurn to try the database again during the outage");
    expect(settled).toBe("pending");
    proxy.up();
    await until(async () => (await listener()).some((l) => l.pid !== first!.pid), "the LISTEN connection to reopen");
    await database().worker({ profiles });
    const record = await waiting;
    expect(record).toMatchObject({ id, status: "done", outcome: { reason: "completed" } });
  } finally {
    await client.close();
    await proxy.close();
  }
}, 60_000);

test("an outage that outlasts the caller's timeout ends the wait with timeout, naming the failure", async () => {
  const proxy = await startTcpProxy(database().url);
  const client = await openFleetClient(proxy.url);
  try {
    const id = await client.enqueueTurn({ sessionId: "f3-timeout", prompt: "nobody serves this", profile: "none" });
    proxy.down();
    const error = await client.awaitTurn(id, { pollMs: 20, timeoutMs: 300 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FleetError);
    expect(error).toMatchObject({ code: "timeout", message: expect.stringMatching(/no answer from the database/) });
    expect(proxy.refused).toBeGreaterThan(0);
  } finally {
    await client.close();
    await proxy.close();
  }
});
