// Public API of the prompt layer (depends on hooks).
export { assembleSystemPrompt, interpolate, renderedSystemPrompt, renderSections } from "./render.js";
export { PromptSections, sortSections, validateSection } from "./sections.js";
export type { PromptAssemblePayload, PromptErrorCode, PromptHooks, PromptSection, PromptVars } from "./types.js";
export { PromptError } from "./types.js";
