// The output layer's pure parts (issue #23 §3): compiling an output schema exactly as tool inputs
// compile (zod 4, Standard Schema, JSON Schema, jsonSchema()), closing objects for the native
// mechanisms without narrowing what validates, parsing an answer (one code fence, nothing else),
// bounding issues, and the repair prompt.
import { describe, expect, test } from "vitest";
import { z } from "zod";
import type { JsonObject } from "../../src/json/index.js";
import {
  boundIssues,
  closeObjects,
  compileOutput,
  MAX_ISSUE_CHARS,
  MAX_ISSUES,
  OutputError,
  parseAnswer,
  repairPrompt,
} from "../../src/output/index.js";
import { checkJsonSchema, jsonSchema, type StandardSchema } from "../../src/tools/index.js";

describe("compileOutput", () => {
  test("the same schema object compiles once (so prompts with it share a turn)", () => {
    const schema = z.object({ a: z.string() });
    expect(compileOutput(schema)).toBe(compileOutput(schema));
    expect(compileOutput(schema)).not.toBe(compileOutput(z.object({ a: z.string() })));
  });

  test("the format is frozen, named `output`, with $schema dropped and objects closed", () => {
    const { format } = compileOutput(z.object({ a: z.object({ b: z.number() }) }));
    expect(format).toEqual({
      name: "output",
      schema: {
        type: "object",
        properties: {
          a: {
            type: "object",
            properties: { b: { type: "number" } },
            required: ["b"],
            additionalProperties: false,
          },
        },
        required: ["a"],
        additionalProperties: false,
      },
    });
    expect(Object.isFrozen((format as { schema: object }).schema)).toBe(true);
  });

  test("a Standard Schema without JSON Schema conversion is refused, as for tool inputs", () => {
    const valibotish: StandardSchema = {
      "~standard": { version: 1, vendor: "valibotish", validate: (v) => ({ value: v }) },
    };
    const error = (() => {
      try {
        compileOutput(valibotish);
      } catch (e) {
        return e;
      }
    })() as OutputError;
    expect(error).toBeInstanceOf(OutputError);
    expect(error.code).toBe("invalid-schema");
    expect(error.message).toContain("the output is a valibotish schema that cannot convert itself");
  });

  test("check: parse, then the schema's own validator; a throwing validate is an issue, never a throw", async () => {
    const throwing = jsonSchema<{ n: number }>(
      { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
      {
        validate: () => {
          throw new Error("refined away");
        },
      },
    );
    const compiled = compileOutput(throwing);
    expect(await compiled.check('{"n":1}')).toEqual({ ok: false, issues: ["(root): refined away"] });
    expect(await compiled.check('{"n":"1"}')).toEqual({ ok: false, issues: ["n: expected number, got string"] });
    expect(await compiled.check("")).toEqual({
      ok: false,
      issues: ["(root): the answer is empty; expected a JSON object"],
    });
  });

  test("the validator is the application's schema, not the closed one sent to the model", async () => {
    const open: JsonObject = { type: "object", properties: { a: { type: "string" } } };
    expect(await compileOutput(open).check('{"a":"x","extra":1}')).toEqual({ ok: true, value: { a: "x", extra: 1 } });
  });
});

describe("closeObjects", () => {
  test("closes every object that says nothing, keeps explicit additionalProperties, never mutates", () => {
    const schema: JsonObject = {
      type: "object",
      properties: {
        list: { type: "array", items: { type: "object", properties: { x: { type: "string" } } } },
        map: { type: "object", additionalProperties: { type: "number" } },
        either: { anyOf: [{ type: "object", properties: {} }, { type: "null" }] },
      },
      $defs: { node: { type: "object", properties: { id: { type: "string" } } } },
    };
    const before = JSON.stringify(schema);
    const closed = closeObjects(schema) as Record<string, never>;
    expect(JSON.stringify(schema)).toBe(before);
    expect(closed).toMatchObject({
      additionalProperties: false,
      properties: {
        list: { items: { additionalProperties: false } },
        map: { additionalProperties: { type: "number" } },
        either: { anyOf: [{ additionalProperties: false }, { type: "null" }] },
      },
      $defs: { node: { additionalProperties: false } },
    });
  });

  test("a closed schema accepts only what the original accepts (it narrows what the model may write)", () => {
    const schema: JsonObject = { type: "object", properties: { a: { type: "string" } }, required: ["a"] };
    const closed = closeObjects(schema);
    for (const value of [{ a: "x" }, { a: "x", b: 1 }, { a: 1 }, {}])
      if (checkJsonSchema(closed, value).length === 0) expect(checkJsonSchema(schema, value)).toEqual([]);
    expect(checkJsonSchema(closed, { a: "x", b: 1 })).toEqual(["b: unknown property"]);
  });
});

describe("parseAnswer", () => {
  test("bare JSON, or JSON in one code fence (with or without a language tag)", () => {
    expect(parseAnswer(' {"a":1}\n')).toEqual({ ok: true, value: { a: 1 } });
    expect(parseAnswer('```json\n{"a":1}\n```')).toEqual({ ok: true, value: { a: 1 } });
    expect(parseAnswer('```\n{"a":1}\n```')).toEqual({ ok: true, value: { a: 1 } });
  });

  test("prose around the JSON is an issue (the repair round says so), bounded to one line", () => {
    const parsed = parseAnswer(`Here you go: {"a":1}\n${"x".repeat(5000)}`);
    expect(parsed.ok).toBe(false);
    const issue = (parsed as { issue: string }).issue;
    expect(issue).toMatch(/^\(root\): the answer is not valid JSON \(/);
    expect([...issue].length).toBeLessThanOrEqual(MAX_ISSUE_CHARS);
    expect(issue).not.toContain("\n");
  });
});

describe("bounds and the repair prompt", () => {
  test("at most MAX_ISSUES lines of at most MAX_ISSUE_CHARS; the last says how many were left out", () => {
    const issues = Array.from({ length: 100 }, (_, i) => `items.${i}: ${"bad ".repeat(200)}`);
    const bounded = boundIssues(issues);
    expect(bounded).toHaveLength(MAX_ISSUES);
    expect(bounded.at(-1)).toBe(`… and ${100 - MAX_ISSUES + 1} more issues`);
    for (const line of bounded) expect([...line].length).toBeLessThanOrEqual(MAX_ISSUE_CHARS);
    expect(boundIssues(["a: b"])).toEqual(["a: b"]);
  });

  test("the repair prompt lists the issues and asks for the corrected JSON alone", () => {
    expect(repairPrompt(["a: required", "b: expected number, got string"])).toBe(
      [
        "Your answer does not match the required output schema:",
        "- a: required",
        "- b: expected number, got string",
        "Answer again with only the corrected JSON object.",
      ].join("\n"),
    );
  });
});
