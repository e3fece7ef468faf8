// Setup file (vitest.config.ts `setupFiles`): evaluated before every test file, so the clean-ups
// support modules register (test-cleanups.ts) run after each test (and each file) of every file. Registered
// before the file's own hooks, it runs after them (vitest runs after-hooks in reverse order).
import { afterAll, afterEach } from "vitest";
import { runFileCleanups, runTestCleanups } from "./test-cleanups.js";

afterEach(runTestCleanups);
afterAll(runFileCleanups);
