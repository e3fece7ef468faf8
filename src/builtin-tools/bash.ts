// `bash`: runs `bash --noprofile --norc -c command` (or, opted in, a login shell `bash -lc`) in the
// workspace root — inside the sandbox by default (src/sandbox: the workspace writable, the rest
// read-only, secret places hidden, no network; it refuses to run where the sandbox cannot start)
// — with secrets scrubbed from its environment. A timeout or an abort stops the command's group
// with SIGTERM, then SIGKILL after a grace period (bash-run.ts). stdout and stderr are
// interleaved in arrival order and capped; the exit code is always reported and a non-zero exit
// is an error result. The sandbox policy is part of the tool's description, so the logged header
// says under which policy every command ran.
import {
  describeSandbox,
  resolveSandbox,
  type SandboxMode,
  type SandboxOptions,
  type SandboxPolicy,
  sandboxOptions,
} from "../sandbox/index.js";
import { defineTool, jsonSchema } from "../tools/index.js";
import { runBash } from "./bash-run.js";
import { DEFAULT_OUTPUT_CAP } from "./output.js";
import { DEFAULT_KILL_GRACE_MS } from "./process-group.js";
import { type ToolEnvOptions, toolEnvironment } from "./tool-env.js";
import type { BuiltinToolOptions } from "./types.js";
import type { Workspace } from "./workspace.js";

export const DEFAULT_BASH_TIMEOUT_MS = 120_000;
export const MAX_BASH_TIMEOUT_MS = 600_000;

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
  /**
   * The sandbox commands run in (src/sandbox): a mode or options. Default `workspace-write`; the
   * workspace's extra roots are writable too (read-only in `read-only`). `off` runs commands
   * with the user's full access.
   */
  readonly sandbox?: SandboxMode | SandboxOptions;
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

/**
 * The sandbox `bash` runs in over `workspace`: `sandbox` resolved against its root, with the
 * workspace's extra roots writable (`workspace-write`) or readable (`read-only`). A bad option is
 * a `SandboxError('invalid-options')`.
 */
export function bashSandbox(
  workspace: Workspace,
  sandbox: SandboxMode | SandboxOptions | undefined,
  env: Readonly<Record<string, string | undefined>> = process.env,
): SandboxPolicy {
  const options = sandboxOptions(sandbox, "bash sandbox");
  const extra = workspace.roots.slice(1);
  const more =
    (options.mode ?? "workspace-write") === "workspace-write"
      ? { writable: [...extra, ...(options.writable ?? [])] }
      : { readable: [...extra, ...(options.readable ?? [])] };
  return resolveSandbox(extra.length === 0 ? options : { ...options, ...more }, {
    root: workspace.root,
    env,
    where: "bash sandbox",
  });
}

export function bashTool(options: BashToolOptions) {
  const { workspace, outputCap = DEFAULT_OUTPUT_CAP, loginShell = false } = options;
  const graceMs = killGraceMs(options.killGraceMs);
  const sandbox = bashSandbox(workspace, options.sandbox, options.baseEnv ?? process.env);
  const shell = loginShell ? "bash -lc" : "bash --noprofile --norc -c";
  return defineTool({
    name: "bash",
    description: `Run a shell command (${shell}) in the workspace root. Output (stdout and stderr) is capped; a non-zero exit code is an error. ${describeSandbox(sandbox)}`,
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
          sandbox,
        },
        signal,
      ),
  });
}
