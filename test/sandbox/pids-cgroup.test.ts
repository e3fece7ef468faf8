// The kernel's ceiling on a sandbox's tasks (src/sandbox/pids-cgroup.ts): where this process can
// make a pids cgroup (root here: cgroup v1's pids hierarchy, or a v2 one that delegates pids), every
// sandbox runs in one of its own whose pids.max is 2 × maxProcesses + 64, and the kernel refuses
// forks past it even while the watchdog cannot run — this test starves it by blocking the event
// loop (the watchdog's timer lives there) while a fork bomb grows. Nothing inside can leave the
// cgroup or raise its ceiling (the cgroup filesystem is read-only there); once the sandbox has
// ended the cgroup is emptied, serves the next sandbox, and is removed when the process exits. Where no pids cgroup can be made, the tests say why and skip.
import { existsSync, mkdirSync, readFileSync, readlinkSync, rmdirSync, writeFileSync } from "node:fs";
import { execFile, spawn } from "node:child_process";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { expect, test } from "vitest";
import { processesIn } from "../../reliability/sandbox-cases.js";
import {
  ceilingFor,
  resolveSandbox,
  sandboxSupport,
  spawnSandboxed,
  sweepPidsCgroups,
} from "../../src/sandbox/index.js";

import { pidsCgroup } from "../../src/sandbox/pids-cgroup.js";
import { tempDir } from "../builtin-tools/support.js";
import { until } from "../support/until.js";

/** Whether this machine lets this process make a cgroup with a pids.max (probed here, not by the code under test). */
function pidsCgroupsHere(): string | undefined {
  const base = "/sys/fs/cgroup/pids";
  if (!/^\d+:(?:[^:]*,)?pids(?:,[^:]*)?:\/$/m.test(readFileSync("/proc/self/cgroup", "utf8")))
    return "this process is not in the root of a cgroup v1 pids hierarchy";
  const probe = join(base, `keelson-test-probe-${process.pid}`);
  try {
    mkdirSync(probe);
  } catch (error) {
    return `cannot make a pids cgroup (${(error as NodeJS.ErrnoException).code}; needs root)`;
  }
  try {
    writeFileSync(join(probe, "pids.max"), "10");
    return undefined;
  } catch (error) {
    return `cannot set pids.max (${(error as NodeJS.ErrnoException).code})`;
  } finally {
    rmdirSync(probe);
  }
}

const REPO = resolve(import.meta.dirname, "../..");
const run = promisify(execFile);
const support = await sandboxSupport();
const why = !support.ok ? `no sandbox here: ${support.reason}` : pidsCgroupsHere();
if (why !== undefined) process.stdout.write(`pids-cgroup.test: skipped — ${why}\n`);

test.skipIf(why !== undefined)(
  "a fork bomb stops at the cgroup's ceiling while the watchdog is starved; the cgroup is released with the sandbox",
  async () => {
    const root = await tempDir("pids");
    const policy = resolveSandbox({ maxProcesses: 8 }, { root });
    const sandboxed = await spawnSandboxed(policy, {
      argv: [
        "bash",
        "-c",
        // The marker first; the bomb a moment later, once the test has stopped its own event loop.
        "touch started; sleep 0.3; for i in $(seq 1 300); do sleep 30 & done 2>/dev/null; wait",
      ],
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      stdin: "ignore",
    });
    const exited = new Promise<number | null>((done) => sandboxed.child.once("exit", (code) => done(code)));
    expect(sandboxed.pidsCgroup).toStrictEqual({ dir: expect.stringMatching(/keelson-sandbox-\d+-\d+$/), max: 80 });
    expect(ceilingFor(8)).toBe(80);
    const { dir } = sandboxed.pidsCgroup!;
    expect(readFileSync(join(dir, "pids.max"), "utf8").trim()).toBe("80");
    await until(() => existsSync(join(root, "started")), "the sandboxed shell to start", 10_000);
    expect(readFileSync(join(dir, "cgroup.procs"), "utf8").trim()).not.toBe(""); // bwrap and its sandbox are in it

    // Starve the watchdog: no timer of this process runs until the kernel has refused forks. (A
    // cgroup is reused once a sandbox has released it empty: count this sandbox's refusals only.)
    const refusals = (): number =>
      Number(/^max (\d+)$/m.exec(readFileSync(join(dir, "pids.events"), "utf8"))?.[1] ?? 0);
    const before = refusals();
    let refused = 0;
    let peak = 0;
    const deadline = Date.now() + 8_000;
    while (refused === 0 && Date.now() < deadline) {
      peak = Math.max(peak, Number(readFileSync(join(dir, "pids.current"), "utf8")));
      refused = refusals() - before;
    }
    expect(refused).toBeGreaterThan(0);
    expect(peak).toBeLessThanOrEqual(80);
    expect(sandboxed.overLimit()).toBe(false); // the watchdog has not run yet

    // Once it runs, the watchdog ends the sandbox (well past maxProcesses), and the cgroup goes too.
    expect(await exited).not.toBe(0);
    await until(() => sandboxed.overLimit(), "the watchdog to end the sandbox", 5_000);
    await sandboxed.ended();
    await until(() => cgroupReleased(dir), "the cgroup to be released", 5_000);
  },
  30_000,
);

/** Released: removed, or kept empty for the next sandbox with nothing left in it. */
const cgroupReleased = (dir: string): boolean =>
  !existsSync(dir) || readFileSync(join(dir, "cgroup.procs"), "utf8").trim() === "";

test.skipIf(why !== undefined)(
  "the sandbox cannot leave its cgroup or raise its ceiling: the cgroup filesystem is read-only inside",
  async () => {
    const root = await tempDir("pids-escape");
    const attempts = [
      "echo $$ > /sys/fs/cgroup/pids/cgroup.procs",
      "echo $$ > /sys/fs/cgroup/pids/tasks",
      "echo max > /sys/fs/cgroup/pids/pids.max",
      "mkdir /sys/fs/cgroup/pids/escape",
    ];
    const sandboxed = await spawnSandboxed(resolveSandbox({ maxProcesses: 8 }, { root }), {
      // Each attempt's message goes to a file the shell writes before `mine`, so the file is whole
      // once `mine` exists (through stdout, the last message could still be in the pipe then).
      argv: [
        "bash",
        "-c",
        `${attempts.map((a) => `(${a}) >> attempts.txt 2>&1`).join("; ")}; sleep 30 & echo $$ > mine; wait`,
      ],
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      stdin: "ignore",
    });
    await until(() => existsSync(join(root, "mine")), "the attempts to finish", 10_000);
    const output = readFileSync(join(root, "attempts.txt"), "utf8");
    expect(output.trim().split("\n")).toHaveLength(attempts.length);
    expect(output).not.toMatch(/^(?!.*Read-only file system).+$/m);
    // Every process of the sandbox — bwrap, its init, the shell — is still in its cgroup, whose ceiling is unchanged.
    const { dir } = sandboxed.pidsCgroup!;
    const members = readFileSync(join(dir, "cgroup.procs"), "utf8").trim().split("\n").map(Number);
    expect(members).toContain(sandboxed.child.pid);
    const inside = processesIn(readlinkSync(`/proc/${sandboxed.group()}/ns/pid`));
    expect(inside.length).toBeGreaterThanOrEqual(3); // init, the shell, its sleep
    expect(inside.filter((pid) => !members.includes(pid))).toStrictEqual([]);
    expect(readFileSync(join(dir, "pids.max"), "utf8").trim()).toBe("80");
    process.kill(sandboxed.group()!, "SIGKILL");
    await sandboxed.ended();
    await until(() => cgroupReleased(dir), "the cgroup to be released", 5_000);
  },
  30_000,
);

test.skipIf(why !== undefined)(
  "a released cgroup serves the next sandbox, and none is left once the process exits",
  async () => {
    const root = await tempDir("pids-reuse");
    // A process of its own (the library as built), so its exit can be watched.
    const script = `
      import { resolveSandbox, spawnSandboxed } from ${JSON.stringify(pathToFileURL(join(REPO, "dist/sandbox/index.js")).href)};
      const policy = resolveSandbox({ maxProcesses: 8 }, { root: ${JSON.stringify(root)} });
      const dirs = [];
      for (let i = 0; i < 3; i++) {
        const s = await spawnSandboxed(policy, { argv: ["true"], env: { PATH: "/usr/bin:/bin" }, stdin: "ignore" });
        await new Promise((done) => s.child.once("exit", done));
        await s.ended();
        await new Promise((done) => setTimeout(done, 50)); // its release
        dirs.push(s.pidsCgroup?.dir ?? null);
      }
      console.log(JSON.stringify(dirs));`;
    const { stdout } = await run(process.execPath, ["--input-type=module", "-e", script]);
    const dirs = JSON.parse(stdout) as (string | null)[];
    expect(dirs[0]).toMatch(/keelson-sandbox-\d+-1$/);
    expect(new Set(dirs)).toStrictEqual(new Set([dirs[0]])); // one cgroup, reused
    expect(existsSync(dirs[0]!)).toBe(false); // removed at exit
  },
  30_000,
);

test.skipIf(why !== undefined)(
  "sweepPidsCgroups removes the cgroups of processes that have ended, and keeps a live one's",
  async () => {
    const ended = spawn(process.execPath, ["-e", "0"]);
    await new Promise((done) => ended.once("exit", done));
    const live = spawn("sleep", ["30"]);
    try {
      const dead = `/sys/fs/cgroup/pids/keelson-sandbox-${ended.pid}-1`;
      const kept = `/sys/fs/cgroup/pids/keelson-sandbox-${live.pid}-1`;
      mkdirSync(dead);
      mkdirSync(kept);
      await sweepPidsCgroups();
      expect([existsSync(dead), existsSync(kept)]).toStrictEqual([false, true]);
      rmdirSync(kept);
    } finally {
      live.kill("SIGKILL");
    }
  },
  30_000,
);

test.skipIf(why !== undefined)(
  "admitting a process that is gone (or no process) fails and says so, so no ceiling is claimed for it",
  async () => {
    const cgroup = await pidsCgroup(8);
    expect(cgroup).toBeDefined();
    const ended = spawn(process.execPath, ["-e", "0"]);
    await new Promise((done) => ended.once("exit", done));
    try {
      expect(cgroup!.admit(ended.pid)).toBe(false);
      expect(cgroup!.admit(undefined)).toBe(false);
      expect(readFileSync(cgroup!.procs, "utf8").trim()).toBe("");
    } finally {
      await cgroup!.release();
    }
  },
  30_000,
);
