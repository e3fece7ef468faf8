// The closing line CI reads tells the truth: a file that fails to load or whose set-up throws,
// and an unhandled error the runner reports, each count as failed — never "0 failed" on a failing run.
import { spawnSync } from "node:child_process";
import { join, resolve } from "node:path";
import { describe, expect, test } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");
const FIXTURES = join(ROOT, "test/support/summary-fixtures");

function summary(files: string): { line: string; status: number | null } {
  const run = spawnSync(process.execPath, [join(ROOT, "node_modules/vitest/vitest.mjs"), "run"], {
    cwd: FIXTURES,
    encoding: "utf8",
    env: { ...process.env, KEELSON_SUMMARY_FIXTURES: files, NO_COLOR: "1", CI: "true" },
    timeout: 120_000,
  });
  const lines = run.stdout.trim().split("\n");
  return { line: lines[lines.length - 1] ?? "", status: run.status };
}

describe("npm test's closing line", () => {
  test("counts passing and skipped tests", () => {
    expect(summary("{passes,skips}.fixture.ts")).toEqual({ line: "1 passed, 0 failed, 1 skipped", status: 0 });
  });

  test("counts a file whose beforeAll throws as failed", () => {
    const { line, status } = summary("{passes,before-all-throws}.fixture.ts");
    expect(line).toMatch(/^1 passed, [1-9]\d* failed, \d+ skipped$/);
    expect(status).not.toBe(0);
  });

  test("counts a file that fails to load as failed", () => {
    expect(summary("{passes,fails-to-load}.fixture.ts")).toEqual({ line: "1 passed, 1 failed, 0 skipped", status: 1 });
  });

  test("counts an unhandled error the runner reports as failed", () => {
    const { line, status } = summary("unhandled.fixture.ts");
    expect(line).toMatch(/^\d+ passed, [1-9]\d* failed, 0 skipped$/);
    expect(status).not.toBe(0);
  });
});
