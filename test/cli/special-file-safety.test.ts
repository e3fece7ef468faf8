// Issue #12 D5 end to end: the inspection commands read regular files only, up to 1 GiB.
// `verify /dev/zero` used to grow to gigabytes and `show <fifo>` to hang; now each returns at
// once with exit 2 (bad input) and one line naming the file and what it is.
import { execFile, execFileSync } from "node:child_process";
import { mkdir, rename, rm, symlink, truncate, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, cleanEnv, type Result, tempHome } from "./run-keelson.js";

let home: string;

beforeAll(async () => {
  home = await tempHome();
  await mkdir(join(home, "sessions"));
});
afterAll(() => rm(home, { recursive: true, force: true }));

/**
 * Runs keelson, killed after 15 s: a regression (reading /dev/zero, blocking on a FIFO) ends as
 * a failed assertion instead of a hung or memory-hungry test. The bound only says "does not hang".
 */
function keelsonBounded(args: readonly string[]): Promise<Result & { readonly ms: number }> {
  const started = Date.now();
  return new Promise((done) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { env: cleanEnv(home), cwd: home, timeout: 15_000 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : -1;
        done({ code, stdout, stderr, ms: Date.now() - started });
      },
    );
  });
}

function expectRefused(r: Result, message: string): void {
  expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 2, stdout: "" });
  const lines = r.stderr.trimEnd().split("\n");
  expect(lines, r.stderr).toHaveLength(1);
  expect(lines[0]).toBe(`keelson: ${message}`);
}

describe("special files are refused promptly, as bad input", () => {
  it("verify /dev/zero: exit 2, 'is a character device', without reading it", async () => {
    const r = await keelsonBounded(["verify", "/dev/zero"]);
    expectRefused(
      r,
      "not-a-file: /dev/zero is a character device, not a regular file; session logs are read from regular files only",
    );
  }, 30_000);

  it("show <fifo>: exit 2, 'is a FIFO', without blocking on it", async () => {
    const fifo = join(home, "pipe.jsonl");
    execFileSync("mkfifo", [fifo]);
    const r = await keelsonBounded(["show", fifo]);
    expectRefused(
      r,
      `not-a-file: ${fifo} is a FIFO (named pipe), not a regular file; session logs are read from regular files only`,
    );
  }, 30_000);

  it("show <directory> and verify <directory>: exit 2, 'is a directory'", async () => {
    const dir = join(home, "a-dir");
    await mkdir(dir);
    for (const command of ["show", "verify"])
      expectRefused(
        await keelsonBounded([command, dir]),
        `not-a-file: ${dir} is a directory, not a regular file; session logs are read from regular files only`,
      );
  }, 30_000);

  it("a FIFO named <id>.jsonl in the sessions directory: show <id> and resume <id> exit 2, sessions still lists", async () => {
    const fifo = join(home, "sessions", "piped.jsonl");
    execFileSync("mkfifo", [fifo]);
    const [show, resume, sessions] = await Promise.all([
      keelsonBounded(["show", "piped"]),
      keelsonBounded(["resume", "piped", "hi"]),
      keelsonBounded(["sessions"]),
    ]);
    const refusal = `not-a-file: ${fifo} is a FIFO (named pipe), not a regular file; session logs are read from regular files only`;
    expectRefused(show, refusal);
    expectRefused(resume, refusal);
    expect(sessions.code).toBe(0);
    expect(sessions.stdout).toMatch(/\npiped\.jsonl +unreadable: not-a-file: .* is a FIFO \(named pipe\)/);
    await rm(fifo);
  }, 30_000);

  it("a file over 1 GiB (sparse) is refused with 'too-large' without reading it", async () => {
    const huge = join(home, "huge.jsonl");
    await writeFile(huge, "");
    await truncate(huge, 1024 ** 3 + 1);
    expectRefused(
      await keelsonBounded(["verify", huge]),
      `too-large: ${huge} is 1073741825 bytes, over the 1073741824-byte limit for a session log; it was not read`,
    );
  }, 30_000);
});

describe("symbolic links", () => {
  // The store never reads a log through a link placed in its root; a FILE a person names may be
  // one (found in review: `show ~/latest.jsonl` → a log was refused once the store stopped following links).
  it("show FILE follows a link the person named; show <id> refuses a link in the sessions directory", async () => {
    const run = await keelsonBounded(["run", "hello"]);
    expect(run.code).toBe(0);
    const id = /session ([0-9a-f-]{36})/.exec(run.stdout + run.stderr)?.[1];
    expect(id).toBeDefined();
    const sessions = join(home, "sessions");
    const real = join(home, "kept.jsonl");
    await rename(join(sessions, `${id}.jsonl`), real);
    await symlink(real, join(home, "latest.jsonl"));
    await symlink(real, join(sessions, `${id}.jsonl`));
    const byFile = await keelsonBounded(["show", join(home, "latest.jsonl")]);
    expect(byFile.code).toBe(0);
    expect(byFile.stdout).toContain("hello");
    const byId = await keelsonBounded(["show", id!]);
    expect(byId.code).toBe(2);
    expect(byId.stderr).toContain("is a symbolic link");
  });
});
