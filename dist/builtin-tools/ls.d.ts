import { z } from "zod";
import { type BuiltinToolOptions } from "./types.js";
export declare function lsTool({ workspace, outputCap }: BuiltinToolOptions): import("../tools/types.js").ToolDefinition<z.ZodObject<{
    path: z.ZodOptional<z.ZodString>;
}, z.core.$strip>>;
