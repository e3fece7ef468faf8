import { defineConfig } from "vitest/config";
import SlowFirstSequencer from "./test/support/slow-first-sequencer.js";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // A bound on hangs, not a speed goal: on a loaded 2-core machine a test that spawns the CLI,
    // a browser or PostgreSQL work can take several seconds.
    testTimeout: 30_000,
    // Same kind of bound for set-up and clean-up hooks: removing a consumer project's
    // node_modules took over 10 s (vitest's default) on a loaded CI machine.
    hookTimeout: 120_000,
    // Vitest's default on 2 cores is one worker; many files wait on a child process (the CLI,
    // PostgreSQL, Chromium), so three workers keep both cores busy (suite < 6 min on 2 cores).
    maxWorkers: 3,
    // Files share each worker's module cache instead of re-importing src/ per file: the suite's
    // import time fell from ~190 s to ~70 s (summed over files). Tests restore what they change
    // (env, cwd, timers) and keep no module-level state between files.
    isolate: false,
    sequence: { sequencer: SlowFirstSequencer },
    globalSetup: [
      "./test/support/fresh-build.ts",
      "./test/support/postgres-global-setup.ts",
      "./test/support/pack-global-setup.ts",
      "./test/support/cgroup-sweep-global-setup.ts",
    ],
    // After each test of every file: what support modules made for it (test/support/test-cleanups.ts).
    setupFiles: ["./test/support/run-test-cleanups.ts"],
    reporters: ["default", "./test/support/plain-summary-reporter.ts"],
  },
});
