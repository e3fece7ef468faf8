// Public API of the tools layer (depends on errors, hooks, json, messages, llm types). Imports no zod.
export { executeToolCall } from "./execute.js";
export { compileInput, jsonSchema, } from "./input-schema.js";
export { defineTool, ToolRegistry } from "./registry.js";
export { ToolError } from "./types.js";
//# sourceMappingURL=index.js.map