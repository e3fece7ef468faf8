// vitest globalSetup: a directory for the run's one `npm pack` of Keelson, `provide`d as
// `packDir`. The package test files share that tarball (test/package/consumer.ts `sharedPack`):
// the first to need it packs, the others wait for it; nothing is packed when none of them runs.
// Teardown removes the directory.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    /** The run's directory for the shared tarball (see test/package/consumer.ts). */
    packDir: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = await mkdtemp(join(tmpdir(), "keelson-pack-run-"));
  project.provide("packDir", dir);
  return () => rm(dir, { recursive: true, force: true });
}
