// The kernel's ceiling on a sandbox's tasks: a pids cgroup of its own per sandbox, with `pids.max`
// set, which bwrap and the sandbox's first process join before that one forks anything (spawn.ts
// holds it back: it waits for the seccomp program, written once both are admitted). The watchdog
// counts processes and kills the sandbox past `maxProcesses`; this ceiling — threads count as
// tasks there, so it leaves room for them: 2 × `maxProcesses` + 64 — holds even while the
// watchdog is starved of CPU, since the kernel refuses the fork itself (EAGAIN).
//
// Where: cgroup v1's pids hierarchy, or v2 when this process's cgroup already hands the pids
// controller to its children (`cgroup.subtree_control`). Creating a cgroup needs write access
// there — root, or a delegated subtree; anywhere else (an unprivileged user, a read-only
// /sys/fs/cgroup) there is no ceiling and the watchdog alone enforces the limit. The first
// attempt of a process decides, and the directories of Keelson processes that have ended are
// removed then. A released cgroup that is empty is kept for the next sandbox (a few at most;
// removed at exit), so a command's way in costs one write of `pids.max`.
import { mkdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { mkdir, readdir, readFile, rmdir } from "node:fs/promises";
import { join } from "node:path";
import { processAlive } from "../home/process-alive.js";

/** A sandbox's pids cgroup: the file its first process writes its pid to, and its removal. */
export interface PidsCgroup {
  /** The cgroup's directory. */
  readonly dir: string;
  /** Its `cgroup.procs`. */
  readonly procs: string;
  /** Its `pids.max`. */
  readonly max: number;
  /** Moves the processes `pids` into it (one that has exited is skipped); whether all went in. */
  admit(...pids: readonly (number | undefined)[]): boolean;
  /** Gives the cgroup up once the sandbox has ended: kept for the next sandbox when empty, else removed; never throws. */
  release(): Promise<void>;
}

const PREFIX = "keelson-sandbox-";
/** How long `release()` waits for the last tasks of the sandbox to be reaped (tries, 5 ms more apart each time). */
const RELEASE_TRIES = 20;
/** Empty cgroups kept for the next sandboxes (the rest are removed). */
const SPARES = 4;

let parent: Promise<string | undefined> | undefined;
let made = 0;
let cleansAtExit = false;
/** Empty cgroups of this process, ready for the next sandbox: no mkdir on the way to a command. */
const spares: string[] = [];

/** The ceiling for a sandbox of at most `maxProcesses` processes (their threads included). */
export const ceilingFor = (maxProcesses: number): number => 2 * maxProcesses + 64;

/**
 * A pids cgroup of its own (fresh, or an empty one a sandbox of this process has released) whose
 * `pids.max` is `ceilingFor(maxProcesses)`, or undefined where this process cannot make one (then
 * none is tried again). Synchronous file operations after the first call: cgroupfs answers in
 * microseconds, quicker than a trip through the thread pool.
 */
export async function pidsCgroup(maxProcesses: number): Promise<PidsCgroup | undefined> {
  parent ??= writableParent();
  const base = await parent;
  if (base === undefined) return undefined;
  const max = ceilingFor(maxProcesses);
  let dir = spares.pop();
  try {
    if (dir === undefined) {
      dir = join(base, `${PREFIX}${process.pid}-${++made}`);
      mkdirSync(dir);
      if (!cleansAtExit) process.once("exit", removeSpareCgroups);
      cleansAtExit = true;
    }
    writeFileSync(join(dir, "pids.max"), String(max));
  } catch {
    if (dir !== undefined) removeQuietly(dir);
    return undefined;
  }
  const own = dir;
  const procs = join(own, "cgroup.procs");
  return { dir: own, procs, max, admit: (...pids) => admit(procs, pids), release: () => release(own) };
}

/** Synchronous: the sandbox waits on it, and nothing should queue behind the thread pool meanwhile. */
function admit(procs: string, pids: readonly (number | undefined)[]): boolean {
  let all = true;
  for (const pid of pids) {
    try {
      if (pid === undefined) throw new Error("no pid");
      writeFileSync(procs, String(pid));
    } catch {
      all = false;
    }
  }
  return all;
}

async function release(dir: string): Promise<void> {
  for (let attempt = 0; attempt < RELEASE_TRIES; attempt++) {
    let empty: boolean;
    try {
      empty = readFileSync(join(dir, "cgroup.procs"), "utf8").trim() === "";
    } catch {
      return; // gone already
    }
    if (empty) {
      if (spares.length < SPARES) spares.push(dir);
      else removeQuietly(dir);
      return;
    }
    await new Promise((done) => setTimeout(done, 5 * (attempt + 1)));
  }
  removeQuietly(dir); // EBUSY while a task lingers: left for the sweep of a later Keelson process
}

function removeQuietly(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    // not empty, or gone
  }
}

/**
 * Removes this process's spare cgroups now; its exit handler does it too. For a process that can
 * end without running exit handlers — a test runner's worker, ended by a signal. A sandbox still
 * running keeps its own cgroup (a later process's sweep removes it once empty).
 */
export function removeSpareCgroups(): void {
  for (const dir of spares.splice(0)) removeQuietly(dir);
}

/** Where this process may create pids cgroups (probed once by making one), or undefined. */
async function writableParent(): Promise<string | undefined> {
  const base = await pidsParent().catch(() => undefined);
  if (base === undefined) return undefined;
  const probe = join(base, `${PREFIX}${process.pid}-probe`);
  try {
    await mkdir(probe);
  } catch {
    return undefined;
  }
  try {
    await readFile(join(probe, "pids.max"), "utf8"); // a v2 cgroup without the pids controller has none
    return base;
  } catch {
    return undefined;
  } finally {
    await rmdir(probe).catch(() => undefined);
    await sweep(base);
  }
}

/** The directory of this process's cgroup in a hierarchy that has the pids controller. */
async function pidsParent(): Promise<string | undefined> {
  const [cgroups, mounts] = await Promise.all([
    readFile("/proc/self/cgroup", "utf8"),
    readFile("/proc/self/mountinfo", "utf8"),
  ]);
  for (const line of mounts.split("\n")) {
    // id parent major:minor root mountpoint options [optional…] - fstype source superoptions
    const [before, after] = line.split(" - ");
    if (before === undefined || after === undefined) continue;
    const fields = before.split(" ");
    const [fstype, , superOptions = ""] = after.split(" ");
    const root = fields[3];
    const mountPoint = fields[4];
    if (root === undefined || mountPoint === undefined) continue;
    if (fstype === "cgroup" && superOptions.split(",").includes("pids")) {
      const path = /^\d+:(?:[^:]*,)?pids(?:,[^:]*)?:(.*)$/m.exec(cgroups)?.[1];
      if (path !== undefined) return under(mountPoint, root, path);
    }
    if (fstype === "cgroup2") {
      const path = /^0::(.*)$/m.exec(cgroups)?.[1];
      if (path === undefined) continue;
      const dir = under(mountPoint, root, path);
      if (dir === undefined) continue;
      const delegated = await readFile(join(dir, "cgroup.subtree_control"), "utf8").catch(() => "");
      if (delegated.split(/\s+/).includes("pids")) return dir;
    }
  }
  return undefined;
}

/** `path` (a cgroup path from /proc/self/cgroup) in a mount of the hierarchy from `root`. */
function under(mountPoint: string, root: string, path: string): string | undefined {
  const from = mountinfoPath(root);
  if (from !== "/" && path !== from && !path.startsWith(`${from}/`)) return undefined; // not visible in this mount
  return join(mountinfoPath(mountPoint), from === "/" ? path : path.slice(from.length));
}

/** A path as /proc/self/mountinfo spells it: space, tab, newline and backslash as `\ooo`. */
const mountinfoPath = (field: string): string =>
  field.replace(/\\(\d{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)));

/**
 * Removes the empty pids cgroups of Keelson processes that have ended — a process killed by a
 * signal never ran its exit handler. Each process's first sandbox does it too; a test runner's
 * teardown can call it as a backstop (a worker still exiting then keeps its own, alive or not).
 */
export async function sweepPidsCgroups(): Promise<void> {
  const base = await pidsParent().catch(() => undefined);
  if (base !== undefined) await sweep(base);
}

/** Removes the empty cgroups of Keelson processes that have ended (a sandbox's tasks die with them). */
async function sweep(base: string): Promise<void> {
  const names = await readdir(base).catch(() => [] as string[]);
  for (const name of names) {
    const owner = name.startsWith(PREFIX) ? Number.parseInt(name.slice(PREFIX.length), 10) : Number.NaN;
    if (!Number.isSafeInteger(owner) || owner === process.pid || processAlive(owner)) continue;
    await rmdir(join(base, name)).catch(() => undefined);
  }
}
