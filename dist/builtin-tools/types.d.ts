import type { Workspace } from "./workspace.js";
import { KeelsonError } from "../errors/index.js";
/** The built-in tools, by the name the model calls. */
export type BuiltinToolName = "read" | "ls" | "glob" | "grep" | "write" | "edit" | "bash";
/** The tools that change the world; they go through the permission policy. */
export type MutatingToolName = "write" | "edit" | "bash";
export declare const BUILTIN_TOOL_NAMES: readonly BuiltinToolName[];
export declare const MUTATING_TOOL_NAMES: readonly MutatingToolName[];
export type ToolFailureCode = "outside-workspace" | "not-a-file" | "not-a-directory" | "binary-file" | "bad-range" | "bad-pattern" | "no-match" | "ambiguous-match" | "unchanged";
/**
 * A failure the model should read and act on (a path outside the workspace, an ambiguous edit).
 * Built-in tools throw it internally; their wrapper turns it into an `isError` result whose text is
 * the message and whose `meta.code` is the code — it never reaches the pipeline as a throw.
 */
export declare class ToolFailure extends KeelsonError<ToolFailureCode> {
}
/** What the user answers when asked whether a mutating tool may run. */
export type PermissionAnswer = "yes" | "no" | "always";
export interface PermissionRequest {
    readonly tool: MutatingToolName;
    /** One line for a person: the path written or edited, or the command. */
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
    /** Per-tool overrides: these run without asking whatever the mode. */
    readonly allow?: ReadonlySet<MutatingToolName>;
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
    /** Register only these tools. Default: all seven. */
    readonly tools?: readonly BuiltinToolName[];
}
