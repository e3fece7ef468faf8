// closeObjects: the JSON Schema a model is asked to answer with — every object schema that does
// not say otherwise gets `additionalProperties: false`. Both native mechanisms want closed
// objects (Anthropic requires them; OpenAI's strict mode too), and a zod object's input schema
// leaves them open because zod strips unknown keys. Closing narrows only what the model may
// write, never what the original schema accepts, so the answer is still validated against the
// schema the application gave. An explicit `additionalProperties` (true or a schema) is kept.
// Pure; returns a new value and never mutates its input.
import type { JsonObject, JsonValue } from "../json/index.js";

const isObject = (value: JsonValue | undefined): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Keywords whose value is one subschema. */
const ONE = ["items", "additionalProperties", "not", "contains", "if", "then", "else"];
/** Keywords whose value is a list of subschemas. */
const LIST = ["anyOf", "oneOf", "allOf", "prefixItems"];
/** Keywords whose value maps names to subschemas. */
const MAP = ["properties", "$defs", "definitions", "patternProperties"];

export function closeObjects(schema: JsonObject): JsonObject {
  return close(schema) as JsonObject;
}

function close(node: JsonValue): JsonValue {
  if (!isObject(node)) return node;
  const out: Record<string, JsonValue> = { ...node };
  for (const key of ONE) if (isObject(out[key])) out[key] = close(out[key]);
  for (const key of LIST) {
    const list = out[key];
    if (Array.isArray(list)) out[key] = list.map(close);
  }
  for (const key of MAP) {
    const map = out[key];
    if (isObject(map)) out[key] = Object.fromEntries(Object.entries(map).map(([name, sub]) => [name, close(sub)]));
  }
  const objectType = out.type === "object" || (Array.isArray(out.type) && out.type.includes("object"));
  if ((objectType || isObject(out.properties)) && out.additionalProperties === undefined)
    out.additionalProperties = false;
  return out;
}
