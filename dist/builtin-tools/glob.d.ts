import { z } from "zod";
import { type BuiltinToolOptions } from "./types.js";
export declare const MAX_GLOB_ENTRIES = 1000;
export declare function globTool({ workspace, outputCap }: BuiltinToolOptions): import("../tools/types.js").ToolDefinition<z.ZodObject<{
    pattern: z.ZodString;
    path: z.ZodOptional<z.ZodString>;
}, z.core.$strip>>;
