// Structured output on the wire (issue #23 §3), per adapter: Anthropic `output_config.format`
// with the schema in Anthropic's dialect (pinned to the SDK's own transformJSONSchema), Chat
// Completions `response_format` json_schema (strict only inside OpenAI's strict subset), DeepSeek
// JSON mode (json_object plus the schema instruction in the system prompt, read back by the
// emulator), and a request without output mapped with no trace of the feature.
import { transformJSONSchema } from "@anthropic-ai/sdk/lib/transform-json-schema";
import { describe, expect, test } from "vitest";
import { z } from "zod";
import type { JsonObject } from "../../src/json/index.js";
import { schemaInJsonModeInstruction } from "../../src/llm/core.js";
import { anthropicOutputSchema, anthropicRequestBody, isStrictSchema } from "../../src/llm/index.js";
import { chatWireOptions, toChatCompletionsParams } from "../../src/llm/openai/index.js";
import { compileOutput } from "../../src/output/index.js";
import { request } from "./support.js";

const user = (text: string) => ({ role: "user" as const, content: [{ type: "text" as const, text }] });
const output = {
  name: "answer",
  schema: { type: "object", properties: { a: { type: "string" } }, required: ["a"], additionalProperties: false },
} as const;

/** Schemas that exercise every branch of Anthropic's dialect. */
const DIALECT_CASES: readonly JsonObject[] = [
  { type: "object", properties: { n: { type: "integer", minimum: 0, maximum: 9 } }, required: ["n"] },
  {
    type: "object",
    description: "a person",
    title: "Person",
    properties: {
      name: { type: "string", minLength: 1, maxLength: 40, pattern: "^[A-Z]" },
      email: { type: "string", format: "email" },
      site: { type: "string", format: "iri" },
      tags: { type: "array", items: { type: "string" }, minItems: 2, maxItems: 5 },
      one: { type: "array", items: { type: "number" }, minItems: 1 },
      kind: { enum: ["a", "b"], type: "string" },
      fixed: { const: 3 },
      either: { oneOf: [{ type: "string" }, { type: "null" }] },
      both: { allOf: [{ type: "object", properties: { x: { type: "boolean" } } }] },
      map: { type: "object", additionalProperties: { type: "number" } },
      ref: { $ref: "#/$defs/node" },
    },
    required: ["name"],
    additionalProperties: true,
    $defs: { node: { type: "object", properties: { id: { type: "string", default: "x" } } } },
  },
  { type: "object", properties: {}, $schema: "https://json-schema.org/draft/2020-12/schema" },
];

describe("Anthropic: output_config.format", () => {
  test.each(DIALECT_CASES.map((schema, i) => [i, schema] as const))(
    "the schema's Anthropic dialect equals the pinned SDK's transformJSONSchema, key order included (case %i)",
    (_i, schema) => {
      expect(JSON.stringify(anthropicOutputSchema(schema))).toBe(JSON.stringify(transformJSONSchema(schema)));
    },
  );

  test("a request with output carries output_config.format json_schema; one without carries no output_config", () => {
    const body = anthropicRequestBody(request({ messages: [user("hi")], output }), { defaultMaxTokens: 100 });
    expect(body.output_config).toEqual({
      format: { type: "json_schema", schema: anthropicOutputSchema(output.schema) },
    });
    const plain = anthropicRequestBody(request({ messages: [user("hi")] }), { defaultMaxTokens: 100 });
    expect(Object.keys(plain)).toEqual(["model", "max_tokens", "messages", "metadata", "stream"]);
  });

  test("never mutates the logged schema", () => {
    const schema = structuredClone(DIALECT_CASES[1]!);
    const before = JSON.stringify(schema);
    anthropicOutputSchema(schema);
    expect(JSON.stringify(schema)).toBe(before);
  });
});

describe("Chat Completions: response_format", () => {
  test("OpenAI: json_schema with the logged name and schema, strict for a schema in the strict subset", () => {
    const params = toChatCompletionsParams(
      request({ messages: [user("hi")], output }),
      chatWireOptions({ flavor: "openai" }),
    );
    expect(params.response_format).toEqual({
      type: "json_schema",
      json_schema: { name: "answer", schema: output.schema, strict: true },
    });
    expect(params.messages).toEqual([{ role: "user", content: "hi" }]);
  });

  test("strict only when every object is closed, every property required and every keyword allowed", () => {
    const closed = (properties: JsonObject, required = Object.keys(properties)): JsonObject => ({
      type: "object",
      properties,
      required,
      additionalProperties: false,
    });
    expect(isStrictSchema(closed({ a: { type: "string" } }))).toBe(true);
    expect(isStrictSchema(closed({ a: { type: "string" }, b: { type: "number" } }, ["a"]))).toBe(false);
    expect(isStrictSchema({ type: "object", properties: { a: { type: "string" } }, required: ["a"] })).toBe(false);
    expect(isStrictSchema(closed({ a: { type: "string", minLength: 1 } }))).toBe(false);
    expect(
      isStrictSchema(closed({ a: { anyOf: [closed({ x: { type: "integer", minimum: 0 } }), { type: "null" }] } })),
    ).toBe(true);
    expect(isStrictSchema(closed({ a: { type: "object", properties: { x: { type: "string" } } } }))).toBe(false);
    expect(isStrictSchema({ anyOf: [closed({})] })).toBe(false);
    // zod: an optional field leaves `required` short (strict: false); a nullable one stays strict.
    const format = (schema: z.ZodType) => compileOutput(schema).format as { schema: JsonObject };
    expect(isStrictSchema(format(z.object({ a: z.string().optional() })).schema)).toBe(false);
    expect(isStrictSchema(format(z.object({ a: z.string().nullable(), n: z.number().int() })).schema)).toBe(true);
  });

  test("DeepSeek: json_object, and the schema instruction appended to the system prompt (the emulator reads it back)", () => {
    const deepseek = chatWireOptions({ flavor: "deepseek" });
    const params = toChatCompletionsParams(request({ system: "Be brief.", messages: [user("hi")], output }), deepseek);
    expect(params.response_format).toEqual({ type: "json_object" });
    const system = params.messages[0] as { role: string; content: string };
    expect(system.role).toBe("system");
    expect(system.content).toMatch(
      /^Be brief\.\n\nAnswer with a single JSON object, and nothing else, that matches this JSON Schema \(answer\):\n```json\n/,
    );
    expect(schemaInJsonModeInstruction(system.content)).toEqual(output.schema);
    const bare = toChatCompletionsParams(request({ messages: [user("hi")], output }), deepseek);
    expect((bare.messages[0] as { role: string }).role).toBe("system");
    expect(schemaInJsonModeInstruction((bare.messages[0] as { content: string }).content)).toEqual(output.schema);
  });

  test("a request without output carries no response_format and no instruction, on every flavor", () => {
    for (const flavor of ["openai", "deepseek", "compatible"] as const) {
      const params = toChatCompletionsParams(
        request({ system: "Be brief.", messages: [user("hi")] }),
        chatWireOptions({ flavor }),
      );
      expect(params).not.toHaveProperty("response_format");
      expect(params.messages[0]).toEqual({ role: "system", content: "Be brief." });
    }
  });
});
