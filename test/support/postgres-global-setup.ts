// vitest globalSetup: one throwaway PostgreSQL cluster for the whole run (see postgres.ts). Its
// admin URL is `provide`d as `pgAdminUrl` (tests read it with `inject`); teardown stops the server
// and removes its dir. Missing server binaries fail the run: no PostgreSQL test is ever skipped.
import type { TestProject } from "vitest/node";
import { type Cluster, startCluster } from "./postgres.js";

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const started = performance.now();
  const cluster: Cluster = await startCluster();
  if (process.env.KEELSON_PG_TIMING === "1")
    process.stderr.write(`keelson: PostgreSQL test cluster started in ${Math.round(performance.now() - started)} ms\n`);
  project.provide("pgAdminUrl", cluster.adminUrl);
  return () => cluster.stop();
}
