import type { Command } from "commander";
import { type JsonlSessionStore } from "../store/index.js";
import { type ModelChoice } from "./model-selection.js";
export declare function registerResume(program: Command): void;
export interface ResumeTarget {
    readonly id: string;
    readonly choice: ModelChoice;
    readonly cwd: string;
}
/**
 * Resolves `id` (or, when undefined, the most recently written session) and validates its log
 * read-only — an unknown or broken log is reported without locking, repairing or starting a
 * provider. Without `--model` / `$KEELSON_MODEL` the model is the one the session last used.
 */
export declare function resumeTarget(store: JsonlSessionStore, idOrLast: string | undefined, flags: {
    readonly model?: string;
    readonly cwd?: string;
}): Promise<ResumeTarget>;
