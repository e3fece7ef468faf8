// Public API of the output layer (structured output; depends on errors, json, messages, session,
// llm, tools): compile an output schema, check a final answer, the repair prompt, and outputOf
// over a stored log. The loop drives it per turn (src/loop/turn-output.ts).
export { answerText } from "./answer-text.js";
export { boundIssues, boundLine, MAX_ISSUE_CHARS, MAX_ISSUES } from "./bounds.js";
export { closeObjects } from "./close-objects.js";
export { compileOutput } from "./compile.js";
export { type OutputOfOptions, outputOf } from "./output-of.js";
export { type ParsedAnswer, parseAnswer } from "./parse-answer.js";
export { REPAIR_SOURCE, repairPrompt } from "./repair-prompt.js";
export {
  type CompiledOutput,
  type OutputCheck,
  OutputError,
  type OutputErrorCode,
  type OutputOf,
  type OutputSchema,
} from "./types.js";
