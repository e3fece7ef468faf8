import { z } from "zod";
import type { ToolSchema } from "../header/index.js";
import type { Dispose } from "../hooks/index.js";
import { type ToolDefinition } from "./types.js";
export declare class ToolRegistry {
    #private;
    /** Adds a tool; returns a disposer that removes it. Throws `ToolError` for a bad or duplicate name. */
    register(tool: ToolDefinition): Dispose;
    get(name: string): ToolDefinition | undefined;
    /** The schemas the model sees, sorted by name, deep-frozen; the same array until the set changes. */
    schemas(): readonly ToolSchema[];
}
/** Identity helper that types `execute`'s arguments from the zod schema. */
export declare function defineTool<S extends z.ZodType>(tool: ToolDefinition<S>): ToolDefinition<S>;
