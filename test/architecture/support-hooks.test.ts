// The suite runs with `isolate: false`: a module under test/ that is not a test file is evaluated
// once per worker, so a hook it registers at its top level (`afterEach(…)`) runs for the first
// file that imported it only — every later file's temp directories and servers leaked (~150
// directories in /tmp per run). Support modules register per-test clean-ups with
// `afterThisTest` (test/support/test-cleanups.ts); the setup file runs them after every test.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { expect, test } from "vitest";

const TEST = resolve(import.meta.dirname, "..");
/** The setup file (vitest `setupFiles`: evaluated for every test file) and the runner's own fixtures. */
const ALLOWED = new Set(["support/run-test-cleanups.ts"]);
const HOOK_AT_TOP_LEVEL = /^(?:afterEach|beforeEach|afterAll|beforeAll)\(/m;

function supportModules(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return supportModules(path);
    return /\.tsx?$/.test(entry.name) && !/\.(test|fixture)\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

test("no support module registers a test hook at its top level", () => {
  const offenders = supportModules(TEST)
    .map((file) => relative(TEST, file))
    .filter((file) => !ALLOWED.has(file) && HOOK_AT_TOP_LEVEL.test(readFileSync(join(TEST, file), "utf8")));
  expect(offenders).toEqual([]);
});
