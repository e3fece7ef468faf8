import type { HookBus } from "../hooks/index.js";
import type { PromptHooks, PromptSection, PromptVars } from "./types.js";
/** Replaces every `{{name}}` with `vars[name]`; an unknown name throws `PromptError('unknown-variable')`. */
export declare function interpolate(text: string, vars: PromptVars, where?: string): string;
/** Sorted, interpolated, empty sections dropped, joined by a blank line. */
export declare function renderSections(sections: readonly PromptSection[], vars: PromptVars): string;
/** Runs the `system-prompt/assemble` waterfall over `sections` and renders the result. */
export declare function assembleSystemPrompt(bus: HookBus<PromptHooks>, sections: readonly PromptSection[], vars: PromptVars): Promise<string>;
