// The global scopes: listeners and prompt sections registered here apply to every agent.
import { HookBus } from "../hooks/index.js";
import { PromptSections } from "../prompt/index.js";
/** Listeners registered here hear every agent (and run outside each agent's own listeners). */
export const globalHooks = new HookBus();
/** Sections registered here appear in every agent's system prompt unless it overrides them by name. */
export const globalPrompt = new PromptSections();
//# sourceMappingURL=global.js.map