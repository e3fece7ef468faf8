import { KeelsonError } from "../errors/index.js";
/** Options of `skillsCatalog`. Relative paths resolve against the agent's cwd. */
export interface SkillsCatalogOptions {
    /** Default: the agent's cwd (`session.header.cwd`), else `process.cwd()`. */
    readonly cwd?: string;
    /** Extra skill directories, searched after the project's and before `<home>/skills`. */
    readonly dirs?: readonly string[];
    /** Default: `keelsonHome()` ($KEELSON_HOME, else the XDG data dir). */
    readonly home?: string;
    /** Longest rendered description, in characters (code points), "…" included. Default 500. */
    readonly maxDescription?: number;
}
/** Options of `workspaceInstructions`. */
export interface WorkspaceInstructionsOptions {
    readonly cwd?: string;
    readonly home?: string;
    /** UTF-8 bytes of instruction blocks one message may carry. Default 16 384. */
    readonly budgetBytes?: number;
    /** Files larger than this are ignored (with a notice). Default 65 536. */
    readonly maxFileBytes?: number;
}
/** Options of `workspaceBaseline`. */
export interface WorkspaceBaselineOptions {
    readonly cwd?: string;
    /** Top-level entries listed before "… and N more". Default 40. */
    readonly maxEntries?: number;
    /**
     * Ask `git status --porcelain` (execFile, no shell) whether the tree is dirty. Default true.
     * A missing git, a failure or a timeout just leaves the dirty state out.
     */
    readonly gitStatus?: boolean;
    /** Timeout of that git call, ms. Default 3 000. */
    readonly gitTimeoutMs?: number;
}
/** One skill as discovered: `<dir>/<name>/SKILL.md`. */
export interface Skill {
    /** Lowercase kebab-case, equal to its folder's name. */
    readonly name: string;
    /** As written in the frontmatter (rendering collapses whitespace, escapes and caps it). */
    readonly description: string;
    /** The markdown after the frontmatter: what the `skill` tool returns. */
    readonly body: string;
    /** Absolute path of its SKILL.md (never rendered into the prefix). */
    readonly path: string;
}
export type ContextErrorCode = "invalid-skill" | "unreadable-skill" | "invalid-options" | "instructions-update";
export declare class ContextError extends KeelsonError<ContextErrorCode> {
}
/** Validates a positive-integer option at plugin creation (a typo fails loudly, not per turn). */
export declare function positiveInteger(value: number | undefined, fallback: number, name: string): number;
