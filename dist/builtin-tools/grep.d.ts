import { z } from "zod";
import { type BuiltinToolOptions } from "./types.js";
export declare const MAX_GREP_MATCHES = 500;
export declare function grepTool({ workspace, outputCap }: BuiltinToolOptions): import("../tools/types.js").ToolDefinition<z.ZodObject<{
    pattern: z.ZodString;
    path: z.ZodOptional<z.ZodString>;
    glob: z.ZodOptional<z.ZodString>;
}, z.core.$strip>>;
