// Public API of the tools layer (depends on errors, hooks, json, messages, llm types). Imports no zod.
export { AbortState } from "./abort-state.js";
export { type ApprovalNeed, approvalNeed, questionOf, TEXT_ANSWER } from "./approval-need.js";
export {
  type ExecuteToolCallInput,
  executeToolCall,
  finishToolCall,
  type PreparedToolCall,
  prepareToolCall,
} from "./execute.js";
export {
  type ArgsOf,
  type CompiledInput,
  type CompiledSchema,
  compileInput,
  compileSchema,
  type JsonSchemaInput,
  jsonSchema,
  type SchemaSubject,
  type StandardResult,
  type StandardSchema,
  type ToolInput,
} from "./input-schema.js";
export { checkJsonSchema } from "./json-schema-check.js";
export { defineTool, type RegisteredTool, ToolRegistry } from "./registry.js";
export { capToolResult, DEFAULT_MAX_TOOL_RESULT_CHARS, resultCapMarker } from "./result-cap.js";
export type {
  ApprovalContext,
  NeedsApproval,
  PostExecuteDecision,
  PostExecutePayload,
  PreExecuteDecision,
  PreExecutePayload,
  ToolCallOutcome,
  ToolContext,
  ToolDefinition,
  ToolErrorCode,
  ToolHooks,
  ToolInvocation,
  ToolOutput,
  ToolProgress,
  ToolQuestion,
} from "./types.js";
export { ToolError } from "./types.js";
