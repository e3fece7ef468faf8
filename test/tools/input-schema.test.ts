// Tool inputs (compileInput, jsonSchema) and ToolRegistry's async readiness: a zod 4 schema
// converts itself (no $schema, defaults optional, descriptions kept) and validates with its own
// parse; a zod 3 classic schema, a non-object input, a non-object schema and a Standard Schema
// that cannot convert itself are refused as 'invalid-tool'; a plain JSON Schema is passed through
// and checked structurally, then by jsonSchema's `validate`; a `zod/v4` schema of zod 3.25 is
// converted asynchronously by the app's zod core, so `schemas()` is 'not-ready' until `ready()`.
import { describe, expect, expectTypeOf, test } from "vitest";
import { z } from "zod";
import { z as z3 } from "zod3";
import { z as z3v4 } from "zod3/v4";
import * as core325 from "zod3/v4/core";
import * as core4 from "zod/v4/core";
import type { JsonObject } from "../../src/json/index.js";
import {
  compileInput,
  defineTool,
  jsonSchema,
  type StandardResult,
  type StandardSchema,
  type ToolDefinition,
  ToolError,
  type ToolInput,
  ToolRegistry,
} from "../../src/tools/index.js";
import { thrown } from "../support/thrown.js";
import { harness, textOf } from "./support.js";

const refusal = (run: () => unknown): ToolError => thrown(run, ToolError);

const tool = (name: string, input: ToolInput, execute: ToolDefinition["execute"] = () => name): ToolDefinition => ({
  name,
  description: `the ${name} tool`,
  input,
  execute,
});

/** A hand-made Standard Schema (no zod): accepts objects with a string `a`. */
function standard(
  vendor: string,
  extra: { jsonSchema?: { input: (options: { target: string }) => Record<string, unknown> } } = {},
): StandardSchema<{ a: string }> {
  return {
    "~standard": {
      version: 1,
      vendor,
      validate: async (value): Promise<StandardResult<{ a: string }>> => {
        const a = (value as { a?: unknown }).a;
        if (typeof a === "string") return { value: { a: a.toUpperCase() } };
        return { issues: [{ message: "a must be a string", path: [{ key: "a" }] }, { message: "and no path" }] };
      },
      ...extra,
    },
  };
}

const readSchema = z.object({
  path: z.string().describe("file to read"),
  limit: z.number().int().default(100).describe("lines"),
});

describe("compileInput: zod 4 schemas", () => {
  test("the model-facing schema is available synchronously, with no $schema key", () => {
    const { schema } = compileInput("read", readSchema);
    expect(schema).not.toBeInstanceOf(Promise);
    expect(schema).not.toHaveProperty("$schema");
    expect(schema).toMatchObject({ type: "object" });
  });

  test("fields with .default() are optional and .describe() texts are kept", () => {
    const schema = compileInput("read", readSchema).schema as JsonObject;
    expect(schema.required).toEqual(["path"]);
    expect(schema.properties).toMatchObject({
      path: { type: "string", description: "file to read" },
      limit: { type: "integer", default: 100, description: "lines" },
    });
  });

  test("validate returns zod's parsed value: defaults applied, unknown keys stripped", async () => {
    const { validate } = compileInput("read", readSchema);
    expect(await validate({ path: "a.txt", extra: 1 })).toEqual({ ok: true, value: { path: "a.txt", limit: 100 } });
    expect(await validate({ path: "a.txt", limit: 5 })).toEqual({ ok: true, value: { path: "a.txt", limit: 5 } });
  });

  test("validate refuses with one `path: message` per issue, joined by '; '", async () => {
    const { validate } = compileInput("read", readSchema);
    expect(await validate({ limit: "x" })).toEqual({
      ok: false,
      issues:
        "path: Invalid input: expected string, received undefined; limit: Invalid input: expected number, received string",
    });
  });

  test("nested issue paths are dotted, array indices included (`items.1.id`, unlike the JSON Schema check's `items[1]`)", async () => {
    const { validate } = compileInput("t", z.object({ items: z.array(z.object({ id: z.number() })) }));
    expect(await validate({ items: [{ id: 1 }, { id: "2" }] })).toEqual({
      ok: false,
      issues: "items.1.id: Invalid input: expected number, received string",
    });
  });

  test("a root-level issue is reported at `(root)`", async () => {
    const { validate } = compileInput("t", z.object({}));
    expect(await validate("text")).toEqual({
      ok: false,
      issues: "(root): Invalid input: expected object, received string",
    });
  });

  test("a zod schema that is not an object (z.string()) is refused as 'invalid-tool'", () => {
    const error = refusal(() => compileInput("echo", z.string()));
    expect(error.code).toBe("invalid-tool");
    expect(error.message).toContain("echo");
    expect(error.message).toContain("must describe an object");
  });
});

describe("compileInput: zod 3 classic schemas", () => {
  test("are refused as 'invalid-tool' with a message saying zod 4 (or zod/v4) is needed", () => {
    const error = refusal(() => compileInput("old", z3.object({ a: z3.string() })));
    expect(error.code).toBe("invalid-tool");
    expect(error.message).toContain("tool old");
    expect(error.message).toContain("zod 3 schema");
    expect(error.message).toContain("zod 4");
    expect(error.message).toContain("zod/v4");
  });

  test("are refused at registration, leaving the registry unchanged", () => {
    const registry = new ToolRegistry();
    // zod 3.25 classic schemas implement `~standard`, so the type system accepts them: only registration refuses.
    const error = refusal(() => registry.register(tool("old", z3.object({ a: z3.string() }))));
    expect(error.code).toBe("invalid-tool");
    expect(registry.names()).toEqual([]);
    expect(registry.schemas()).toEqual([]);
  });
});

describe("compileInput: plain JSON Schema objects", () => {
  const schema = {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "object",
    properties: { n: { type: "integer", description: "how many" }, tag: { type: "string" } },
    required: ["n"],
  };

  test("the schema is passed through minus $schema", () => {
    const { $schema: _dropped, ...rest } = schema;
    expect(compileInput("count", schema).schema).toEqual(rest);
  });

  test("the schema is a copy: mutating the original afterwards changes nothing", () => {
    const original = { type: "object", properties: { a: { type: "string" } } };
    const { schema: compiled } = compileInput("t", original);
    (original.properties.a as { type: string }).type = "number";
    expect(compiled).toEqual({ type: "object", properties: { a: { type: "string" } } });
  });

  test("conforming arguments pass unchanged (unknown keys kept: no additionalProperties)", async () => {
    const { validate } = compileInput("count", schema);
    expect(await validate({ n: 2, other: true })).toEqual({ ok: true, value: { n: 2, other: true } });
  });

  test("a missing required key is refused with an issue naming the key", async () => {
    const { validate } = compileInput("count", schema);
    expect(await validate({ tag: "x" })).toEqual({ ok: false, issues: "n: required" });
  });

  test("a wrong type is refused, every problem reported", async () => {
    const { validate } = compileInput("count", schema);
    expect(await validate({ n: 1.5, tag: 3 })).toEqual({
      ok: false,
      issues: "n: expected integer, got number; tag: expected string, got number",
    });
    expect(await validate([])).toEqual({ ok: false, issues: "(root): expected object, got array" });
  });

  test("a schema without `type` is accepted", () => {
    expect(compileInput("t", { properties: {} }).schema).toEqual({ properties: {} });
  });

  test.each<[string, JsonObject]>([
    ["string", { type: "string" }],
    ["array", { type: "array", items: { type: "string" } }],
    ["a list of types", { type: ["object", "null"] }],
  ])("a schema of type %s is refused as 'invalid-tool' (inputs must describe an object)", (_what, input) => {
    const error = refusal(() => compileInput("echo", input));
    expect(error.code).toBe("invalid-tool");
    expect(error.message).toContain("tool echo");
    expect(error.message).toContain("must describe an object");
  });

  test("a schema holding a non-JSON value is refused as 'invalid-tool'", () => {
    const error = refusal(() =>
      compileInput("t", { type: "object", properties: { a: undefined } } as unknown as JsonObject),
    );
    expect(error.code).toBe("invalid-tool");
    expect(error.message).toContain("cannot be expressed as JSON Schema");
  });
});

describe("compileInput: jsonSchema(schema, { validate })", () => {
  const counted = jsonSchema<{ n: number }>(
    { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
    {
      validate: (args) => {
        if ((args.n as number) < 0) throw new Error("n must not be negative");
        return { n: (args.n as number) * 2 };
      },
    },
  );

  test("jsonSchema without validate is just the schema", () => {
    const s = { type: "object" };
    expect(jsonSchema(s)).toEqual({ jsonSchema: s });
  });

  test("the model-facing schema is the wrapped schema", () => {
    expect(compileInput("t", counted).schema).toEqual({
      type: "object",
      properties: { n: { type: "number" } },
      required: ["n"],
    });
  });

  test("validate runs after the structural check and its return value is what execute gets", async () => {
    expect(await compileInput("t", counted).validate({ n: 2 })).toEqual({ ok: true, value: { n: 4 } });
  });

  test("validate does not run when the structural check fails", async () => {
    let runs = 0;
    const input = jsonSchema(
      { type: "object", required: ["n"] },
      {
        validate: (a) => {
          runs++;
          return a;
        },
      },
    );
    expect(await compileInput("t", input).validate({})).toEqual({ ok: false, issues: "n: required" });
    expect(runs).toBe(0);
  });

  test("a throwing validate refuses the arguments with a `(root): message` issue", async () => {
    expect(await compileInput("t", counted).validate({ n: -1 })).toEqual({
      ok: false,
      issues: "(root): n must not be negative",
    });
  });

  test("a validate that throws a non-Error is reported by its string form", async () => {
    const input = jsonSchema(
      { type: "object" },
      {
        validate: () => {
          throw "nope";
        },
      },
    );
    expect(await compileInput("t", input).validate({})).toEqual({ ok: false, issues: "(root): nope" });
  });
});

describe("compileInput: refused and other inputs", () => {
  test.each<[string, unknown]>([
    ["a string", "{}"],
    ["null", null],
    ["undefined", undefined],
    ["a number", 1],
    ["an array", [{ type: "object" }]],
  ])("%s is refused as 'invalid-tool'", (_what, input) => {
    const error = refusal(() => compileInput("t", input));
    expect(error.code).toBe("invalid-tool");
    expect(error.message).toContain("input must be a zod 4 schema, a Standard Schema or a JSON Schema object");
  });

  test("a Standard Schema without ~standard.jsonSchema is refused as 'invalid-tool', naming the vendor", () => {
    const error = refusal(() => compileInput("t", standard("valibotish")));
    expect(error.code).toBe("invalid-tool");
    expect(error.message).toContain("valibotish");
    expect(error.message).toContain("~standard.jsonSchema");
  });

  test("a ~standard without validate is refused as 'invalid-tool'", () => {
    const error = refusal(() => compileInput("t", { "~standard": { version: 1, vendor: "x" } }));
    expect(error.code).toBe("invalid-tool");
    expect(error.message).toContain("~standard.validate");
  });

  test("a Standard Schema with ~standard.jsonSchema converts itself (draft 2020-12 asked, $schema dropped)", () => {
    const targets: string[] = [];
    const input = standard("x", {
      jsonSchema: {
        input: ({ target }) => {
          targets.push(target);
          return { $schema: "draft", type: "object", properties: { a: { type: "string" } } };
        },
      },
    });
    expect(compileInput("t", input).schema).toEqual({ type: "object", properties: { a: { type: "string" } } });
    expect(targets).toEqual(["draft-2020-12"]);
  });

  test("a Standard Schema's (async) validate decides; `{ key }` path segments and empty paths are formatted", async () => {
    const input = standard("x", { jsonSchema: { input: () => ({ type: "object" }) } });
    const { validate } = compileInput("t", input);
    expect(await validate({ a: "hi" })).toEqual({ ok: true, value: { a: "HI" } });
    expect(await validate({})).toEqual({ ok: false, issues: "a: a must be a string; (root): and no path" });
  });
});

describe("zod/v4 of zod 3.25: converted asynchronously by the app's zod/v4/core", () => {
  const older = z3v4.object({ path: z3v4.string().describe("file to read"), limit: z3v4.number().default(100) });

  test("has no ~standard.jsonSchema, so its compiled schema is a promise", async () => {
    expect(older["~standard"]).not.toHaveProperty("jsonSchema");
    const { schema } = compileInput("read", older);
    expect(schema).toBeInstanceOf(Promise);
    await schema;
  });

  test("converts to the input-side JSON Schema (no $schema, defaults optional) but loses .describe() texts", async () => {
    // "zod/v4/core" here resolves to zod 4.6.7, not to the zod 3.25 that built the schema. The
    // conversion itself works (4.6.7 reads 3.25's `_zod.def`), but `.describe()` stores the text
    // in the *building* core's global registry: 3.25 keeps a module-local `globalRegistry`,
    // 4.6.7 uses `globalThis.__zod_globalRegistry` — two different registries, so 4.6.7's
    // toJSONSchema finds no metadata. The texts only survive when the app's `zod/v4/core` is the
    // same zod that built the schema.
    expect(older.shape.path.description).toBe("file to read");
    expect(await compileInput("read", older).schema).toEqual({
      type: "object",
      properties: { path: { type: "string" }, limit: { default: 100, type: "number" } },
      required: ["path"],
    });
  });

  test("the descriptions live in zod 3.25's own registry (why the conversion above drops them)", () => {
    expect(core325.globalRegistry.get(older.shape.path)).toEqual({ description: "file to read" });
    expect(core4.globalRegistry.get(older.shape.path as never)).toBeUndefined();
    expect(
      core4.toJSONSchema(older as never, { io: "input", metadata: core325.globalRegistry as never }),
    ).toMatchObject({
      properties: { path: { type: "string", description: "file to read" } },
    });
  });

  test("validates with its own parse, without waiting for the conversion", async () => {
    const { validate } = compileInput("read", older);
    expect(await validate({ path: "a" })).toEqual({ ok: true, value: { path: "a", limit: 100 } });
    expect(await validate({})).toEqual({
      ok: false,
      issues: "path: Invalid input: expected string, received undefined",
    });
  });

  test("a conversion failure rejects the compiled schema with ToolError 'invalid-tool'", async () => {
    const { schema } = compileInput("when", z3v4.object({ at: z3v4.date() }));
    const error = await (schema as Promise<JsonObject>).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolError);
    expect((error as ToolError).code).toBe("invalid-tool");
    expect((error as ToolError).message).toContain("tool when");
  });
});

describe("ToolRegistry readiness", () => {
  const older = () => z3v4.object({ path: z3v4.string() });

  test("ready() resolves at once when every schema converted synchronously", async () => {
    const registry = new ToolRegistry();
    registry.register(tool("read", readSchema));
    await expect(registry.ready()).resolves.toBeUndefined();
    expect(registry.schemas().map((s) => s.name)).toEqual(["read"]);
  });

  test("schemas() throws ToolError 'not-ready' naming the converting tool until ready() resolves", async () => {
    const registry = new ToolRegistry();
    registry.register(tool("zeta", older()));
    registry.register(tool("alpha", readSchema));
    const error = refusal(() => registry.schemas());
    expect(error.code).toBe("not-ready");
    expect(error.message).toContain("zeta");
    expect(error.message).not.toContain("alpha");
    expect(error.message).toContain("ready()");
    await registry.ready();
    const schemas = registry.schemas();
    expect(schemas.map((s) => s.name)).toEqual(["alpha", "zeta"]);
    expect(schemas[1]).toEqual({
      name: "zeta",
      description: "the zeta tool",
      inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
    });
    expect(Object.isFrozen(schemas[1]!.inputSchema)).toBe(true);
  });

  test("names() and get() list a converting tool at once", () => {
    const registry = new ToolRegistry();
    const t = tool("b", older());
    registry.register(t);
    registry.register(tool("a", readSchema));
    expect(registry.names()).toEqual(["a", "b"]);
    expect(registry.get("b")).toBe(t);
    expect(registry.entry("b")?.schema).toBeUndefined();
  });

  test("unregistering a converting tool makes schemas() ready without it", async () => {
    const registry = new ToolRegistry();
    registry.register(tool("a", readSchema));
    const dispose = registry.register(tool("b", older()));
    expect(refusal(() => registry.schemas()).code).toBe("not-ready");
    dispose();
    expect(registry.names()).toEqual(["a"]);
    expect(registry.schemas().map((s) => s.name)).toEqual(["a"]);
    await registry.ready();
    expect(registry.schemas().map((s) => s.name)).toEqual(["a"]);
  });

  test("a name freed while converting can be reused; the old conversion does not leak into it", async () => {
    const registry = new ToolRegistry();
    registry.register(tool("t", older()))();
    registry.register(tool("t", z.object({ n: z.number() })));
    await registry.ready();
    expect(registry.schemas()).toEqual([
      {
        name: "t",
        description: "the t tool",
        inputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
      },
    ]);
  });

  test("a failed conversion rejects ready() and schemas() with its ToolError, but the tool stays registered until disposed", async () => {
    const registry = new ToolRegistry();
    registry.register(tool("ok", readSchema));
    const dispose = registry.register(tool("when", z3v4.object({ at: z3v4.date() })));
    const error = await registry.ready().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolError);
    expect((error as ToolError).code).toBe("invalid-tool");
    expect((error as ToolError).message).toContain("tool when");
    expect(refusal(() => registry.schemas())).toBe(error);
    expect(registry.names()).toEqual(["ok", "when"]);
    dispose();
    await expect(registry.ready()).resolves.toBeUndefined();
    expect(registry.schemas().map((s) => s.name)).toEqual(["ok"]);
  });
});

describe("executeToolCall with schema inputs", () => {
  const counter = tool(
    "count",
    { type: "object", properties: { n: { type: "integer" } }, required: ["n"], additionalProperties: false },
    (args) => `got ${JSON.stringify(args)}`,
  );

  test("a plain JSON Schema tool runs with conforming arguments", async () => {
    const h = harness();
    h.registry.register(counter);
    expect(await h.call("count", { n: 3 })).toEqual({
      content: [{ type: "text", text: 'got {"n":3}' }],
      isError: false,
    });
  });

  test("bad arguments to a plain JSON Schema tool become an 'invalid-arguments' error result listing the problems", async () => {
    const h = harness();
    h.registry.register(counter);
    const outcome = await h.call("count", { n: "3", extra: 1 });
    expect(outcome.isError).toBe(true);
    expect(outcome.error).toBe("invalid-arguments");
    expect(textOf(outcome)).toBe(
      "Invalid arguments for count: n: expected integer, got string; extra: unknown property",
    );
  });

  test("a throwing jsonSchema validate becomes an 'invalid-arguments' error result and the tool does not run", async () => {
    const h = harness();
    let runs = 0;
    h.registry.register(
      tool(
        "guarded",
        jsonSchema(
          { type: "object" },
          {
            validate: () => {
              throw new Error("path escapes the workspace");
            },
          },
        ),
        () => `ran ${++runs}`,
      ),
    );
    const outcome = await h.call("guarded", {});
    expect(outcome.error).toBe("invalid-arguments");
    expect(textOf(outcome)).toBe("Invalid arguments for guarded: (root): path escapes the workspace");
    expect(runs).toBe(0);
  });

  test("a zod/v4 (zod 3.25) tool can be called while its schema is still converting", async () => {
    const h = harness();
    h.registry.register(
      tool("read", z3v4.object({ path: z3v4.string() }), (args) => `read ${(args as { path: string }).path}`),
    );
    expect(refusal(() => h.registry.schemas()).code).toBe("not-ready");
    expect(textOf(await h.call("read", { path: "a" }))).toBe("read a");
  });
});

describe("defineTool argument types", () => {
  test("a zod object types execute's args from its output", () => {
    const t = defineTool({
      name: "z",
      description: "d",
      input: z.object({ a: z.string() }),
      execute: (args) => {
        expectTypeOf(args.a).toEqualTypeOf<string>();
        return args.a;
      },
    });
    expectTypeOf<Parameters<typeof t.execute>[0]>().toEqualTypeOf<{ a: string }>();
  });

  test("a zod/v4 (zod 3.25) object types args the same way", () => {
    const t = defineTool({
      name: "z",
      description: "d",
      input: z3v4.object({ a: z3v4.string(), n: z3v4.number().default(1) }),
      execute: (args) => args.a,
    });
    expectTypeOf<Parameters<typeof t.execute>[0]>().toEqualTypeOf<{ a: string; n: number }>();
  });

  test("jsonSchema<Args> types args as Args", () => {
    const t = defineTool({
      name: "j",
      description: "d",
      input: jsonSchema<{ n: number }>({ type: "object", properties: { n: { type: "number" } }, required: ["n"] }),
      execute: (args) => {
        expectTypeOf(args.n).toEqualTypeOf<number>();
        return String(args.n);
      },
    });
    expectTypeOf<Parameters<typeof t.execute>[0]>().toEqualTypeOf<{ n: number }>();
  });

  test("a plain JSON Schema types args as JsonObject", () => {
    const t = defineTool({
      name: "p",
      description: "d",
      input: { type: "object", properties: { n: { type: "number" } } },
      execute: (args) => JSON.stringify(args),
    });
    expectTypeOf<Parameters<typeof t.execute>[0]>().toEqualTypeOf<JsonObject>();
  });
});
