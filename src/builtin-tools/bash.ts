// `bash`: runs `bash --noprofile --norc -c command` (or, opted in, a login shell `bash -lc`) in the
// workspace root, in its own process group, with secrets scrubbed from its environment. A timeout
// or an abort stops the group with SIGTERM, then SIGKILL after a grace period. stdout and stderr
// are interleaved in arrival order and capped; the exit code is always reported and a non-zero
// exit is an error result.
import { spawn } from "node:child_process";
import { defineTool, jsonSchema } from "../tools/index.js";
import type { ToolOutput } from "../tools/index.js";
import { DEFAULT_OUTPUT_CAP, truncationMarker } from "./output.js";
import { DEFAULT_KILL_GRACE_MS, type GroupStop, stopProcessGroup } from "./process-group.js";
import { type ToolEnvOptions, toolEnvironment } from "./tool-env.js";
import type { BuiltinToolOptions } from "./types.js";

export const DEFAULT_BASH_TIMEOUT_MS = 120_000;
export const MAX_BASH_TIMEOUT_MS = 600_000;
/** After bash exits, how long background children may keep its pipes open before we stop reading. */
const DRAIN_MS = 1000;

/** What `bash` takes beyond every tool's options (the plugin passes its own through). */
export interface BashToolOptions extends BuiltinToolOptions {
  /** Scrubbing exceptions and additions (tool-env.ts). */
  readonly env?: ToolEnvOptions;
  /** The environment scrubbed and passed on. Default `process.env` (tests pass a copy). */
  readonly baseEnv?: Readonly<Record<string, string | undefined>>;
  /** `bash -lc`: profiles sourced, their start-up counted against the timeout. Default false. */
  readonly loginShell?: boolean;
  /** ms between SIGTERM and SIGKILL when the command is stopped. Default 2 000. */
  readonly killGraceMs?: number;
}

/** The shell's argv: non-login, no profile or rc files, unless a login shell is asked for. */
export function bashArguments(command: string, loginShell = false): string[] {
  return loginShell ? ["-l", "-c", command] : ["--noprofile", "--norc", "-c", command];
}

/**
 * The environment of the shell: `base` scrubbed of secrets (tool-env.ts) except `allow`; a
 * non-login shell also loses `BASH_ENV` (a start-up file a non-interactive bash would otherwise
 * source; `ENV` is only read by interactive shells, and is a common application variable, so it
 * stays); then `set` on top.
 */
export function bashEnvironment(
  base: Readonly<Record<string, string | undefined>>,
  options: ToolEnvOptions = {},
  loginShell = false,
): Record<string, string> {
  const env = toolEnvironment(base, options.allow === undefined ? {} : { allow: options.allow });
  if (!loginShell) delete env.BASH_ENV;
  for (const [name, value] of Object.entries(options.set ?? {})) env[name] = value;
  return env;
}

/** `killGraceMs` checked (a non-negative integer), or its default; a bad value is a TypeError. */
export function killGraceMs(value: number | undefined): number {
  if (value === undefined) return DEFAULT_KILL_GRACE_MS;
  if (!Number.isSafeInteger(value) || value < 0)
    throw new TypeError(`bash: killGraceMs must be a non-negative integer, got ${String(value)}`);
  return value;
}

const inputSchema = (shell: string) =>
  jsonSchema<{ command: string; timeoutMs?: number }>({
    type: "object",
    properties: {
      command: { type: "string", minLength: 1, description: `Shell command, run with ${shell} in the workspace root` },
      timeoutMs: {
        type: "integer",
        minimum: 1,
        maximum: MAX_BASH_TIMEOUT_MS,
        description: `Stop the command after this many ms (default ${DEFAULT_BASH_TIMEOUT_MS})`,
      },
    },
    required: ["command"],
  });

export function bashTool(options: BashToolOptions) {
  const { workspace, outputCap = DEFAULT_OUTPUT_CAP, loginShell = false } = options;
  const graceMs = killGraceMs(options.killGraceMs);
  const shell = loginShell ? "bash -lc" : "bash --noprofile --norc -c";
  return defineTool({
    name: "bash",
    description: `Run a shell command (${shell}) in the workspace root. Output (stdout and stderr) is capped; a non-zero exit code is an error.`,
    input: inputSchema(shell),
    // The command's own timeout (plus the kill grace) governs; the pipeline's must not cut in first.
    timeoutMs: MAX_BASH_TIMEOUT_MS + graceMs + 5000,
    execute: ({ command, timeoutMs = DEFAULT_BASH_TIMEOUT_MS }, { signal }) =>
      runBash(
        {
          args: bashArguments(command, loginShell),
          env: bashEnvironment(options.baseEnv ?? process.env, options.env, loginShell),
          cwd: workspace.root,
          timeoutMs,
          graceMs,
          cap: outputCap,
        },
        signal,
      ),
  });
}

interface BashRun {
  readonly args: readonly string[];
  readonly env: Record<string, string>;
  readonly cwd: string;
  readonly timeoutMs: number;
  readonly graceMs: number;
  readonly cap: number;
}

function runBash(run: BashRun, signal: AbortSignal): Promise<ToolOutput> {
  if (signal.aborted)
    return Promise.resolve({
      content: [{ type: "text", text: "Command not run: the call was aborted" }],
      isError: true,
    });
  return new Promise((resolve) => {
    const child = spawn("bash", run.args, {
      cwd: run.cwd,
      env: run.env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    let dropped = 0;
    let stopped: "timeout" | "aborted" | undefined;
    // Settles once the stopped group is gone (or was SIGKILLed); the result waits for it.
    let stopping: Promise<GroupStop> | undefined;
    const collect = (chunk: Buffer): void => {
      const text = chunk.toString("utf8");
      const room = run.cap - output.length;
      if (room >= text.length) output += text;
      else {
        output += text.slice(0, Math.max(0, room));
        dropped += text.length - Math.max(0, room);
      }
    };
    child.stdout.on("data", collect);
    child.stderr.on("data", collect);
    const stop = (why: "timeout" | "aborted"): void => {
      if (stopped !== undefined || child.pid === undefined) return;
      stopped = why;
      stopping = stopProcessGroup(child.pid, run.graceMs);
    };
    const timer = setTimeout(() => stop("timeout"), run.timeoutMs);
    const onAbort = (): void => stop("aborted");
    signal.addEventListener("abort", onAbort, { once: true });
    let drain: NodeJS.Timeout | undefined;
    child.on("exit", () => {
      drain = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
      }, DRAIN_MS);
    });
    const finish = async (code: number | null, signalName: NodeJS.Signals | null, spawnError?: Error) => {
      clearTimeout(timer);
      clearTimeout(drain);
      signal.removeEventListener("abort", onAbort);
      const how = await stopping;
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
        meta: { exitCode: code, ...(stopped ? { stopped } : {}) },
      });
    };
    child.on("error", (error) => void finish(null, null, error));
    child.on("close", (code, signalName) => void finish(code, signalName));
  });
}

/** The last line of the result: how the command ended. */
function ending(
  stopped: "timeout" | "aborted" | undefined,
  how: GroupStop | undefined,
  run: BashRun,
  code: number | null,
  signalName: NodeJS.Signals | null,
): string {
  if (stopped === undefined) return code === null ? `[killed by ${signalName}]` : `[exit code: ${code}]`;
  const what = stopped === "timeout" ? `command timed out after ${run.timeoutMs} ms and was` : "command aborted and";
  return how === "killed"
    ? `[${what} killed (SIGKILL: still running ${run.graceMs} ms after SIGTERM)]`
    : `[${what} killed]`;
}
