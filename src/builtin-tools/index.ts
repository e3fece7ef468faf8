// Built-in tools: read, ls, glob, grep, write, edit, bash over a confined Workspace, with a
// permission policy for the mutating ones; `builtinTools()` plugs them into an agent.
export {
  bashArguments,
  bashSandbox,
  type BashToolOptions,
  bashTool,
  DEFAULT_BASH_TIMEOUT_MS,
  MAX_BASH_TIMEOUT_MS,
} from "./bash.js";
export { editTool } from "./edit.js";
export { globTool, MAX_GLOB_ENTRIES } from "./glob.js";
export { globToRegExp } from "./glob-pattern.js";
export { GREP_DEADLINE_MS, type GrepToolOptions, grepTool, MAX_GREP_FILE_BYTES, MAX_GREP_MATCHES } from "./grep.js";
export { compileGlob, type GlobMatcher } from "./glob-match.js";
export { lsTool } from "./ls.js";
export { capOutput, DEFAULT_OUTPUT_CAP, truncationMarker } from "./output.js";
export { askUserTool } from "./ask-user.js";
export {
  type ApprovalAskListener,
  MAX_SUMMARY_CHARS,
  type PermissionGate,
  permissionGate,
  showable,
  summarize,
} from "./permissions.js";
export { isSecretName, isSecretValue, type ToolEnvOptions, toolEnvironment } from "./tool-env.js";
export { builtinToolDefinitions, builtinTools } from "./plugin.js";
export { readTool } from "./read.js";
export {
  BUILTIN_TOOL_NAMES,
  type BuiltinToolName,
  type BuiltinToolOptions,
  type BuiltinToolsOptions,
  MUTATING_TOOL_NAMES,
  type MutatingToolName,
  type PermissionAnswer,
  type PermissionPolicy,
  type PermissionRequest,
  ToolFailure,
  type ToolFailureCode,
} from "./types.js";
export { Workspace, type WorkspaceOptions } from "./workspace.js";
export { writeTool } from "./write.js";
