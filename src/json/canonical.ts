// Canonical serialization: JSON with object keys sorted by UTF-16 code unit, no whitespace.
//
// All equality and hashing in Keelson goes through this, never insertion-order JSON.stringify.
import type { JsonValue } from "./types.js";

/** Serializes a JSON value with sorted keys. Input must already be lossless JSON. */
export function canonicalJson(value: JsonValue): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const obj = value as { readonly [k: string]: JsonValue };
  const keys = Object.keys(obj).sort();
  let out = "{";
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    if (i > 0) out += ",";
    out += `${JSON.stringify(key)}:${canonicalJson(obj[key]!)}`;
  }
  return `${out}}`;
}

/** Equality of two JSON values by canonical serialization. */
export function canonicalEquals(a: JsonValue, b: JsonValue): boolean {
  return a === b || canonicalJson(a) === canonicalJson(b);
}
