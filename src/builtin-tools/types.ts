// Built-in tools vocabulary: the failure a tool reports to the model (never thrown past the
// tool), the permission policy for mutating tools, and the plugin's options.
import type { Workspace } from "./workspace.js";
import { KeelsonError } from "../errors/index.js";
import type { SandboxMode, SandboxOptions } from "../sandbox/index.js";

/** The built-in tools, by the name the model calls. */
export type BuiltinToolName = "read" | "ls" | "glob" | "grep" | "write" | "edit" | "bash" | "ask_user";

/** The tools that change the world; they go through the permission policy. */
export type MutatingToolName = "write" | "edit" | "bash";

export const BUILTIN_TOOL_NAMES: readonly BuiltinToolName[] = Object.freeze([
  "read",
  "ls",
  "glob",
  "grep",
  "write",
  "edit",
  "bash",
]);
export const MUTATING_TOOL_NAMES: readonly MutatingToolName[] = Object.freeze(["write", "edit", "bash"]);

export type ToolFailureCode =
  | "outside-workspace"
  | "hidden-path"
  | "protected-path"
  | "not-a-file"
  | "not-a-regular-file"
  | "not-a-directory"
  | "binary-file"
  | "not-utf8"
  | "symbolic-link"
  | "hard-link"
  | "bad-range"
  | "bad-pattern"
  | "no-match"
  | "ambiguous-match"
  | "unchanged";

/**
 * A failure the model should read and act on (a path outside the workspace, an ambiguous edit).
 * Built-in tools throw it internally; their wrapper turns it into an `isError` result whose text is
 * the message and whose `meta.code` is the code — it never reaches the pipeline as a throw.
 */
export class ToolFailure extends KeelsonError<ToolFailureCode> {}

/** What the user answers when asked whether a mutating tool may run. */
export type PermissionAnswer = "yes" | "no" | "always";

export interface PermissionRequest {
  /** A mutating built-in (`write`, `edit`, `bash`) or another gated tool (`mcp__server__tool`). */
  readonly tool: string;
  /**
   * The whole call for a person, without the tool's name: `<path> (N characters)`, `<path>`, or
   * the full command (may span lines; control characters escaped). Never truncated.
   */
  readonly summary: string;
}

/**
 * How mutating tools (`write`, `edit`, `bash`) are gated; read-only tools are always allowed.
 * `allow`: run everything. `deny`: refuse (the reason names the `--allow` flag) unless the tool is
 * in `allow`. `ask`: call `ask` for each call not in `allow`; `always` allows that tool for the
 * rest of the agent's life; a missing `ask` or a throwing one denies.
 */
export interface PermissionPolicy {
  readonly mode: "allow" | "deny" | "ask";
  readonly ask?: (request: PermissionRequest) => Promise<PermissionAnswer>;
  /** Per-tool overrides: these run without asking whatever the mode (MCP tools also take `mcp`, `mcp__<server>`). */
  readonly allow?: ReadonlySet<string>;
}

/** What every built-in tool factory takes. */
export interface BuiltinToolOptions {
  readonly workspace: Workspace;
  /** Characters of output before the truncation marker. Default 30 000. */
  readonly outputCap?: number;
}

export interface BuiltinToolsOptions {
  /** The workspace root. Default: the agent's session cwd, else the process's. */
  readonly root?: string;
  /** Extra roots paths may resolve into (relative ones resolve against the root). */
  readonly allow?: readonly string[];
  /** Default `{ mode: 'deny' }`: a headless agent never mutates unless told to. */
  readonly permissions?: PermissionPolicy;
  readonly outputCap?: number;
  /** Register only these tools. Default: the seven workspace tools (`ask_user` only when named). */
  readonly tools?: readonly BuiltinToolName[];
  /**
   * `bash`'s environment: the process's minus secrets (`*_API_KEY`, `*_TOKEN`, `*_SECRET`,
   * `*_PASSWORD`…, see tool-env.ts), except the names in `allow`; then `set` on top.
   */
  readonly env?: { readonly allow?: readonly string[]; readonly set?: Readonly<Record<string, string>> };
  /** Run `bash` as a login shell (`bash -lc`, profiles sourced). Default false: `bash --noprofile --norc -c`. */
  readonly loginShell?: boolean;
  /** After SIGTERM on timeout or abort, ms before `bash`'s process group gets SIGKILL. Default 2 000. */
  readonly killGraceMs?: number;
  /**
   * The sandbox `bash` runs in (src/sandbox): `workspace-write` (default), `read-only`, `off`, or
   * options (`network`, `writable`, `readable`, `hidden`, `maxProcesses`, `bwrap`). Where it
   * cannot start, `bash` refuses to run commands (fail closed) unless this is `off`.
   */
  readonly sandbox?: SandboxMode | SandboxOptions;
}
