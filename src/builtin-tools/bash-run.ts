// Running one `bash` command to its end: spawned plainly (in a process group of its own) or inside
// the sandbox (src/sandbox), stdout and stderr interleaved and capped, stopped on timeout or abort
// with SIGTERM to the command's group and SIGKILL after the grace, and the result's last line
// saying how it ended. A sandbox that cannot start here means the command does not run at all.
import { type ChildProcess, spawn } from "node:child_process";
import { isKeelsonError } from "../errors/index.js";
import { type SandboxErrorCode, type SandboxPolicy, type SandboxedProcess, spawnSandboxed } from "../sandbox/index.js";
import type { ToolOutput } from "../tools/index.js";
import { truncationMarker } from "./output.js";
import { type GroupStop, stopProcessGroup } from "./process-group.js";

/** After bash exits, how long background children may keep its pipes open before we stop reading. */
const DRAIN_MS = 1000;

export interface BashRun {
  readonly args: readonly string[];
  readonly env: Record<string, string>;
  readonly cwd: string;
  readonly timeoutMs: number;
  readonly graceMs: number;
  readonly cap: number;
  /** The sandbox the command runs in; `off` runs it plainly. */
  readonly sandbox: SandboxPolicy;
}

type Stopped = "timeout" | "aborted" | "process-limit";

export async function runBash(run: BashRun, signal: AbortSignal): Promise<ToolOutput> {
  if (signal.aborted) return notRun("Command not run: the call was aborted");
  let launched: { child: ChildProcess; sandboxed?: SandboxedProcess };
  if (run.sandbox.mode === "off") {
    launched = {
      child: spawn("bash", run.args, { cwd: run.cwd, env: run.env, detached: true, stdio: ["ignore", "pipe", "pipe"] }),
    };
  } else {
    try {
      const sandboxed = await spawnSandboxed(run.sandbox, {
        argv: ["bash", ...run.args],
        env: run.env,
        cwd: run.cwd,
        stdin: "ignore",
      });
      launched = { child: sandboxed.child, sandboxed };
    } catch (error) {
      if (!isKeelsonError<SandboxErrorCode>(error, "unavailable")) throw error;
      return {
        content: [
          {
            type: "text",
            text: `Command not run: ${error.message}. Or opt out explicitly and run commands unconfined: builtinTools({ sandbox: "off" }) in code, --sandbox off on the keelson command line.`,
          },
        ],
        isError: true,
        meta: { code: "sandbox-unavailable", sandbox: run.sandbox.mode },
      };
    }
  }
  return collect(run, signal, launched.child, launched.sandboxed);
}

const notRun = (text: string): ToolOutput => ({ content: [{ type: "text", text }], isError: true });

function collect(
  run: BashRun,
  signal: AbortSignal,
  child: ChildProcess,
  sandboxed: SandboxedProcess | undefined,
): Promise<ToolOutput> {
  return new Promise((resolve) => {
    let output = "";
    let dropped = 0;
    let stopped: Stopped | undefined;
    // Settles once the stopped group is gone (or was SIGKILLed); the result waits for it.
    let stopping: Promise<GroupStop> | undefined;
    const take = (chunk: Buffer): void => {
      const text = chunk.toString("utf8");
      const room = run.cap - output.length;
      if (room >= text.length) output += text;
      else {
        output += text.slice(0, Math.max(0, room));
        dropped += text.length - Math.max(0, room);
      }
    };
    child.stdout?.on("data", take);
    child.stderr?.on("data", take);
    const stop = (why: "timeout" | "aborted"): void => {
      if (stopped !== undefined || child.pid === undefined) return;
      stopped = why;
      // In the sandbox the command's group is its init's; before bwrap reports it, bwrap's own
      // (whose death kills the sandbox).
      stopping = stopProcessGroup(sandboxed?.group() ?? child.pid, run.graceMs);
    };
    const timer = setTimeout(() => stop("timeout"), run.timeoutMs);
    const onAbort = (): void => stop("aborted");
    signal.addEventListener("abort", onAbort, { once: true });
    if (signal.aborted) onAbort(); // aborted while the sandbox was being set up
    let drain: NodeJS.Timeout | undefined;
    child.on("exit", () => {
      drain = setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
      }, DRAIN_MS);
    });
    const finish = async (code: number | null, signalName: NodeJS.Signals | null, spawnError?: Error) => {
      clearTimeout(timer);
      clearTimeout(drain);
      signal.removeEventListener("abort", onAbort);
      const how = await stopping;
      await sandboxed?.ended(); // nothing the command started is left when the result is given
      if (stopped === undefined && sandboxed?.overLimit() === true) stopped = "process-limit";
      let text = output === "" ? "(no output)" : output;
      if (dropped > 0) text += `\n${truncationMarker(dropped)}`;
      if (spawnError !== undefined) {
        resolve({ content: [{ type: "text", text: `Could not run bash: ${spawnError.message}` }], isError: true });
        return;
      }
      text += `\n${ending(stopped, how, run, code, signalName)}`;
      resolve({
        content: [{ type: "text", text }],
        isError: stopped !== undefined || code !== 0,
        meta: {
          exitCode: stopped === "process-limit" ? null : code,
          ...(stopped ? { stopped } : {}),
          ...(run.sandbox.mode === "off" ? {} : { sandbox: run.sandbox.mode }),
        },
      });
    };
    child.on("error", (error) => void finish(null, null, error));
    child.on("close", (code, signalName) => void finish(code, signalName));
  });
}

/** The last line of the result: how the command ended. */
function ending(
  stopped: Stopped | undefined,
  how: GroupStop | undefined,
  run: BashRun,
  code: number | null,
  signalName: NodeJS.Signals | null,
): string {
  if (stopped === "process-limit")
    return `[sandbox: more than ${run.sandbox.maxProcesses} processes at once — the command and every process it started were killed]`;
  if (stopped === undefined) return code === null ? `[killed by ${signalName}]` : `[exit code: ${code}]`;
  const what = stopped === "timeout" ? `command timed out after ${run.timeoutMs} ms and was` : "command aborted and";
  return how === "killed"
    ? `[${what} killed (SIGKILL: still running ${run.graceMs} ms after SIGTERM)]`
    : `[${what} killed]`;
}
