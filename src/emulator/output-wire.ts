// Structured output as the wires ask for it, validated the way the providers refuse it:
// Anthropic `output_config.format` (json_schema only; every object closed; no numeric bounds,
// string lengths or array bounds beyond minItems 0/1, no unsupported string formats — the API's
// 400 "For 'integer' type, property 'minimum' is not supported"), and Chat Completions
// `response_format` (`text`, `json_object` — which needs the word "json" in the messages — or
// `json_schema` with a valid name, whose `strict: true` demands closed objects and every property
// required; DeepSeek style knows only `json_object`). JSON mode's schema is read back from
// Keelson's instruction in the system prompt (llm json-mode.ts), when there is one.
import type { JsonObject, JsonValue } from "../json/index.js";
import { schemaInJsonModeInstruction } from "../llm/core.js";
import { ANTHROPIC_STRING_FORMATS } from "../llm/index.js";
import type { Message } from "../messages/index.js";
import type { EmulatorOutput } from "./types.js";
import { invalid, type Obj, requireObj, requireString } from "./wire-json.js";

const isObject = (value: JsonValue | undefined): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Keywords Anthropic refuses, by the type they constrain. */
const ANTHROPIC_UNSUPPORTED: Readonly<Record<string, readonly string[]>> = {
  integer: ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"],
  number: ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"],
  string: ["minLength", "maxLength"],
  array: ["maxItems", "uniqueItems"],
};

/** `output_config.format` of a Messages request, or `undefined`; a schema Anthropic refuses is its 400. */
export function parseAnthropicOutput(body: Obj): EmulatorOutput | undefined {
  if (body.output_config === undefined || body.output_config === null) return undefined;
  const config = requireObj(body.output_config, "output_config");
  if (config.format === undefined || config.format === null) return undefined;
  const format = requireObj(config.format, "output_config.format");
  if (format.type !== "json_schema") throw invalid("output_config.format.type: Input should be 'json_schema'");
  const schema = requireObj(format.schema, "output_config.format.schema") as JsonObject;
  const problem = anthropicProblem(schema, "output_config.format.schema");
  if (problem !== undefined) throw invalid(problem);
  return { mode: "json_schema", schema };
}

function anthropicProblem(node: JsonValue, path: string): string | undefined {
  if (!isObject(node)) return undefined;
  const type = typeof node.type === "string" ? node.type : undefined;
  for (const key of ANTHROPIC_UNSUPPORTED[type ?? ""] ?? [])
    if (node[key] !== undefined) return `${path}: For '${type}' type, property '${key}' is not supported`;
  if (type === "array" && typeof node.minItems === "number" && node.minItems > 1)
    return `${path}: For 'array' type, 'minItems' values other than 0 or 1 are not supported`;
  if (type === "string" && typeof node.format === "string" && !ANTHROPIC_STRING_FORMATS.has(node.format))
    return `${path}: String format '${node.format}' is not supported`;
  if (type === "object" && node.additionalProperties !== false)
    return `${path}: For 'object' type, 'additionalProperties' must be explicitly set to false`;
  return childProblem(node, path, ".", anthropicProblem);
}

/**
 * `response_format` of a Chat Completions request, or `undefined` (absent or `text`). `system` is
 * the joined system text, where JSON mode's schema instruction lives.
 */
export function parseOpenAIOutput(
  body: Obj,
  system: string,
  messages: readonly Message[],
  options: { readonly deepseek?: boolean } = {},
): EmulatorOutput | undefined {
  if (body.response_format === undefined || body.response_format === null) return undefined;
  const format = requireObj(body.response_format, "response_format");
  if (format.type === "text") return undefined;
  if (format.type === "json_object") {
    if (!mentionsJson(system, messages))
      throw invalid(
        "'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.",
        "messages",
      );
    const schema = schemaInJsonModeInstruction(system);
    return { mode: "json_object", ...(schema === undefined ? {} : { schema }) };
  }
  if (format.type === "json_schema" && options.deepseek !== true)
    return jsonSchemaFormat(requireObj(format.json_schema, "response_format.json_schema"), "response_format");
  const supported = options.deepseek === true ? "'json_object' and 'text'" : "'json_object', 'json_schema', and 'text'";
  throw invalid(`Invalid value: '${String(format.type)}'. Supported values are: ${supported}.`, "response_format.type");
}

/**
 * `text.format` of a Responses request, or `undefined` (absent or `text`): the same json_schema
 * rules as Chat Completions, its fields flat on the format object (`{type, name, schema, strict}`).
 */
export function parseResponsesOutput(body: Obj): EmulatorOutput | undefined {
  if (body.text === undefined || body.text === null) return undefined;
  const text = requireObj(body.text, "text");
  if (text.format === undefined || text.format === null) return undefined;
  const format = requireObj(text.format, "text.format");
  if (format.type === "text") return undefined;
  if (format.type === "json_schema") return jsonSchemaFormat(format, "text.format");
  if (format.type === "json_object") return { mode: "json_object" };
  throw invalid(
    `Invalid value: '${String(format.type)}'. Supported values are: 'text', 'json_object', and 'json_schema'.`,
    "text.format.type",
  );
}

/** A json_schema spec (`name`, `schema`, `strict`) at `path` (its 400s name `path`, as the API's do). */
function jsonSchemaFormat(spec: Obj, path: string): EmulatorOutput {
  const at = path === "response_format" ? "response_format.json_schema" : path;
  const name = requireString(spec.name, `${at}.name`);
  if (!/^[a-zA-Z0-9_-]{1,64}$/.test(name))
    throw invalid(
      `Invalid '${at}.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`,
      `${at}.name`,
    );
  const schema = spec.schema === undefined ? {} : (requireObj(spec.schema, `${at}.schema`) as JsonObject);
  if (spec.strict === true) {
    const problem = schema.type === "object" ? strictProblem(schema, []) : "the root schema must be an object";
    if (problem !== undefined) throw invalid(`Invalid schema for ${path} '${name}': ${problem}`, path);
  }
  return { mode: "json_schema", schema };
}

/** OpenAI strict mode: every object closed and every property required. */
function strictProblem(node: JsonValue, context: readonly string[]): string | undefined {
  if (!isObject(node)) return undefined;
  const where = `In context=(${context.map((c) => `'${c}'`).join(", ")})`;
  if (node.type === "object" || node.properties !== undefined) {
    if (node.additionalProperties !== false)
      return `${where}, 'additionalProperties' is required to be supplied and to be false.`;
    const keys = isObject(node.properties) ? Object.keys(node.properties) : [];
    const required = Array.isArray(node.required) ? node.required : [];
    const missing = keys.find((key) => !required.includes(key));
    if (missing !== undefined)
      return `${where}, 'required' is required to be supplied and to be an array including every key in properties. Missing '${missing}'.`;
  }
  return childProblem(node, context.join("/"), "/", (child, at) => strictProblem(child, at.split("/")));
}

/** The first problem among a schema node's subschemas. */
function childProblem(
  node: JsonObject,
  path: string,
  separator: string,
  check: (child: JsonValue, path: string) => string | undefined,
): string | undefined {
  const join = (...parts: string[]): string => [path, ...parts].filter((p) => p !== "").join(separator);
  for (const key of ["properties", "$defs", "definitions"]) {
    const map = node[key];
    if (isObject(map))
      for (const [name, child] of Object.entries(map)) {
        const problem = check(child, join(key, name));
        if (problem !== undefined) return problem;
      }
  }
  if (node.items !== undefined) {
    const problem = check(node.items, join("items"));
    if (problem !== undefined) return problem;
  }
  for (const key of ["anyOf", "allOf", "oneOf"]) {
    const list = node[key];
    if (Array.isArray(list))
      for (const [i, child] of list.entries()) {
        const problem = check(child, join(key, String(i)));
        if (problem !== undefined) return problem;
      }
  }
  return undefined;
}

function mentionsJson(system: string, messages: readonly Message[]): boolean {
  if (/json/i.test(system)) return true;
  return messages.some((m) => m.content.some((b) => (b.type === "text" ? /json/i.test(b.text) : false)));
}
