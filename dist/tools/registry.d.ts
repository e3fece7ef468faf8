import type { ToolSchema } from "../llm/core.js";
import type { Dispose } from "../hooks/index.js";
import { type CompiledInput, type ToolInput } from "./input-schema.js";
import { type ToolDefinition } from "./types.js";
export declare class ToolRegistry {
    #private;
    /** Adds a tool; returns a disposer that removes it. Throws `ToolError` for a bad or duplicate name. */
    register(tool: ToolDefinition): Dispose;
    /**
     * Resolves when every registered tool's schema is ready (immediately, unless an older zod's
     * converter is loading); rejects with the `ToolError` of a schema that could not be converted.
     * The loop awaits it before each step.
     */
    ready(): Promise<void>;
    /** Names of the registered tools, sorted. */
    names(): string[];
    get(name: string): ToolDefinition | undefined;
    /** The tool with its compiled input (schema + validator), for the execution pipeline. */
    entry(name: string): RegisteredTool | undefined;
    /**
     * The schemas the model sees, sorted by name, deep-frozen; the same array until the set
     * changes. Throws `ToolError('not-ready')` while a schema is still converting (`await ready()`),
     * or the conversion's own error.
     */
    schemas(): readonly ToolSchema[];
}
/** A registered tool: the definition, its compiled input and the schema the model sees. */
export interface RegisteredTool {
    readonly tool: ToolDefinition;
    readonly input: CompiledInput;
    /** Undefined only while an older zod's converter loads (see `ToolRegistry.ready`). */
    readonly schema: ToolSchema | undefined;
}
/**
 * Identity helper that types `execute`'s arguments from the input schema (zod's output type, a
 * Standard Schema's output, `jsonSchema<Args>`'s `Args`, or `JsonObject` for a plain JSON Schema).
 * The schema itself is checked when the tool is registered (`ToolError('invalid-tool')`).
 */
export declare function defineTool<S extends ToolInput>(tool: ToolDefinition<S>): ToolDefinition<S>;
