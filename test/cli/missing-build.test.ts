// A clone run without `npm ci` has no dist/: the launcher says so in one line and exits 1,
// instead of a module-not-found stack trace.
import { execFile } from "node:child_process";
import { copyFile, mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { expect, test } from "vitest";
import { BIN } from "./run-keelson.js";

test("without a build, `keelson` prints one line saying to run npm ci, and exits 1", async () => {
  const clone = await mkdtemp(join(tmpdir(), "keelson-nobuild-"));
  try {
    await mkdir(join(clone, "bin"));
    await copyFile(BIN, join(clone, "bin/keelson.js"));
    const run = await promisify(execFile)(process.execPath, [join(clone, "bin/keelson.js"), "--help"]).then(
      () => ({ code: 0, stderr: "", stdout: "" }),
      (error: { code: number; stderr: string; stdout: string }) => error,
    );
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toBe(
      `keelson: the compiled build is missing (no dist/); run \`npm ci\` (or \`npm run build\`) in ${clone}/\n`,
    );
  } finally {
    await rm(clone, { recursive: true, force: true });
  }
});
