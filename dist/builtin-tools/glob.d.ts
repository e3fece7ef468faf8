import { type BuiltinToolOptions } from "./types.js";
export declare const MAX_GLOB_ENTRIES = 1000;
export declare function globTool({ workspace, outputCap }: BuiltinToolOptions): import("../tools/types.js").ToolDefinition<import("../tools/input-schema.js").JsonSchemaInput<{
    pattern: string;
    path?: string;
}>>;
