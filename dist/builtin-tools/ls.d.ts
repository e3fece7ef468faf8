import { type BuiltinToolOptions } from "./types.js";
export declare function lsTool({ workspace, outputCap }: BuiltinToolOptions): import("../tools/types.js").ToolDefinition<import("../tools/input-schema.js").JsonSchemaInput<{
    path?: string;
}>>;
