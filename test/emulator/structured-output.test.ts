// The emulator honours structured output (issue #23 §3): `sampleJson` builds a value that
// validates for the schemas Keelson sends; both wires parse the provider's native field and
// refuse what the provider refuses; the rule-based model answers JSON that the real SDKs' own
// structured-output helpers parse (`messages.parse` with zodOutputFormat, `chat.completions.parse`
// with zodResponseFormat); JSON mode (DeepSeek) honours the schema Keelson's instruction states.
import { zodOutputFormat } from "@anthropic-ai/sdk/helpers/zod";
import { zodResponseFormat } from "openai/helpers/zod";
import { describe, expect, test } from "vitest";
import { z } from "zod";
import { EmulatorProvider, RuleBasedModel, sampleJson } from "../../src/emulator/index.js";
import type { JsonObject } from "../../src/json/index.js";
import { jsonModeInstruction } from "../../src/llm/core.js";
import { compileOutput } from "../../src/output/index.js";
import { checkJsonSchema } from "../../src/tools/index.js";
import { anthropicClient, emulator, openaiClient, post, rejection } from "./support.js";

const person = z.object({
  name: z.string().min(3).max(10),
  age: z.number().int().min(18).max(120),
  email: z.email(),
  role: z.enum(["admin", "user"]),
  score: z.number().gt(0.5).multipleOf(0.25),
  tags: z.array(z.string()).min(2),
  address: z.object({ city: z.string(), zip: z.string().length(5) }),
  nickname: z.string().optional(),
  manager: z.union([z.null(), z.object({ id: z.uuid() })]),
  created: z.iso.datetime(),
});
const schemaOf = (schema: object): JsonObject => (compileOutput(schema).format as { schema: JsonObject }).schema;

describe("sampleJson", () => {
  const cases: readonly (readonly [string, JsonObject])[] = [
    ["a zod object with bounds, formats, enums, arrays, nesting and unions", schemaOf(person)],
    [
      "local $ref into $defs",
      {
        type: "object",
        properties: { n: { $ref: "#/$defs/n" } },
        required: ["n"],
        $defs: { n: { type: "integer", exclusiveMinimum: 4 } },
      },
    ],
    [
      "allOf of objects",
      {
        allOf: [
          { type: "object", properties: { a: { type: "string" } }, required: ["a"] },
          { type: "object", properties: { b: { type: "boolean" } }, required: ["b"] },
        ],
      },
    ],
    [
      "const, type lists and a numeric maximum below zero",
      {
        type: "object",
        properties: { c: { const: "x" }, t: { type: ["null", "number"], maximum: -3 } },
        required: ["c", "t"],
      },
    ],
    [
      "a recursive tree",
      { type: "object", properties: { children: { type: "array", items: { $ref: "#" } } }, required: ["children"] },
    ],
  ];
  test.each(cases)("validates: %s", (_what, schema) => {
    const value = sampleJson(schema, { text: "the answer" });
    expect(checkJsonSchema(schema, value)).toEqual([]);
  });

  test("is deterministic, writes only required properties, and puts the text in the first free string", () => {
    const schema = schemaOf(person);
    expect(sampleJson(schema, { text: "Ada Lovelace" })).toEqual(sampleJson(schema, { text: "Ada Lovelace" }));
    const value = sampleJson(schema, { text: "Ada Lovelace" }) as Record<string, unknown>;
    expect(value).not.toHaveProperty("nickname");
    expect(value.name).toBe("Ada Lovela"); // maxLength 10
    expect(value.email).toBe("user@example.com");
  });
});

describe("the wires", () => {
  test("Anthropic: messages.parse with the SDK's zodOutputFormat gets a parsed_output from the rule-based model", async () => {
    const server = await emulator();
    const schema = z.object({ summary: z.string(), done: z.boolean() });
    const message = await anthropicClient(server).messages.parse({
      model: "claude-sonnet-4-5",
      max_tokens: 200,
      messages: [{ role: "user", content: "Summarize the plan." }],
      output_config: { format: zodOutputFormat(schema) },
    });
    expect(message.parsed_output).toEqual({ summary: "Understood: Summarize the plan.", done: false });
    expect(server.requests[0]!.request?.output).toMatchObject({ mode: "json_schema" });
  });

  test("Anthropic: a schema with keywords the API refuses is its 400", async () => {
    const server = await emulator();
    const error = await rejection(() =>
      anthropicClient(server).messages.create({
        model: "claude-sonnet-4-5",
        max_tokens: 50,
        messages: [{ role: "user", content: "hi" }],
        output_config: {
          format: {
            type: "json_schema",
            schema: { type: "object", properties: { n: { type: "integer", minimum: 0 } }, additionalProperties: false },
          },
        },
      }),
    );
    expect(error).toMatchObject({ status: 400 });
    expect(String(error)).toContain(
      "output_config.format.schema.properties.n: For 'integer' type, property 'minimum' is not supported",
    );
    const open = await post(`${server.anthropicBaseURL}/v1/messages`, {
      model: "m",
      max_tokens: 5,
      messages: [{ role: "user", content: "hi" }],
      output_config: { format: { type: "json_schema", schema: { type: "object", properties: {} } } },
    });
    expect(open.status).toBe(400);
    expect(open.text).toContain("'additionalProperties' must be explicitly set to false");
  });

  test("OpenAI: chat.completions.parse with the SDK's zodResponseFormat gets a parsed message", async () => {
    const server = await emulator();
    const schema = z.object({ city: z.string(), celsius: z.number().int() });
    const completion = await openaiClient(server).chat.completions.parse({
      model: "gpt-5.1",
      messages: [{ role: "user", content: "Weather in Oslo?" }],
      response_format: zodResponseFormat(schema, "weather"),
    });
    expect(completion.choices[0]!.message.parsed).toEqual({ city: "Understood: Weather in Oslo?", celsius: 0 });
  });

  test("OpenAI: strict refuses an open object or an optional property; a bad name and an unknown type are 400s", async () => {
    const server = await emulator();
    const body = (response_format: unknown) => ({
      model: "gpt-5.1",
      messages: [{ role: "user", content: "hi" }],
      response_format,
    });
    const url = `${server.openaiBaseURL}/chat/completions`;
    const strict = (schema: JsonObject) =>
      body({ type: "json_schema", json_schema: { name: "out", schema, strict: true } });
    const open = await post(url, strict({ type: "object", properties: { a: { type: "string" } }, required: ["a"] }));
    expect(open.status).toBe(400);
    expect(open.text).toContain(
      "Invalid schema for response_format 'out': In context=(), 'additionalProperties' is required",
    );
    const optional = await post(
      url,
      strict({ type: "object", properties: { a: { type: "string" } }, additionalProperties: false }),
    );
    expect(optional.text).toContain("Missing 'a'");
    const badName = await post(url, body({ type: "json_schema", json_schema: { name: "a b", schema: {} } }));
    expect(badName.status).toBe(400);
    const unknown = await post(url, body({ type: "yaml" }));
    expect(unknown.text).toContain("Supported values are: 'json_object', 'json_schema', and 'text'.");
  });

  test("JSON mode needs the word json; with Keelson's instruction the answer matches its schema; DeepSeek has no json_schema", async () => {
    const server = await emulator({ style: "deepseek" });
    const url = `${server.openaiBaseURL}/chat/completions`;
    const noWord = await post(url, {
      model: "deepseek-chat",
      messages: [{ role: "user", content: "hi" }],
      response_format: { type: "json_object" },
    });
    expect(noWord.status).toBe(400);
    expect(noWord.text).toContain("must contain the word 'json'");
    const schema = schemaOf(z.object({ answer: z.string(), n: z.number().int().min(2) }));
    const completion = await openaiClient(server).chat.completions.create({
      model: "deepseek-chat",
      messages: [
        { role: "system", content: jsonModeInstruction({ name: "output", schema }) },
        { role: "user", content: "hi" },
      ],
      response_format: { type: "json_object" },
    });
    expect(JSON.parse(completion.choices[0]!.message.content!)).toEqual({ answer: "Understood: hi", n: 2 });
    const jsonSchema = await post(url, {
      model: "deepseek-chat",
      messages: [{ role: "user", content: "json please" }],
      response_format: { type: "json_schema", json_schema: { name: "x", schema: {} } },
    });
    expect(jsonSchema.status).toBe(400);
    expect(jsonSchema.text).toContain("Supported values are: 'json_object' and 'text'.");
  });
});

describe("the models", () => {
  test("the rule-based model calls a tool first, then answers JSON; the in-process provider honours request.output", async () => {
    const model = new RuleBasedModel();
    const base = {
      api: "in-process" as const,
      model: "m",
      system: "",
      maxTokens: undefined,
      stop: [],
      sessionKey: "s",
      stream: true,
      output: { mode: "json_schema" as const, schema: schemaOf(z.object({ path: z.string() })) },
    };
    const tools = [{ name: "read", inputSchema: { type: "object", properties: { path: { type: "string" } } } }];
    const call = model.reply({
      ...base,
      tools,
      messages: [{ role: "user", content: [{ type: "text", text: "read notes.txt" }] }],
    });
    expect(call).toMatchObject({ toolCalls: [{ name: "read", arguments: { path: "notes.txt" } }] });
    const provider = new EmulatorProvider();
    let text = "";
    for await (const chunk of provider.stream({
      model: "m",
      messages: [{ role: "user", content: [{ type: "text", text: "hello" }] }],
      output: { name: "output", schema: schemaOf(z.object({ greeting: z.string() })) },
      signal: new AbortController().signal,
      sessionId: "s",
    }))
      if (chunk.type === "text-delta") text += chunk.text;
    expect(JSON.parse(text)).toEqual({ greeting: "Understood: hello" });
  });
});
