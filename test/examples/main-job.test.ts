import { spawnSync } from "node:child_process";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";

test("npm start's demo runs an agent on the emulator through the real SDK, resumes it, verifies its log and rebuilds every wire payload byte-identically", async () => {
  const home = await mkdtemp(join(tmpdir(), "keelson-main-job-"));
  try {
    const run = spawnSync(process.execPath, ["--import", "tsx", "examples/demo.ts"], {
      env: { ...process.env, KEELSON_HOME: home },
      encoding: "utf8",
    });
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(run.stdout).toContain("verify: clean");
    expect(run.stdout).toMatch(/audit: (\d+) requests rebuilt from the log; \1\/\1 wire payloads byte-identical to what the server received/);
    expect(run.stdout).toContain("headers: initial, resume");
    expect(run.stdout).toContain("3 turns: completed, completed, completed");
    expect(run.stdout).toContain("prefix [0]");
    expect(run.stdout).toContain("Ship the header codec.");
    expect(run.stdout).toMatch(/cache-hit share [1-9]\d\.\d%/);
    const files = await readdir(join(home, "sessions"));
    expect(files.filter((f) => f.endsWith(".jsonl"))).toHaveLength(1);
    expect(files.filter((f) => f.endsWith(".lock"))).toHaveLength(0);
  } finally {
    await rm(home, { recursive: true, force: true });
  }
});
