import { z } from "zod";
import { type BuiltinToolOptions } from "./types.js";
export declare function editTool({ workspace }: BuiltinToolOptions): import("../tools/types.js").ToolDefinition<z.ZodObject<{
    path: z.ZodString;
    oldString: z.ZodString;
    newString: z.ZodString;
    replaceAll: z.ZodOptional<z.ZodBoolean>;
}, z.core.$strip>>;
