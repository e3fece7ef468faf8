// ToolRegistry: the tools an agent offers. Schemas come from zod (`z.toJSONSchema(input,
// { io: 'input' })`, so fields with defaults stay optional) and are listed in canonical order
// (by name), so registration order never changes the request header.
import { z } from "zod";
import type { ToolSchema } from "../llm/core.js";
import type { Dispose } from "../hooks/index.js";
import { deepFreeze, type JsonObject, snapshotJson } from "../json/index.js";
import { type ToolDefinition, ToolError } from "./types.js";

const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

export class ToolRegistry {
  readonly #tools = new Map<string, { readonly tool: ToolDefinition; readonly schema: ToolSchema }>();
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
    const entry = { tool, schema: toolSchema(tool) };
    this.#tools.set(tool.name, entry);
    this.#schemas = undefined;
    return () => {
      if (this.#tools.get(tool.name) === entry) {
        this.#tools.delete(tool.name);
        this.#schemas = undefined;
      }
    };
  }

  get(name: string): ToolDefinition | undefined {
    return this.#tools.get(name)?.tool;
  }

  /** The schemas the model sees, sorted by name, deep-frozen; the same array until the set changes. */
  schemas(): readonly ToolSchema[] {
    // Deep-frozen (each schema already is), so the header writer can compare it by identity.
    this.#schemas ??= deepFreeze(
      [...this.#tools.values()].map((e) => e.schema).sort((a, b) => (a.name < b.name ? -1 : 1)),
    );
    return this.#schemas;
  }
}

function toolSchema(tool: ToolDefinition): ToolSchema {
  let json: JsonObject;
  try {
    const { $schema: _ignored, ...schema } = z.toJSONSchema(tool.input, { io: "input" }) as Record<string, unknown>;
    json = snapshotJson(schema) as JsonObject;
  } catch (cause) {
    throw new ToolError(
      "invalid-tool",
      `tool ${tool.name}: its input schema cannot be expressed as JSON Schema: ${String(cause)}`,
    );
  }
  return deepFreeze({ name: tool.name, description: tool.description, inputSchema: json });
}

/** Identity helper that types `execute`'s arguments from the zod schema. */
export function defineTool<S extends z.ZodType>(tool: ToolDefinition<S>): ToolDefinition<S> {
  return tool;
}
