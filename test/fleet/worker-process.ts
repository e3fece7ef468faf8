// A `keelson worker` process (the built CLI: node bin/keelson.js) for the tests that kill or
// stop one: its stdout turn lines collected, waits on them by predicate, signals sent to the
// node process itself (never a shell).
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterEach } from "vitest";

const launcher = fileURLToPath(new URL("../../bin/keelson.js", import.meta.url));
export const testProfiles = fileURLToPath(new URL("./fixtures/fleet-profiles.mjs", import.meta.url));

export interface WorkerProcess {
  readonly child: ChildProcess;
  readonly lines: string[];
  readonly stderr: () => string;
  /** Resolves with the first stdout line (seen so far or later) that `match` accepts. */
  line(match: (line: string) => boolean, timeoutMs?: number): Promise<string>;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  signal(signal: NodeJS.Signals): void;
}

/** Runs the built CLI with `args` (and `env` added to this process's). */
export function runCli(args: readonly string[], env: Record<string, string> = {}): WorkerProcess {
  const child = spawn(process.execPath, [launcher, ...args], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: string[] = [];
  const waiters = new Set<() => void>();
  let pending = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
    pending += chunk;
    const parts = pending.split("\n");
    pending = parts.pop()!;
    lines.push(...parts);
    for (const wake of [...waiters]) wake();
  });
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => {
      for (const wake of [...waiters]) wake();
      resolve({ code, signal });
    }),
  );
  return {
    child,
    lines,
    stderr: () => stderr,
    exited,
    signal: (signal) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    },
    line(match, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          const found = lines.find(match);
          if (found !== undefined) {
            done();
            resolve(found);
          } else if (child.exitCode !== null || child.signalCode !== null) {
            done();
            reject(
              new Error(
                `the process exited before printing the line; stdout:\n${lines.join("\n")}\nstderr:\n${stderr}`,
              ),
            );
          }
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`no such line within ${timeoutMs} ms; stdout:\n${lines.join("\n")}\nstderr:\n${stderr}`));
        }, timeoutMs);
        const done = (): void => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
  };
}

/** `keelson worker` on `url` serving the test profiles (and the built-in emulator one). */
export function workerProcess(
  url: string,
  extra: readonly string[] = [],
  env: Record<string, string> = {},
): WorkerProcess {
  return runCli(["worker", "--store", url, "--profiles", testProfiles, "--poll-ms", "50", ...extra], env);
}

/**
 * For a test file that starts `keelson` processes: `worker(env, extra)` starts a worker with lease
 * `leaseMs` on the database `url()` names, `track` adopts any other process; every one of them
 * is SIGKILLed after each test.
 */
export function useProcesses(url: () => string, leaseMs: number) {
  const spawned: WorkerProcess[] = [];
  afterEach(async () => {
    for (const child of spawned.splice(0)) {
      child.signal("SIGKILL");
      await child.exited;
    }
  });
  const track = (child: WorkerProcess): WorkerProcess => {
    spawned.push(child);
    return child;
  };
  return {
    worker: (env: Record<string, string> = {}, extra: readonly string[] = []): WorkerProcess =>
      track(workerProcess(url(), ["--lease-ms", String(leaseMs), ...extra], env)),
    track,
  };
}
