// vitest globalSetup: one throwaway PostgreSQL cluster for the whole run (see postgres.ts). Its
// admin URL is `provide`d as `pgAdminUrl` (tests read it with `inject`); teardown stops the server
// and removes its dir (a watchdog does it if the runner is killed first). Missing server binaries fail the run: no PostgreSQL test is ever skipped.
import type { TestProject } from "vitest/node";
import { type Cluster, startCluster } from "./postgres.js";
import { guardCluster } from "./postgres-orphan-guard.js";

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const started = performance.now();
  const cluster: Cluster = await startCluster();
  if (process.env.KEELSON_PG_TIMING === "1")
    process.stderr.write(`keelson: PostgreSQL test cluster started in ${Math.round(performance.now() - started)} ms\n`);
  const unguard = guardCluster(cluster.dir); // a runner killed mid-run does not leave the server running
  project.provide("pgAdminUrl", cluster.adminUrl);
  return () => {
    unguard();
    return cluster.stop();
  };
}
