// anthropicOutputSchema: a JSON Schema as Anthropic's structured outputs accept it
// (`output_config.format.schema`). The API refuses keywords its grammar cannot enforce (e.g.
// `minimum` on an integer: 400 "property 'minimum' is not supported"), so this mirrors the pinned
// SDK's own `transformJSONSchema` (@anthropic-ai/sdk 1.15.0, lib/transform-json-schema): objects
// are closed (`additionalProperties: false`), `oneOf` becomes `anyOf`, string formats outside the
// supported list and every other unsupported keyword move into the `description` text (the model
// still reads them; Keelson's validation still enforces them). Written out here because the SDK is
// loaded on the first request only and the wire mapping is synchronous; a test pins it to the
// SDK's function. One difference: a subschema with no type (and no enum, const or union), which
// the SDK throws on, is passed through as it is, for the API to refuse with its own message.
// Pure; never mutates its input.
import type { JsonObject, JsonValue } from "../../json/index.js";

/** The string formats Anthropic's structured outputs accept (the API refuses the others). */
export const ANTHROPIC_STRING_FORMATS: ReadonlySet<string> = new Set([
  "date-time",
  "time",
  "date",
  "duration",
  "email",
  "hostname",
  "uri",
  "ipv4",
  "ipv6",
  "uuid",
]);

const isPrimitive = (value: JsonValue | undefined): boolean => value === null || typeof value !== "object";
const isObject = (value: JsonValue | undefined): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The schema Anthropic is sent for `schema` (which must describe an object). */
export function anthropicOutputSchema(schema: JsonObject): JsonObject {
  return transform(schema);
}

function transform(input: JsonValue): JsonObject {
  // A working copy whose keys are taken as they are handled; what is left goes to the description.
  const rest: Record<string, JsonValue> = isObject(input) ? { ...input } : {};
  const take = (key: string): JsonValue | undefined => {
    const value = rest[key];
    delete rest[key];
    return value;
  };
  const out: Record<string, JsonValue> = {};
  const defs = take("$defs");
  if (defs !== undefined && isObject(defs))
    out.$defs = Object.fromEntries(Object.entries(defs).map(([name, def]) => [name, transform(def)]));
  const ref = take("$ref");
  if (ref !== undefined) {
    out.$ref = ref;
    return out;
  }
  const enumValues = rest.enum;
  if (Array.isArray(enumValues) && enumValues.length > 0 && enumValues.every(isPrimitive)) out.enum = take("enum")!;
  if (rest.const !== undefined && isPrimitive(rest.const)) out.const = take("const")!;
  const literal = "enum" in out || "const" in out;
  const declared = take("type");
  const type = literal ? undefined : declared;
  const anyOf = take("anyOf");
  const oneOf = take("oneOf");
  const allOf = take("allOf");
  take("$schema");
  if (Array.isArray(anyOf)) out.anyOf = anyOf.map(transform);
  else if (Array.isArray(oneOf)) out.anyOf = oneOf.map(transform);
  else if (Array.isArray(allOf)) out.allOf = allOf.map(transform);
  else if (!literal && type !== undefined) out.type = type;
  const description = take("description");
  if (description !== undefined) out.description = description;
  const title = take("title");
  if (title !== undefined) out.title = title;
  if (type === "object") {
    const properties = take("properties");
    out.properties = isObject(properties)
      ? Object.fromEntries(Object.entries(properties).map(([key, value]) => [key, transform(value)]))
      : {};
    take("additionalProperties");
    out.additionalProperties = false;
    const required = take("required");
    if (required !== undefined) out.required = required;
  } else if (type === "string") {
    // An unsupported value goes back to the end of the leftovers, as the SDK does.
    const format = take("format");
    if (typeof format === "string" && ANTHROPIC_STRING_FORMATS.has(format)) out.format = format;
    else if (format !== undefined) rest.format = format;
  } else if (type === "array") {
    const items = take("items");
    if (items !== undefined) out.items = transform(items);
    const minItems = take("minItems");
    if (minItems === 0 || minItems === 1) out.minItems = minItems;
    else if (minItems !== undefined) rest.minItems = minItems;
  }
  const left = Object.entries(rest);
  if (left.length > 0) {
    const constraints = `{${left.map(([key, value]) => `${key}: ${JSON.stringify(value)}`).join(", ")}}`;
    out.description =
      typeof out.description === "string" && out.description !== ""
        ? `${out.description}\n\n${constraints}`
        : constraints;
  }
  return out;
}
