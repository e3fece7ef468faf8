// The test cluster helper itself (test/support/postgres.ts): it starts a working server in a
// temp dir and removes it again, and without server binaries it fails loudly — the PostgreSQL
// tests are never skipped for lack of PostgreSQL.
import { existsSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { adminQuery, startCluster } from "../support/postgres.js";

describe("the throwaway PostgreSQL cluster", () => {
  test("starts on 127.0.0.1 with trust auth, answers queries, and stop removes its dir", async () => {
    const started = performance.now();
    const cluster = await startCluster();
    const ms = performance.now() - started;
    process.stderr.write(`keelson: a throwaway PostgreSQL cluster started in ${ms.toFixed(0)} ms\n`);
    try {
      expect(cluster.adminUrl).toBe(`postgres://postgres@127.0.0.1:${cluster.port}/postgres`);
      expect(await adminQuery(cluster.adminUrl, "SHOW fsync")).toEqual([{ fsync: "off" }]);
    } finally {
      await cluster.stop();
    }
    expect(existsSync(cluster.dir)).toBe(false);
  });

  test("without server binaries it fails with a message that says how to install them", async () => {
    await expect(startCluster("/nonexistent/postgresql")).rejects.toThrow(/apt-get install -y postgresql/);
  });
});
