import { z } from "zod";
import { type BuiltinToolOptions } from "./types.js";
export declare function writeTool({ workspace }: BuiltinToolOptions): import("../tools/types.js").ToolDefinition<z.ZodObject<{
    path: z.ZodString;
    content: z.ZodString;
}, z.core.$strip>>;
