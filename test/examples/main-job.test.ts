import { spawnSync } from "node:child_process";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";

test("npm start (`keelson demo`) runs an agent on the emulator, resumes and forks it, and checks prefix, cache and verify for parent and child", async () => {
  const home = await mkdtemp(join(tmpdir(), "keelson-main-job-"));
  try {
    const started = Date.now();
    const run = spawnSync(process.execPath, ["bin/keelson.js", "demo"], {
      env: { ...process.env, KEELSON_HOME: home },
      encoding: "utf8",
    });
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(Date.now() - started).toBeLessThan(20_000);
    const out = run.stdout;
    expect(out).toContain(`KEELSON_HOME=${home}`);
    // The task really used the built-in tools.
    expect(out).toContain("[tool ls");
    expect(out).toContain('[tool read {"path":"src/app.ts"}]');
    // Prefix composed once per instance and logged on exactly that instance's header.
    expect(out).toMatch(
      /initial instance \(createAgent\)\s+composed 1×, request\/header events: 1 — initial \([1-9]\d* prefix messages\) … ok/,
    );
    expect(out).toMatch(
      /resumed instance \(resumeAgent\)\s+composed 1×, request\/header events: 1 — resume \([1-9]\d* prefix messages\) … ok/,
    );
    expect(out).toMatch(
      /fork instance \(forkAgent\)\s+composed 1×, request\/header events: 1 — resume \([1-9]\d* prefix messages\) … ok/,
    );
    expect(out).toContain("parent log headers: initial, resume · child log headers: initial, resume, resume");
    // Kept out of history.
    expect(out).toMatch(/parent: prefix not in history — 0 of \d+ derived messages/);
    expect(out).toMatch(/child: prefix not in history — 0 of \d+ derived messages/);
    // The cache holds.
    expect(out).toMatch(/cache-hit share [1-9]\d*\.\d% · cost \$\d+\.\d+ … ok/);
    // Verify clean for both.
    expect(out).toMatch(/verify parent [0-9a-f-]{36}: clean: \d+ events, 4 turns, \d+ requests/);
    expect(out).toMatch(/verify child [0-9a-f-]{36}: clean: \d+ events, 5 turns, \d+ requests/);
    // Every request rebuilt from the log is byte-identical to what the emulator received.
    expect(out).toMatch(/parent: (\d+) requests received, \1 rebuilt from its log, \1 byte-identical/);
    expect(out).toMatch(
      /child: (\d+) requests received, \1 rebuilt from its log \(after the \d+ events inherited from the parent\), \1 byte-identical/,
    );
    expect(out).toMatch(/demo: all checks passed/);
    expect(out).not.toContain("FAILED");
    const files = await readdir(join(home, "sessions"));
    expect(files.filter((f) => f.endsWith(".jsonl"))).toHaveLength(2);
    expect(files.filter((f) => f.endsWith(".lock"))).toHaveLength(0);
    const ids = [...out.matchAll(/verify (?:parent|child) ([0-9a-f-]{36}):/g)].map((m) => `${m[1]}.jsonl`);
    expect(files.sort()).toEqual(ids.sort());
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}, 60_000);

test("the library-level example (examples/demo.ts) runs an agent on the emulator through the real SDK, resumes it, verifies its log and rebuilds every wire payload byte-identically", async () => {
  const home = await mkdtemp(join(tmpdir(), "keelson-main-job-"));
  try {
    const run = spawnSync(process.execPath, ["--import", "tsx", "examples/demo.ts"], {
      env: { ...process.env, KEELSON_HOME: home },
      encoding: "utf8",
    });
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(run.stdout).toContain("verify: clean");
    expect(run.stdout).toMatch(
      /audit: (\d+) requests rebuilt from the log; \1\/\1 wire payloads byte-identical to what the server received/,
    );
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
}, 60_000);
