import { z } from "zod";
import { type BuiltinToolOptions } from "./types.js";
export declare function readTool({ workspace, outputCap }: BuiltinToolOptions): import("../tools/types.js").ToolDefinition<z.ZodObject<{
    path: z.ZodString;
    offset: z.ZodOptional<z.ZodNumber>;
    limit: z.ZodOptional<z.ZodNumber>;
}, z.core.$strip>>;
