import type { AgentPlugin } from "../loop/index.js";
import type { ToolDefinition } from "../tools/index.js";
import { type BuiltinToolName, type BuiltinToolOptions, type BuiltinToolsOptions } from "./types.js";
/** The built-in tools named in `names` (default all) over `workspace`. */
export declare function builtinToolDefinitions(options: BuiltinToolOptions, names?: readonly BuiltinToolName[]): ToolDefinition[];
/** See src/tools/README.md. The permission policy defaults to `{ mode: 'deny' }`. */
export declare function builtinTools(options?: BuiltinToolsOptions): AgentPlugin;
