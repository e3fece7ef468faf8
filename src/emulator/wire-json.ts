// Small readers for untrusted request JSON: each either returns a typed value or throws the
// 400 the real APIs answer with, naming the offending path the way they do.
import type { JsonValue } from "../json/index.js";
import type { ImageBlock } from "../messages/index.js";
import { WireError } from "./types.js";

export type Obj = { readonly [key: string]: unknown };

export function isObj(value: unknown): value is Obj {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function invalid(message: string, param?: string): WireError {
  return new WireError("invalid-request", message, param === undefined ? {} : { param });
}

export function requireObj(value: unknown, path: string): Obj {
  if (!isObj(value)) throw invalid(`${path}: Input should be a valid dictionary`, path);
  return value;
}

export function requireString(value: unknown, path: string): string {
  if (value === undefined) throw invalid(`${path}: Field required`, path);
  if (typeof value !== "string") throw invalid(`${path}: Input should be a valid string`, path);
  return value;
}

export function optionalString(value: unknown, path: string): string | undefined {
  return value === undefined || value === null ? undefined : requireString(value, path);
}

export function requireArray(value: unknown, path: string): readonly unknown[] {
  if (value === undefined) throw invalid(`${path}: Field required`, path);
  if (!Array.isArray(value)) throw invalid(`${path}: Input should be a valid list`, path);
  return value;
}

export function optionalArray(value: unknown, path: string): readonly unknown[] {
  return value === undefined || value === null ? [] : requireArray(value, path);
}

export function optionalPositiveInt(value: unknown, path: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value))
    throw invalid(`${path}: Input should be a valid integer`, path);
  if (value < 1) throw invalid(`${path}: Input should be greater than or equal to 1`, path);
  return value;
}

/** `stop` / `stop_sequences`: a string or a list of strings. */
export function stopList(value: unknown, path: string): string[] {
  if (value === undefined || value === null) return [];
  if (typeof value === "string") return [value];
  return requireArray(value, path).map((s, i) => requireString(s, `${path}.${i}`));
}

/** JSON Schema object of a tool; anything else is a 400. */
export function schemaObject(value: unknown, path: string): { readonly [key: string]: JsonValue } {
  if (value === undefined) return {};
  return requireObj(value, path) as { readonly [key: string]: JsonValue };
}

/** An image URL as the OpenAI wires send it: a base64 data URL, else a remote URL kept as is (media type `url`). */
export function imageFromUrl(url: string): ImageBlock {
  const data = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  return data === null
    ? { type: "image", mediaType: "url", data: url }
    : { type: "image", mediaType: data[1]!, data: data[2]! };
}
