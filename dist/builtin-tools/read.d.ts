import { type BuiltinToolOptions } from "./types.js";
export declare function readTool({ workspace, outputCap }: BuiltinToolOptions): import("../tools/types.js").ToolDefinition<import("../tools/input-schema.js").JsonSchemaInput<{
    path: string;
    offset?: number;
    limit?: number;
}>>;
