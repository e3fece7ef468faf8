import { HookBus } from "../hooks/index.js";
import { PromptSections } from "../prompt/index.js";
import type { AgentHooks } from "./types.js";
/** Listeners registered here hear every agent (and run outside each agent's own listeners). */
export declare const globalHooks: HookBus<AgentHooks>;
/** Sections registered here appear in every agent's system prompt unless it overrides them by name. */
export declare const globalPrompt: PromptSections;
