// Setup file (vitest.config.ts `setupFiles`): evaluated before every test file, so the clean-ups
// support modules register (test-cleanups.ts) run after each test (and each file) of every file. Registered
// before the file's own hooks, it runs after them (vitest runs after-hooks in reverse order).
// After each file the sandbox's spare pids cgroups go too: vitest ends its workers with a signal,
// so their exit handler never runs (src/sandbox/pids-cgroup.ts).
import { afterAll, afterEach } from "vitest";
import { removeSpareCgroups } from "../../src/sandbox/pids-cgroup.js";
import { runFileCleanups, runTestCleanups } from "./test-cleanups.js";

afterEach(runTestCleanups);
afterAll(runFileCleanups);
afterAll(removeSpareCgroups);
