import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // A bound on hangs, not a speed goal: on a loaded 2-core machine a test that spawns the CLI,
    // a browser or PostgreSQL work can take several seconds.
    testTimeout: 30_000,
    globalSetup: ["./test/support/fresh-build.ts", "./test/support/postgres-global-setup.ts"],
    reporters: ["default", "./test/support/plain-summary-reporter.ts"],
  },
});
