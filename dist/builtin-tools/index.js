// Built-in tools: read, ls, glob, grep, write, edit, bash over a confined Workspace, with a
// permission policy for the mutating ones; `builtinTools()` plugs them into an agent.
export { bashTool, DEFAULT_BASH_TIMEOUT_MS, MAX_BASH_TIMEOUT_MS } from "./bash.js";
export { editTool } from "./edit.js";
export { globTool, MAX_GLOB_ENTRIES } from "./glob.js";
export { globToRegExp } from "./glob-pattern.js";
export { grepTool, MAX_GREP_MATCHES } from "./grep.js";
export { lsTool } from "./ls.js";
export { capOutput, DEFAULT_OUTPUT_CAP, truncationMarker } from "./output.js";
export { permissionGate } from "./permissions.js";
export { builtinToolDefinitions, builtinTools } from "./plugin.js";
export { readTool } from "./read.js";
export { BUILTIN_TOOL_NAMES, MUTATING_TOOL_NAMES, ToolFailure, } from "./types.js";
export { Workspace } from "./workspace.js";
export { writeTool } from "./write.js";
//# sourceMappingURL=index.js.map