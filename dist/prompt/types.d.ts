import type { WaterfallHook } from "../hooks/index.js";
import { KeelsonError } from "../errors/index.js";
export interface PromptSection {
    /** Identity: an agent-scoped section replaces a global one with the same name. */
    readonly name: string;
    /** Sections render in ascending order (ties by name). */
    readonly order: number;
    /** May contain `{{var}}` placeholders; an unknown variable is an error, never left as is. */
    readonly text: string;
}
export type PromptVars = Readonly<Record<string, string>>;
export type PromptHooks = {
    /**
     * Runs every step. Listeners get the merged sections and the variables and may return a
     * different section list (add, drop, rewrite); the innermost default returns them unchanged.
     * Waterfall, registration order (global listeners outermost). May throw: the turn ends
     * `error`. Sections and variables are frozen; returned sections are validated, then rendered.
     */
    readonly "system-prompt/assemble": WaterfallHook<[
        sections: readonly PromptSection[],
        vars: PromptVars
    ], readonly PromptSection[]>;
};
export type PromptErrorCode = "unknown-variable" | "invalid-section";
export declare class PromptError extends KeelsonError<PromptErrorCode> {
}
