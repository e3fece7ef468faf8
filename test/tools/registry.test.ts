// ToolRegistry and defineTool: JSON Schemas derived from zod 4 input schemas (io: 'input'),
// listed in canonical (name) order, deep-frozen and cached until the set changes; bad or
// duplicate names are refused; a disposer removes exactly the tool it registered.
import { describe, expect, expectTypeOf, test } from "vitest";
import { z } from "zod";
import { defineTool, type ToolDefinition, ToolError, ToolRegistry } from "../../src/tools/index.js";
import { thrown } from "../support/thrown.js";

const named = (name: string, input: z.ZodType = z.object({})): ToolDefinition => ({
  name,
  description: `the ${name} tool`,
  input,
  execute: () => name,
});

const read = defineTool({
  name: "read",
  description: "Reads a file.",
  input: z.object({ path: z.string().describe("file to read"), limit: z.number().default(100) }),
  execute: ({ path, limit }) => `${path}:${limit}`,
});

const refusal = (run: () => unknown): ToolError => thrown(run, ToolError);

describe("defineTool", () => {
  test("returns the definition unchanged", () => {
    const def = { name: "t", description: "d", input: z.object({}), execute: () => "ok" };
    expect(defineTool(def)).toBe(def);
  });

  test("types execute's arguments as the schema's output (defaults applied)", () => {
    expectTypeOf<Parameters<typeof read.execute>[0]>().toEqualTypeOf<{ path: string; limit: number }>();
  });
});

describe("ToolRegistry schemas", () => {
  test("carry the tool's name, description and the input JSON Schema", () => {
    const registry = new ToolRegistry();
    registry.register(read);
    const [schema] = registry.schemas();
    expect(schema!.name).toBe("read");
    expect(schema!.description).toBe("Reads a file.");
    expect(schema!.inputSchema).toMatchObject({
      type: "object",
      properties: { path: { type: "string", description: "file to read" }, limit: { type: "number", default: 100 } },
    });
  });

  test("are derived with io: 'input': a field with a default is not required", () => {
    const registry = new ToolRegistry();
    registry.register(read);
    expect(registry.schemas()[0]!.inputSchema.required).toEqual(["path"]);
  });

  test("are derived with io: 'input': extra properties are not forbidden as they are for output", () => {
    const registry = new ToolRegistry();
    registry.register(read);
    expect(registry.schemas()[0]!.inputSchema).not.toHaveProperty("additionalProperties");
  });

  test("have no $schema key", () => {
    const registry = new ToolRegistry();
    registry.register(read);
    expect(registry.schemas()[0]!.inputSchema).not.toHaveProperty("$schema");
  });

  test("are lossless JSON (they survive a JSON round trip unchanged)", () => {
    const registry = new ToolRegistry();
    registry.register(read);
    registry.register(
      named(
        "nested",
        z.object({ items: z.array(z.object({ id: z.number().int() })).optional(), mode: z.enum(["a", "b"]) }),
      ),
    );
    const schemas = registry.schemas();
    expect(JSON.parse(JSON.stringify(schemas))).toEqual(schemas);
  });

  test("are sorted by name regardless of registration order", () => {
    const forward = new ToolRegistry();
    const backward = new ToolRegistry();
    const tools = ["write", "bash", "read", "Zeta", "edit_file", "a-b"].map((n) => named(n));
    for (const t of tools) forward.register(t);
    for (const t of [...tools].reverse()) backward.register(t);
    const expected = ["Zeta", "a-b", "bash", "edit_file", "read", "write"];
    expect(forward.schemas().map((s) => s.name)).toEqual(expected);
    expect(backward.schemas()).toEqual(forward.schemas());
  });

  test("are deep-frozen, down to the JSON Schema's innards", () => {
    const registry = new ToolRegistry();
    registry.register(read);
    const schemas = registry.schemas();
    const schema = schemas[0]!;
    const inputSchema = schema.inputSchema as { properties: { path: object }; required: string[] };
    for (const part of [
      schemas,
      schema,
      inputSchema,
      inputSchema.properties,
      inputSchema.properties.path,
      inputSchema.required,
    ]) {
      expect(Object.isFrozen(part)).toBe(true);
    }
    expect(() => (schemas as unknown[]).push(named("x"))).toThrow(TypeError);
    expect(() => {
      inputSchema.required.push("limit");
    }).toThrow(TypeError);
  });

  test("are the same array instance until the set of tools changes", () => {
    const registry = new ToolRegistry();
    registry.register(named("a"));
    const first = registry.schemas();
    expect(registry.schemas()).toBe(first);
    const dispose = registry.register(named("b"));
    const second = registry.schemas();
    expect(second).not.toBe(first);
    expect(registry.schemas()).toBe(second);
    dispose();
    const third = registry.schemas();
    expect(third).not.toBe(second);
    expect(third).toEqual(first);
  });

  test("a refused registration keeps the cached array", () => {
    const registry = new ToolRegistry();
    registry.register(named("a"));
    const before = registry.schemas();
    refusal(() => registry.register(named("a")));
    refusal(() => registry.register(named("bad name")));
    expect(registry.schemas()).toBe(before);
  });

  test("an empty registry lists no schemas", () => {
    expect(new ToolRegistry().schemas()).toEqual([]);
  });
});

describe("ToolRegistry registration", () => {
  test("get returns the definition as registered", () => {
    const registry = new ToolRegistry();
    registry.register(read);
    expect(registry.get("read")).toBe(read);
    expect(registry.get("write")).toBeUndefined();
  });

  test("a duplicate name throws ToolError 'duplicate-tool' and keeps the first", () => {
    const registry = new ToolRegistry();
    const first = named("read");
    registry.register(first);
    const error = refusal(() => registry.register(named("read")));
    expect(error.code).toBe("duplicate-tool");
    expect(error.message).toContain("read");
    expect(registry.get("read")).toBe(first);
  });

  test.each<[string, unknown]>([
    ["an empty name", ""],
    ["a name with a space", "read file"],
    ["a dotted name", "fs.read"],
    ["a slash", "fs/read"],
    ["a non-ASCII letter", "lés"],
    ["a name of 65 characters", "a".repeat(65)],
    ["a trailing newline", "read\n"],
    ["an undefined name", undefined],
    ["a numeric name", 42],
  ])("%s throws ToolError 'invalid-tool' and registers nothing", (_what, name) => {
    const registry = new ToolRegistry();
    const error = refusal(() => registry.register({ ...named("x"), name: name as string }));
    expect(error.code).toBe("invalid-tool");
    expect(error.name).toBe("ToolError");
    expect(registry.schemas()).toEqual([]);
  });

  test.each(["a", "A-Z_0-9", "a".repeat(64), "_", "-"])("accepts the name %j", (name) => {
    const registry = new ToolRegistry();
    registry.register(named(name));
    expect(registry.get(name)?.name).toBe(name);
  });

  test("a non-string description throws 'invalid-tool'", () => {
    const registry = new ToolRegistry();
    const error = refusal(() => registry.register({ ...named("read"), description: undefined as unknown as string }));
    expect(error.code).toBe("invalid-tool");
    expect(registry.get("read")).toBeUndefined();
  });

  test.each<[string, z.ZodType]>([
    ["a date", z.object({ when: z.date() })],
    ["a bigint", z.object({ n: z.bigint() })],
  ])("an input schema holding %s (no JSON Schema form) throws 'invalid-tool' naming the tool", (_what, input) => {
    const registry = new ToolRegistry();
    const error = refusal(() => registry.register(named("when", input)));
    expect(error.code).toBe("invalid-tool");
    expect(error.message).toContain("when");
    expect(registry.get("when")).toBeUndefined();
  });

  test("the disposer removes the tool from get and schemas", () => {
    const registry = new ToolRegistry();
    registry.register(named("keep"));
    const dispose = registry.register(named("gone"));
    dispose();
    expect(registry.get("gone")).toBeUndefined();
    expect(registry.schemas().map((s) => s.name)).toEqual(["keep"]);
  });

  test("after disposal the name can be registered again", () => {
    const registry = new ToolRegistry();
    registry.register(named("read"))();
    const again = named("read");
    registry.register(again);
    expect(registry.get("read")).toBe(again);
  });

  test("a stale disposer does not remove a re-registered tool of the same name", () => {
    const registry = new ToolRegistry();
    const disposeOld = registry.register(named("read"));
    disposeOld();
    const again = named("read");
    registry.register(again);
    const cached = registry.schemas();
    disposeOld();
    expect(registry.get("read")).toBe(again);
    expect(registry.schemas()).toBe(cached);
  });
});
