import { deepFreeze } from "../json/index.js";
import { compileInput } from "./input-schema.js";
import { ToolError } from "./types.js";
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;
export class ToolRegistry {
    #tools = new Map();
    /** Tools whose schema an older zod is still converting (see input-schema.ts), with the conversion. */
    #pending = new Map();
    /** Conversions that failed: reported by `ready()` and `schemas()`. */
    #failed = new Map();
    #schemas;
    /** Adds a tool; returns a disposer that removes it. Throws `ToolError` for a bad or duplicate name. */
    register(tool) {
        if (typeof tool.name !== "string" || !TOOL_NAME.test(tool.name))
            throw new ToolError("invalid-tool", `tool name ${JSON.stringify(tool.name)} must be 1–64 letters, digits, _ or -`);
        if (this.#tools.has(tool.name))
            throw new ToolError("duplicate-tool", `a tool named ${tool.name} is already registered`);
        if (typeof tool.description !== "string")
            throw new ToolError("invalid-tool", `tool ${tool.name} needs a description`);
        const input = compileInput(tool.name, tool.input);
        const entry = {
            tool,
            input,
            schema: undefined,
        };
        const settle = (inputSchema) => {
            entry.schema = deepFreeze({ name: tool.name, description: tool.description, inputSchema });
        };
        if (input.schema instanceof Promise) {
            const pending = input.schema.then(settle, (error) => {
                if (this.#tools.get(tool.name) === entry)
                    this.#failed.set(tool.name, error);
            });
            this.#pending.set(tool.name, pending);
            void pending.finally(() => {
                if (this.#pending.get(tool.name) === pending)
                    this.#pending.delete(tool.name);
                this.#schemas = undefined;
            });
        }
        else
            settle(input.schema);
        this.#tools.set(tool.name, entry);
        this.#schemas = undefined;
        return () => {
            if (this.#tools.get(tool.name) === entry) {
                this.#tools.delete(tool.name);
                this.#pending.delete(tool.name);
                this.#failed.delete(tool.name);
                this.#schemas = undefined;
            }
        };
    }
    /**
     * Resolves when every registered tool's schema is ready (immediately, unless an older zod's
     * converter is loading); rejects with the `ToolError` of a schema that could not be converted.
     * The loop awaits it before each step.
     */
    async ready() {
        while (this.#pending.size > 0)
            await Promise.all(this.#pending.values());
        const [failure] = this.#failed.values();
        if (failure !== undefined)
            throw failure;
    }
    /** Names of the registered tools, sorted. */
    names() {
        return [...this.#tools.keys()].sort();
    }
    get(name) {
        return this.#tools.get(name)?.tool;
    }
    /** The tool with its compiled input (schema + validator), for the execution pipeline. */
    entry(name) {
        return this.#tools.get(name);
    }
    /**
     * The schemas the model sees, sorted by name, deep-frozen; the same array until the set
     * changes. Throws `ToolError('not-ready')` while a schema is still converting (`await ready()`),
     * or the conversion's own error.
     */
    schemas() {
        const [failure] = this.#failed.values();
        if (failure !== undefined)
            throw failure;
        if (this.#pending.size > 0)
            throw new ToolError("not-ready", `the schema of ${[...this.#pending.keys()].join(", ")} is still being converted (an older zod loads its converter on first use): await tools.ready() first`);
        // Deep-frozen (each schema already is), so the header writer can compare it by identity.
        this.#schemas ??= deepFreeze([...this.#tools.values()].map((e) => e.schema).sort((a, b) => (a.name < b.name ? -1 : 1)));
        return this.#schemas;
    }
}
/**
 * Identity helper that types `execute`'s arguments from the input schema (zod's output type, a
 * Standard Schema's output, `jsonSchema<Args>`'s `Args`, or `JsonObject` for a plain JSON Schema).
 * The schema itself is checked when the tool is registered (`ToolError('invalid-tool')`).
 */
export function defineTool(tool) {
    return tool;
}
//# sourceMappingURL=registry.js.map