import type { MutatingToolName } from "../builtin-tools/index.js";
import type { JsonlSessionStore } from "../store/index.js";
import { type ModelChoice } from "./model-selection.js";
/** What to chat in: a new session (no id) or a stored one, with the model and cwd to use. */
export interface ChatTarget {
    readonly id?: string;
    readonly choice: ModelChoice;
    readonly cwd: string;
}
/** Runs the chat until /exit, end of input, or a second Ctrl-C; returns the exit code (0). */
export declare function runChat(store: JsonlSessionStore, target: ChatTarget, allow: readonly MutatingToolName[]): Promise<number>;
