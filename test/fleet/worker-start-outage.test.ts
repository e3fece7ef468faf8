// A worker started while its database is away (restarting, failing over: every connection
// dropped) waits it out instead of exiting, and starts serving once the server is back; past
// `waitForDatabaseMs` it fails with `unavailable` naming the server; a schema problem is not
// waited on. (#20 finding: a worker exited on a connection terminated during its start-up check.)
import { expect, test } from "vitest";
import { FleetError, startWorker } from "../../src/fleet/index.js";
import { until } from "../support/until.js";
import { profiles } from "./fixtures/fleet-profiles.mjs";
import { useFleetDatabase } from "./fleet-harness.js";
import { startTcpProxy } from "./tcp-proxy.js";

const database = useFleetDatabase();

test("a worker starting during an outage retries its schema check and serves once the server is back", async () => {
  const proxy = await startTcpProxy(database().url);
  try {
    proxy.down();
    let settled = "pending";
    const starting = startWorker({ store: proxy.url, profiles, pollMs: 50 });
    starting.then(
      () => (settled = "started"),
      () => (settled = "failed"),
    );
    await until(() => proxy.refused >= 3, "the worker to try the database again during the outage");
    expect(settled).toBe("pending");
    proxy.up();
    const worker = await starting;
    try {
      const client = await database().client();
      const id = await client.enqueueTurn({ sessionId: "start-outage", prompt: "hello", profile: "echo" });
      expect(await client.awaitTurn(id)).toMatchObject({ status: "done", outcome: { reason: "completed" } });
    } finally {
      await worker.stop();
    }
  } finally {
    await proxy.close();
  }
}, 60_000);

test("an outage longer than waitForDatabaseMs fails start-up with unavailable, naming the server", async () => {
  const proxy = await startTcpProxy(database().url);
  try {
    proxy.down();
    const error = await startWorker({ store: proxy.url, profiles, waitForDatabaseMs: 200 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FleetError);
    expect(error).toMatchObject({ code: "unavailable", message: expect.stringContaining("127.0.0.1") });
    expect(proxy.refused).toBeGreaterThan(0);
  } finally {
    await proxy.close();
  }
});

test("waitForDatabaseMs must be an integer ≥ 0", async () => {
  await expect(startWorker({ store: database().url, profiles, waitForDatabaseMs: -1 })).rejects.toMatchObject({
    code: "invalid-options",
    message: expect.stringContaining("waitForDatabaseMs"),
  });
});
