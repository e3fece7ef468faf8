import { type BuiltinToolOptions } from "./types.js";
export declare function writeTool({ workspace }: BuiltinToolOptions): import("../tools/types.js").ToolDefinition<import("../tools/input-schema.js").JsonSchemaInput<{
    path: string;
    content: string;
}>>;
