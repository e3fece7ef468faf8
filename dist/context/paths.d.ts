import type { Agent } from "../loop/index.js";
/** The cwd a contributor works from: the option, else the agent's session cwd, else the process's. */
export declare function agentCwd(agent: Agent, cwd: string | undefined): string;
/** True when `path` exists (without following a final symlink). */
export declare function exists(path: string): Promise<boolean>;
/** The nearest ancestor of `cwd` (itself included) containing `.git` (a directory or a worktree file), else `cwd`. */
export declare function findProjectRoot(cwd: string): Promise<string>;
/** True when `path` is `root` or lies below it. */
export declare function isWithin(root: string, path: string): boolean;
/** Every directory from `root` down to `dir`, broadest first (just `[dir]` when it is not below `root`). */
export declare function directoriesDown(root: string, dir: string): string[];
/** The `code` of a Node system error (ENOENT, EACCES…), else undefined. */
export declare function errorCode(error: unknown): string | undefined;
