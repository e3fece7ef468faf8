// checkJsonSchema: validates tool arguments against the JSON Schema keywords tool inputs use —
// `type` (one or a list; `integer` is a whole number), `properties`, `required`,
// `additionalProperties` (false or a schema), `items`, `enum`, `const`, `minimum`, `maximum`,
// `exclusiveMinimum`, `exclusiveMaximum`, `minLength`, `maxLength` (code points), `minItems`,
// `maxItems`, `anyOf`, `oneOf`, `allOf`. Other keywords (`pattern`, `format`, `$ref`, …) are
// not checked: the tool, or the MCP server behind it, is the last word. Pure; never throws.
import { canonicalJson, type JsonObject, type JsonValue } from "../json/index.js";

/** One line per problem, `path: what is wrong`; empty when the value conforms. */
export function checkJsonSchema(schema: JsonValue, value: JsonValue, path = "(root)"): string[] {
  if (schema === false) return [`${path}: not allowed`];
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return []; // `true`-like
  const problems: string[] = [];
  const s = schema as JsonObject;
  const types = s.type === undefined ? undefined : Array.isArray(s.type) ? s.type : [s.type];
  if (types !== undefined && !types.some((t) => typeof t === "string" && hasType(value, t))) {
    return [`${path}: expected ${types.join(" or ")}, got ${typeOf(value)}`];
  }
  if (Array.isArray(s.enum) && !s.enum.some((option) => same(option, value)))
    problems.push(`${path}: must be one of ${s.enum.map((o) => JSON.stringify(o)).join(", ")}`);
  if (s.const !== undefined && !same(s.const, value)) problems.push(`${path}: must be ${JSON.stringify(s.const)}`);
  if (typeof value === "number") checkNumber(s, value, path, problems);
  if (typeof value === "string") {
    const length = [...value].length;
    if (typeof s.minLength === "number" && length < s.minLength)
      problems.push(`${path}: must be at least ${s.minLength} characters`);
    if (typeof s.maxLength === "number" && length > s.maxLength)
      problems.push(`${path}: must be at most ${s.maxLength} characters`);
  }
  if (Array.isArray(value)) {
    if (typeof s.minItems === "number" && value.length < s.minItems)
      problems.push(`${path}: must have at least ${s.minItems} items`);
    if (typeof s.maxItems === "number" && value.length > s.maxItems)
      problems.push(`${path}: must have at most ${s.maxItems} items`);
    if (s.items !== undefined && !Array.isArray(s.items))
      for (const [i, item] of value.entries())
        problems.push(...checkJsonSchema(s.items as JsonValue, item, `${path}[${i}]`));
  }
  if (isObject(value)) checkObject(s, value, path, problems);
  if (Array.isArray(s.allOf)) for (const part of s.allOf) problems.push(...checkJsonSchema(part, value, path));
  if (Array.isArray(s.anyOf) && !s.anyOf.some((part) => checkJsonSchema(part, value, path).length === 0))
    problems.push(`${path}: matches none of the allowed shapes (anyOf)`);
  if (Array.isArray(s.oneOf) && s.oneOf.filter((part) => checkJsonSchema(part, value, path).length === 0).length !== 1)
    problems.push(`${path}: must match exactly one of the allowed shapes (oneOf)`);
  return problems;
}

function checkNumber(s: JsonObject, value: number, path: string, problems: string[]): void {
  if (typeof s.minimum === "number" && value < s.minimum) problems.push(`${path}: must be ≥ ${s.minimum}`);
  if (typeof s.maximum === "number" && value > s.maximum) problems.push(`${path}: must be ≤ ${s.maximum}`);
  if (typeof s.exclusiveMinimum === "number" && value <= s.exclusiveMinimum)
    problems.push(`${path}: must be > ${s.exclusiveMinimum}`);
  if (typeof s.exclusiveMaximum === "number" && value >= s.exclusiveMaximum)
    problems.push(`${path}: must be < ${s.exclusiveMaximum}`);
}

function checkObject(s: JsonObject, value: JsonObject, path: string, problems: string[]): void {
  const at = (key: string): string => (path === "(root)" ? key : `${path}.${key}`);
  const properties: JsonObject = isObject(s.properties) ? s.properties : {};
  if (Array.isArray(s.required))
    for (const key of s.required)
      if (typeof key === "string" && !Object.hasOwn(value, key)) problems.push(`${at(key)}: required`);
  for (const [key, item] of Object.entries(value)) {
    if (Object.hasOwn(properties, key)) problems.push(...checkJsonSchema(properties[key]!, item, at(key)));
    else if (s.additionalProperties === false) problems.push(`${at(key)}: unknown property`);
    else if (typeof s.additionalProperties === "object" && s.additionalProperties !== null)
      problems.push(...checkJsonSchema(s.additionalProperties, item, at(key)));
  }
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function hasType(value: JsonValue, type: string): boolean {
  switch (type) {
    case "object":
      return isObject(value);
    case "array":
      return Array.isArray(value);
    case "integer":
      return typeof value === "number" && Number.isInteger(value);
    case "null":
      return value === null;
    default:
      return typeof value === type;
  }
}

function typeOf(value: JsonValue): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

const same = (a: JsonValue, b: JsonValue): boolean => canonicalJson(a) === canonicalJson(b);
