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

/**
 * The same answer as `canonicalEquals` for lossless JSON values, without serializing either:
 * a walk that stops at the first difference (key order never matters; shared subtrees compare by
 * identity). For comparing many large values that are mostly equal.
 */
export function jsonEquals(a: JsonValue, b: JsonValue): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEquals(a[i]!, b[i]!)) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const x = a as { readonly [k: string]: JsonValue };
  const y = b as { readonly [k: string]: JsonValue };
  const keys = Object.keys(x);
  if (keys.length !== Object.keys(y).length) return false;
  for (const key of keys) if (!Object.hasOwn(y, key) || !jsonEquals(x[key]!, y[key]!)) return false;
  return true;
}
