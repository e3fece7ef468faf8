// Setup file (vitest.config.ts `setupFiles`): evaluated before every test file, so the clean-ups
// support modules register (test-cleanups.ts) run after each test of every file. Registered
// before the file's own hooks, it runs after them (vitest runs after-hooks in reverse order).
import { afterEach } from "vitest";
import { runTestCleanups } from "./test-cleanups.js";

afterEach(runTestCleanups);
