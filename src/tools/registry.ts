// ToolRegistry: the tools an agent offers. Each tool's input is compiled once at registration
// (input-schema.ts: the JSON Schema the model sees — for zod, the *input* side, so fields with
// defaults stay optional — and the validator the pipeline runs); schemas are listed in
// canonical order (by name), so registration order never changes the request header.
import type { ToolSchema } from "../llm/core.js";
import type { Dispose } from "../hooks/index.js";
import { deepFreeze, type JsonObject } from "../json/index.js";
import { type CompiledInput, compileInput, type ToolInput } from "./input-schema.js";
import { type ToolDefinition, ToolError } from "./types.js";

const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

export class ToolRegistry {
  readonly #tools = new Map<string, RegisteredTool>();
  /** Tools whose schema an older zod is still converting (see input-schema.ts), with the conversion. */
  readonly #pending = new Map<string, Promise<unknown>>();
  /** Conversions that failed: reported by `ready()` and `schemas()`. */
  readonly #failed = new Map<string, unknown>();
  #schemas: readonly ToolSchema[] | undefined;

  /** Adds a tool; returns a disposer that removes it. Throws `ToolError` for a bad or duplicate name. */
  register(tool: ToolDefinition): Dispose {
    if (typeof tool.name !== "string" || !TOOL_NAME.test(tool.name))
      throw new ToolError(
        "invalid-tool",
        `tool name ${JSON.stringify(tool.name)} must be 1–64 letters, digits, _ or -`,
      );
    if (this.#tools.has(tool.name))
      throw new ToolError("duplicate-tool", `a tool named ${tool.name} is already registered`);
    if (typeof tool.description !== "string")
      throw new ToolError("invalid-tool", `tool ${tool.name} needs a description`);
    const input = compileInput(tool.name, tool.input);
    const entry: { tool: ToolDefinition; input: CompiledInput; schema: ToolSchema | undefined } = {
      tool,
      input,
      schema: undefined,
    };
    const settle = (inputSchema: JsonObject): void => {
      entry.schema = deepFreeze({ name: tool.name, description: tool.description, inputSchema });
    };
    if (input.schema instanceof Promise) {
      const pending = input.schema.then(settle, (error: unknown) => {
        if (this.#tools.get(tool.name) === entry) this.#failed.set(tool.name, error);
      });
      this.#pending.set(tool.name, pending);
      void pending.finally(() => {
        if (this.#pending.get(tool.name) === pending) this.#pending.delete(tool.name);
        this.#schemas = undefined;
      });
    } else settle(input.schema);
    this.#tools.set(tool.name, entry as RegisteredTool);
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
  /** True when `ready()` would resolve at once: no schema converting, none failed (the loop then skips the await). */
  get settled(): boolean {
    return this.#pending.size === 0 && this.#failed.size === 0;
  }

  async ready(): Promise<void> {
    while (this.#pending.size > 0) await Promise.all(this.#pending.values());
    const [failure] = this.#failed.values();
    if (failure !== undefined) throw failure;
  }

  /** Names of the registered tools, sorted. */
  names(): string[] {
    return [...this.#tools.keys()].sort();
  }

  /**
   * Removes the tool named `name` (whoever registered it; its disposer then does nothing).
   * True when there was one. A subagent's narrowing (src/loop) uses it.
   */
  remove(name: string): boolean {
    if (!this.#tools.delete(name)) return false;
    this.#pending.delete(name);
    this.#failed.delete(name);
    this.#schemas = undefined;
    return true;
  }

  get(name: string): ToolDefinition | undefined {
    return this.#tools.get(name)?.tool;
  }

  /** The tool with its compiled input (schema + validator), for the execution pipeline. */
  entry(name: string): RegisteredTool | undefined {
    return this.#tools.get(name);
  }

  /**
   * The schemas the model sees, sorted by name, deep-frozen; the same array until the set
   * changes. Throws `ToolError('not-ready')` while a schema is still converting (`await ready()`),
   * or the conversion's own error.
   */
  schemas(): readonly ToolSchema[] {
    const [failure] = this.#failed.values();
    if (failure !== undefined) throw failure;
    if (this.#pending.size > 0)
      throw new ToolError(
        "not-ready",
        `the schema of ${[...this.#pending.keys()].join(", ")} is still being converted (an older zod loads its converter on first use): await tools.ready() first`,
      );
    // Deep-frozen (each schema already is), so the header writer can compare it by identity.
    this.#schemas ??= deepFreeze(
      [...this.#tools.values()].map((e) => e.schema!).sort((a, b) => (a.name < b.name ? -1 : 1)),
    );
    return this.#schemas;
  }
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
export function defineTool<S extends ToolInput>(tool: ToolDefinition<S>): ToolDefinition<S> {
  return tool;
}
