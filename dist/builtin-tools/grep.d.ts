import { type BuiltinToolOptions } from "./types.js";
export declare const MAX_GREP_MATCHES = 500;
export declare function grepTool({ workspace, outputCap }: BuiltinToolOptions): import("../tools/types.js").ToolDefinition<import("../tools/input-schema.js").JsonSchemaInput<{
    pattern: string;
    path?: string;
    glob?: string;
}>>;
