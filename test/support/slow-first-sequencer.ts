// The suite's file order: the files that take longest (measured: `npm test` prints each file's
// time) start first, so none of them starts last and runs alone at the end while the other
// workers sit idle. Vitest orders by the last run's durations when it has them; a fresh clone
// (CI) has none and would order by file size, which puts e.g. a short file with a long install
// late. Files not listed keep vitest's own order, after these.
import { relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/** Longest first (the mean of two 2026-12-06 runs, a checkout and a fresh clone, 2 cores); a stale entry only costs a slightly worse order. */
const SLOWEST = [
  "test/package/package.test.ts",
  "test/mcp/conformance.test.ts",
  "test/inspect/browser.test.ts",
  "test/fleet/cli.test.ts",
  "test/package/hello-world.test.ts",
  "test/cli/wire.test.ts",
  "test/mcp/cli.test.ts",
  "test/cli/sessions-listing.test.ts",
  "test/cli/approvals.test.ts",
  "test/reliability/secrets.test.ts",
  "test/cli/db-command.test.ts",
  "test/inspect/server.test.ts",
  "test/cli/bad-input.test.ts",
  "test/cli/approvals-chat.test.ts",
  "test/cli/postgres-store.test.ts",
  "test/fleet/follow-processes.test.ts",
  "test/package/optional-peers.test.ts",
  "test/cli/run-stdin-safety.test.ts",
  "test/fleet/follow.test.ts",
  "test/mcp/hostile.test.ts",
  "test/inspect/postgres-source.test.ts",
  "test/architecture/plain-summary.test.ts",
  "test/fleet/worker-kill.test.ts",
  "test/package/zod3-project.test.ts",
  "test/cli/sandbox.test.ts",
  "test/cli/commands.test.ts",
  "test/fleet/turn-queue.test.ts",
  "test/cli/replay.test.ts",
  "test/fleet/fleet-reliability.test.ts",
  "test/store/postgres-watch.test.ts",
];

export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const base = await super.sort(files);
    const rank = (file: TestSpecification): number => {
      const at = SLOWEST.indexOf(relative(file.project.config.root, file.moduleId));
      return at < 0 ? SLOWEST.length : at;
    };
    return base
      .map((file, order) => ({ file, order, rank: rank(file) }))
      .sort((a, b) => a.rank - b.rank || a.order - b.order)
      .map(({ file }) => file);
  }
}
