// System-prompt vocabulary: named, ordered sections and the assembly hook.
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

/** `system-prompt/assemble`: one step's system prompt, before it is rendered. */
export interface PromptAssemblePayload {
  /** The merged sections (global and agent-scoped), frozen. */
  readonly sections: readonly PromptSection[];
  /** The `{{var}}` values, frozen. */
  readonly vars: PromptVars;
}

// Event maps are type aliases (not interfaces) so they satisfy HookMap's index signature.
/** Each hook takes one payload object, frozen by the bus; see `AgentHooks` (src/loop) for order and ownership. */
export type PromptHooks = {
  /**
   * Every step, returns the section list to render (add, drop, rewrite); the innermost default
   * returns the merged sections unchanged.
   *
   * Waterfall, registration order (global listeners outermost). May throw: the turn ends
   * `error`. Sections and variables are frozen; returned sections are validated, then rendered.
   */
  readonly "system-prompt/assemble": WaterfallHook<PromptAssemblePayload, readonly PromptSection[]>;
};

export type PromptErrorCode = "unknown-variable" | "invalid-section";

export class PromptError extends KeelsonError<PromptErrorCode> {}
