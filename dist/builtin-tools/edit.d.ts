import { type BuiltinToolOptions } from "./types.js";
export declare function editTool({ workspace }: BuiltinToolOptions): import("../tools/types.js").ToolDefinition<import("../tools/input-schema.js").JsonSchemaInput<{
    path: string;
    oldString: string;
    newString: string;
    replaceAll?: boolean;
}>>;
