// Starting a process inside the sandbox: the support check (a machine that cannot sandbox refuses
// — nothing runs), the hidden paths looked up, bubblewrap spawned with the seccomp program on fd 3
// and its JSON status read from fd 4, and a watchdog that kills the whole sandbox when it holds
// more than `maxProcesses` processes (RLIMIT_NPROC cannot do it: Linux exempts root from it).
// Where this process can make a pids cgroup (pids-cgroup.ts), the sandbox runs inside one of its
// own, so the kernel refuses forks past a ceiling even while the watchdog waits for CPU. The
// seccomp program is the gate: bwrap's first sandbox process reads it (to EOF) before it forks
// anything, so it is written only once bwrap and that process are in the cgroup.
//
// Process layout: bwrap (our child, detached: its own group) → the sandbox's init (bwrap again,
// pid 1 of the new pid namespace, a new session: its pid is the group that holds the command)
// → the command. When the command exits, init exits and the kernel kills every process left in
// the namespace — daemons included; when bwrap or Keelson dies, init is killed (die-with-parent).
import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readlinkSync, statSync } from "node:fs";
import { readFile, readlink } from "node:fs/promises";
import { bwrapArguments, type PathKind, SECCOMP_FD, STATUS_FD } from "./bwrap-args.js";
import { type PidsCgroup, pidsCgroup } from "./pids-cgroup.js";
import { seccompFilter } from "./seccomp.js";
import { sandboxSupport } from "./support.js";
import { SandboxError, type SandboxPolicy } from "./types.js";

/** How often the watchdog counts the sandbox's processes. */
const WATCH_MS = 20;
/** `ended()` looks for the sandbox's init to be gone after 1, 2, 4… ms (at most 50 ms apart), for 2 s at most. */
const END_POLL_MAX_MS = 50;
const END_WAIT_MS = 2000;

export interface SandboxedCommand {
  /** The program and its arguments, run inside the sandbox (looked up on `env.PATH` there). */
  readonly argv: readonly [string, ...string[]];
  readonly env: Readonly<Record<string, string>>;
  /** The working directory inside the sandbox. Default: the policy's root. */
  readonly cwd?: string;
  /** The command's stdin: `/dev/null` or a pipe. */
  readonly stdin: "ignore" | "pipe";
}

export interface SandboxedProcess {
  /** bubblewrap itself: its stdout and stderr are the command's; it exits with the command's code. */
  readonly child: ChildProcess;
  /**
   * The process group that holds the command (the sandbox init's pid, as the host sees it), once
   * bubblewrap has reported it. Signal it to stop the command gracefully; SIGKILL to it ends the
   * whole sandbox.
   */
  group(): number | undefined;
  /** True once the watchdog killed the sandbox for holding more than `maxProcesses` processes. */
  overLimit(): boolean;
  /**
   * The sandbox's pids cgroup — its directory and `pids.max`, the kernel's ceiling on its tasks
   * (threads included) — or undefined where this process cannot make one (pids-cgroup.ts), and
   * from the moment admitting bwrap or the sandbox's first process to it failed (the watchdog
   * alone limits that sandbox). Given up once the sandbox has ended (kept empty for a later
   * sandbox, or removed).
   */
  readonly pidsCgroup: { readonly dir: string; readonly max: number } | undefined;
  /**
   * Resolves once the sandbox's init is dead — and with it every process of the sandbox (a
   * dying pid-namespace init reaps them all first). bubblewrap exits as soon as the command
   * does, a moment before init has killed the rest; wait on this after bwrap's exit to know
   * nothing is left. Gives up after 2 s (everything left has been sent SIGKILL by then).
   */
  ended(): Promise<void>;
}

/**
 * Starts `command` under `policy` (whose mode must not be `off`). Rejects with
 * `SandboxError('unavailable')` — before anything is spawned — when the sandbox cannot start here.
 */
export async function spawnSandboxed(policy: SandboxPolicy, command: SandboxedCommand): Promise<SandboxedProcess> {
  const support = await sandboxSupport(policy.bwrap);
  if (!support.ok)
    throw new SandboxError("unavailable", `the sandbox cannot start here: ${support.reason}; ${support.fix}`);
  const filter = seccompFilter()!;
  const hidden = pathKinds([...policy.hidden, ...policy.protectedFiles]);
  const cgroup = await pidsCgroup(policy.maxProcesses);
  const child = spawn(support.bwrap, bwrapArguments(policy, hidden, command.argv, command.cwd), {
    cwd: policy.root,
    env: { ...command.env },
    detached: true,
    stdio: [command.stdin, "pipe", "pipe", "pipe", "pipe"],
  });
  const seccomp = child.stdio[SECCOMP_FD] as NodeJS.WritableStream & NodeJS.EventEmitter;
  seccomp.on("error", () => undefined); // bwrap gone before reading it: its exit says why
  let gateOpen = false;
  /** Lets the sandbox go on: its first process has been waiting for the seccomp program's end. */
  const openGate = (): void => {
    if (gateOpen) return;
    gateOpen = true;
    seccomp.end(filter);
  };
  if (cgroup === undefined) openGate();
  let group: number | undefined;
  let namespace: string | undefined;
  let over = false;
  let exited = false;
  /** Whether admitting bwrap or the sandbox's first process to the cgroup failed: then none is reported. */
  let refused = false;
  let watch: NodeJS.Timeout | undefined;
  let status = "";
  let reported = false;
  const statusFd = child.stdio[STATUS_FD] as NodeJS.ReadableStream & NodeJS.EventEmitter;
  statusFd.on("error", openGate);
  statusFd.on("end", openGate);
  statusFd.on("data", (chunk: Buffer) => {
    if (reported) return; // only the first report counts
    status += chunk.toString("utf8");
    const end = status.indexOf("\n");
    if (end === -1) return;
    reported = true;
    const line = status.slice(0, end); // bwrap's first line, written just after it cloned the sandbox
    try {
      const report = JSON.parse(line) as { "child-pid"?: unknown; "pid-namespace"?: unknown };
      if (typeof report["child-pid"] === "number") group = report["child-pid"];
      namespace = typeof report["pid-namespace"] === "number" ? `pid:[${report["pid-namespace"]}]` : undefined;
      // A bubblewrap that reports no namespace ids: read init's at once (gone already: nothing to watch).
      if (namespace === undefined && group !== undefined)
        void readlink(`/proc/${group}/ns/pid`)
          .then((ns) => {
            namespace ??= ns;
          })
          .catch(() => undefined);
    } catch {
      // not the report this code reads: no group to watch
    }
    // Both processes into the cgroup, then the program: the sandbox forks nothing before it has it.
    if (cgroup !== undefined && group !== undefined) refused = !cgroup.admit(group, child.pid);
    openGate();
    if (exited || group === undefined) return; // its report read after it was gone: nothing left to watch
    watch = setInterval(check, WATCH_MS);
    watch.unref();
  });
  const check = (): void => {
    if (group === undefined || over) return;
    try {
      const count = processCount(group, namespace);
      if (count === undefined)
        clearInterval(watch); // init is gone, and the sandbox with it
      else if (count > policy.maxProcesses) {
        over = true;
        if (isInit(group, namespace)) process.kill(group, "SIGKILL"); // init's death ends the namespace
      }
    } catch {
      // init already gone
    }
  };
  const stopWatching = (): void => {
    exited = true;
    openGate();
    clearInterval(watch);
    if (cgroup !== undefined) void released(cgroup);
  };
  child.once("exit", stopWatching);
  child.once("error", stopWatching);
  const ended = async (): Promise<void> => {
    if (group === undefined) return;
    const until = Date.now() + END_WAIT_MS;
    for (
      let pause = 1;
      Date.now() < until && (await alive(group, namespace));
      pause = Math.min(pause * 2, END_POLL_MAX_MS)
    )
      await new Promise((done) => setTimeout(done, pause));
  };
  /** The cgroup given up once the sandbox's last process is gone (`exit` and `error` may both call this). */
  let releasing: Promise<void> | undefined;
  const released = (owned: PidsCgroup): Promise<void> => {
    releasing ??= ended().then(() => owned.release());
    return releasing;
  };
  return {
    child,
    group: () => group,
    overLimit: () => over,
    get pidsCgroup() {
      return cgroup === undefined || refused ? undefined : { dir: cgroup.dir, max: cgroup.max };
    },
    ended,
  };
}

/**
 * Which of `paths` exist, and whether each is a directory (symlinks followed, as the mount will).
 * A dozen stat calls on local paths: done in place, quicker than a trip through the thread pool.
 */
function pathKinds(paths: readonly string[]): Map<string, PathKind> {
  const kinds = new Map<string, PathKind>();
  for (const path of paths) {
    let info: ReturnType<typeof statSync> | undefined;
    try {
      info = statSync(path, { throwIfNoEntry: false });
    } catch {
      info = undefined; // unreadable (EACCES on the way): nothing this process could hide either
    }
    if (info !== undefined) kinds.set(path, info.isDirectory() ? "directory" : "file");
  }
  return kinds;
}

/**
 * The processes in the sandbox: the entries of its own /proc, seen through its init's root.
 * Undefined when `pid` is no longer that init (exited; a reused pid is never counted or killed).
 * Synchronous on purpose, like isInit: the watchdog must not queue behind the process's
 * shared thread pool (four threads, which a tool blocked on a FIFO or busy file reads can hold)
 * while a fork bomb grows. One readdir of the sandbox's /proc: well under a millisecond.
 */
function processCount(pid: number, namespace: string | undefined): number | undefined {
  if (!isInit(pid, namespace)) return undefined;
  return readdirSync(`/proc/${pid}/root/proc`).filter((name) => /^\d+$/.test(name)).length;
}

/** Whether `pid` is the sandbox's init and still running (not a zombie). */
async function alive(pid: number, namespace: string | undefined): Promise<boolean> {
  if (!isInit(pid, namespace)) return false;
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
  const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
  return state !== "" && state !== "Z" && state !== "X";
}

/** Whether `pid` is still the sandbox's init: its pid namespace is the one bubblewrap reported. */
function isInit(pid: number, namespace: string | undefined): boolean {
  if (namespace === undefined) return false;
  try {
    return readlinkSync(`/proc/${pid}/ns/pid`) === namespace;
  } catch {
    return false;
  }
}
