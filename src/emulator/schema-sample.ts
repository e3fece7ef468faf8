// sampleJson: a small deterministic generator of a JSON value that matches a JSON Schema — how
// the emulator's rule-based model honours structured output. It follows the keywords Keelson's
// own check enforces (type, properties/required, items, enum, const, anyOf/oneOf/allOf, local
// $ref, numeric bounds and multipleOf, string length and common formats, array length) and
// writes only required properties. `pattern`, `not`, `if/then/else` and `uniqueItems` beyond one
// item are not honoured (a schema relying on them may get a value that fails). Pure.
import type { JsonObject, JsonValue } from "../json/index.js";

export interface SampleOptions {
  /** Text for the first free-form string (no enum, const or format); default "example". */
  readonly text?: string;
}

const FORMATS: Readonly<Record<string, string>> = {
  "date-time": "2026-01-01T00:00:00Z",
  date: "2026-01-01",
  time: "00:00:00Z",
  duration: "P1D",
  email: "user@example.com",
  hostname: "example.com",
  uri: "https://example.com/",
  "uri-reference": "https://example.com/",
  url: "https://example.com/",
  ipv4: "192.0.2.1",
  ipv6: "2001:db8::1",
  uuid: "00000000-0000-4000-8000-000000000000",
};

/** Nesting beyond which `$ref` chains (recursive schemas) stop: the sample uses the smallest value. */
const MAX_DEPTH = 32;
/** Arrays nested deeper than this get no optional items. */
const SHALLOW = 4;

const isObject = (value: JsonValue | undefined): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

export function sampleJson(schema: JsonObject, options: SampleOptions = {}): JsonValue {
  const state = { root: schema, text: options.text ?? "example", textUsed: false };
  return sample(schema, state, 0);
}

interface SampleState {
  readonly root: JsonObject;
  readonly text: string;
  textUsed: boolean;
}

function sample(node: JsonValue, state: SampleState, depth: number): JsonValue {
  if (!isObject(node)) return null; // `true` / `{}`-like: anything goes
  if (typeof node.$ref === "string" && depth < MAX_DEPTH) {
    const target = resolveRef(state.root, node.$ref);
    if (target !== undefined) return sample(target, state, depth + 1);
  }
  if (node.const !== undefined) return node.const;
  if (Array.isArray(node.enum) && node.enum.length > 0) return node.enum[0]!;
  for (const key of ["anyOf", "oneOf"]) {
    const options = node[key];
    if (Array.isArray(options) && options.length > 0) return sample(options[0]!, state, depth + 1);
  }
  if (Array.isArray(node.allOf)) return mergeAll(node, state, depth);
  switch (typeOf(node)) {
    case "object":
      return sampleObject(node, state, depth);
    case "array":
      return sampleArray(node, state, depth);
    case "integer":
      return sampleNumber(node, true);
    case "number":
      return sampleNumber(node, false);
    case "boolean":
      return false;
    case "null":
      return null;
    default:
      return sampleString(node, state);
  }
}

function typeOf(node: JsonObject): string | undefined {
  const type = node.type;
  if (typeof type === "string") return type;
  if (Array.isArray(type)) return (type.find((t) => t !== "null") ?? type[0]) as string | undefined;
  if (node.properties !== undefined) return "object";
  if (node.items !== undefined) return "array";
  return undefined;
}

function sampleObject(node: JsonObject, state: SampleState, depth: number): JsonObject {
  const properties = isObject(node.properties) ? node.properties : {};
  const required = Array.isArray(node.required) ? node.required.filter((k) => typeof k === "string") : [];
  const out: Record<string, JsonValue> = {};
  // Declared order, so the sample reads like a model's answer; then required names not declared.
  for (const key of Object.keys(properties))
    if (required.includes(key)) out[key] = sample(properties[key]!, state, depth + 1);
  for (const key of required)
    if (!(key in out))
      out[key] = isObject(node.additionalProperties) ? sample(node.additionalProperties, state, depth + 1) : null;
  return out;
}

function sampleArray(node: JsonObject, state: SampleState, depth: number): JsonValue[] {
  const min = typeof node.minItems === "number" ? node.minItems : 0;
  const max = typeof node.maxItems === "number" ? node.maxItems : Number.POSITIVE_INFINITY;
  // One item shows the shape; deep inside (a recursive schema) only what minItems demands.
  const count = Math.min(Math.max(min, depth < SHALLOW ? 1 : 0), max);
  if (depth >= MAX_DEPTH || count <= 0) return [];
  const items = isObject(node.items) ? node.items : {};
  return Array.from({ length: count }, () => sample(items, state, depth + 1));
}

function sampleNumber(node: JsonObject, integer: boolean): number {
  const step = integer ? 1 : 0.5;
  let low = typeof node.minimum === "number" ? node.minimum : Number.NEGATIVE_INFINITY;
  if (typeof node.exclusiveMinimum === "number") low = Math.max(low, node.exclusiveMinimum + step);
  let high = typeof node.maximum === "number" ? node.maximum : Number.POSITIVE_INFINITY;
  if (typeof node.exclusiveMaximum === "number") high = Math.min(high, node.exclusiveMaximum - step);
  let value = Math.min(Math.max(0, low), high);
  if (integer) value = Math.ceil(value);
  const multiple = node.multipleOf;
  if (typeof multiple === "number" && multiple > 0) value = Math.ceil(value / multiple) * multiple;
  return Object.is(value, -0) ? 0 : value;
}

function sampleString(node: JsonObject, state: SampleState): string {
  const format = typeof node.format === "string" ? FORMATS[node.format] : undefined;
  let text = format;
  if (text === undefined) {
    text = state.textUsed ? "example" : state.text;
    state.textUsed = true;
  }
  const chars = [...text];
  const min = typeof node.minLength === "number" ? node.minLength : 0;
  const max = typeof node.maxLength === "number" ? node.maxLength : Number.POSITIVE_INFINITY;
  while (chars.length < min) chars.push("x");
  return chars.slice(0, max).join("");
}

/** The object samples of every `allOf` part (and the node's own object keywords) merged. */
function mergeAll(node: JsonObject, state: SampleState, depth: number): JsonValue {
  const { allOf, ...own } = node;
  const parts = [...(allOf as JsonValue[]), ...(Object.keys(own).length > 0 ? [own] : [])];
  const samples = parts.map((part) => sample(part, state, depth + 1));
  if (!samples.every(isObject)) return samples[0] ?? null;
  return Object.assign({}, ...samples) as JsonObject;
}

/** A local `#/...` JSON pointer into the root schema. */
function resolveRef(root: JsonObject, ref: string): JsonValue | undefined {
  if (!ref.startsWith("#")) return undefined;
  let at: JsonValue | undefined = root;
  for (const raw of ref
    .slice(1)
    .split("/")
    .filter((p) => p !== "")) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    at = isObject(at) ? at[key] : Array.isArray(at) ? at[Number(key)] : undefined;
    if (at === undefined) return undefined;
  }
  return at;
}
