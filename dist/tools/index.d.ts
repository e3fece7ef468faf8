export { type ExecuteToolCallInput, executeToolCall } from "./execute.js";
export { defineTool, ToolRegistry } from "./registry.js";
export type { PostExecuteDecision, PreExecuteDecision, ToolCallOutcome, ToolContext, ToolDefinition, ToolErrorCode, ToolHooks, ToolInvocation, ToolOutput, } from "./types.js";
export { ToolError } from "./types.js";
