// The context layer's vocabulary: the options of each session-prefix contributor, a discovered
// skill, and the layer's error type. Every contributor's output is a pure function of the
// filesystem state it reads (no clocks, no per-turn facts), so an unchanged tree always renders
// the same bytes and the provider's prefix cache holds across instances.
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
   * Ask a hardened `git status --porcelain` (see git-state.ts) whether the tree is dirty.
   * Default false: a repository's config can name programs git runs (fsmonitor, filters), so
   * by default no git runs at all. A missing git, a failure or a timeout leaves the state out.
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

export class ContextError extends KeelsonError<ContextErrorCode> {}

/** Validates a positive-integer option at plugin creation (a typo fails loudly, not per turn). */
export function positiveInteger(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value <= 0)
    throw new ContextError("invalid-options", `${name} must be a positive integer, got ${String(value)}`);
  return value;
}
