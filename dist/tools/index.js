// Public API of the tools layer (depends on hooks, json, messages, header types; zod).
export { executeToolCall } from "./execute.js";
export { defineTool, ToolRegistry } from "./registry.js";
export { ToolError } from "./types.js";
//# sourceMappingURL=index.js.map