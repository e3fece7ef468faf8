// Structured output on Chat Completions: `response_format`. `json_schema` (OpenAI and any
// compatible server) sends the logged schema with `strict: true` when it lies inside OpenAI's
// strict subset — every object closed (`additionalProperties: false`) and every property
// required, only the keywords strict mode accepts, an object at the root — and `strict: false`
// otherwise (the API then follows the schema as guidance; Keelson validates the answer either
// way). `json_object` (DeepSeek's JSON mode) carries no schema: the adapter puts it in the system
// prompt instead (json-mode.ts). Pure.
import type OpenAI from "openai";
import type { JsonObject, JsonValue } from "../../json/index.js";
import type { OutputFormat } from "../types.js";

export type ResponseFormatParam = OpenAI.ResponseFormatJSONSchema | OpenAI.ResponseFormatJSONObject;

/** How a flavor asks for structured output. */
export type OutputMode = "json_schema" | "json_object";

export function responseFormat(output: OutputFormat, mode: OutputMode): ResponseFormatParam {
  if (mode === "json_object") return { type: "json_object" };
  return {
    type: "json_schema",
    json_schema: {
      name: output.name,
      schema: output.schema as Record<string, unknown>,
      strict: isStrictSchema(output.schema),
    },
  };
}

/** Keywords strict mode accepts (OpenAI structured outputs, "Supported schemas"). */
const STRICT_KEYWORDS = new Set([
  "type",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "enum",
  "const",
  "anyOf",
  "$defs",
  "definitions",
  "$ref",
  "description",
  "title",
  "pattern",
  "format",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minItems",
  "maxItems",
]);

const isObject = (value: JsonValue | undefined): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** True when `schema` can be sent with `strict: true` as it is. */
export function isStrictSchema(schema: JsonObject): boolean {
  return schema.type === "object" && schema.anyOf === undefined && strictNode(schema);
}

function strictNode(node: JsonValue): boolean {
  if (!isObject(node)) return false;
  for (const key of Object.keys(node)) if (!STRICT_KEYWORDS.has(key)) return false;
  const properties = node.properties;
  const isObjectType = node.type === "object" || (Array.isArray(node.type) && node.type.includes("object"));
  if (isObjectType || properties !== undefined) {
    if (node.additionalProperties !== false) return false;
    const keys = isObject(properties) ? Object.keys(properties) : [];
    const required = Array.isArray(node.required) ? node.required : [];
    if (!keys.every((key) => required.includes(key))) return false;
    if (!keys.every((key) => strictNode((properties as JsonObject)[key]!))) return false;
  }
  if (node.items !== undefined && !strictNode(node.items)) return false;
  if (node.anyOf !== undefined && !(Array.isArray(node.anyOf) && node.anyOf.every(strictNode))) return false;
  for (const defs of [node.$defs, node.definitions])
    if (defs !== undefined && !(isObject(defs) && Object.values(defs).every(strictNode))) return false;
  return true;
}
