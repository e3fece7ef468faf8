// Vocabulary of the json layer: the lossless-JSON value model and its error type.

/** A JSON value that survives `JSON.stringify` → `JSON.parse` unchanged. */
export type JsonPrimitive = string | number | boolean | null;
import { KeelsonError } from "../errors/index.js";
import { messagePath } from "./path.js";
export type JsonValue = JsonPrimitive | JsonArray | JsonObject;
export type JsonArray = readonly JsonValue[];
export interface JsonObject {
  readonly [key: string]: JsonValue;
}

export type JsonErrorCode =
  | "undefined-value"
  | "function-value"
  | "symbol-value"
  | "bigint-value"
  | "negative-zero"
  | "non-finite-number"
  | "sparse-array"
  | "cycle"
  | "non-plain-object"
  | "symbol-key"
  | "getter-threw"
  | "too-deep";

/**
 * Deepest nesting of arrays and objects a lossless-JSON value may have. Every recursive consumer
 * (canonical serialization, JSON.stringify, deep freeze, equality) then stays far inside the
 * call stack; a deeper value (only ever hostile input: JSON.parse itself takes any depth) is a
 * JsonError, not a stack overflow.
 */
export const MAX_JSON_DEPTH = 512;

/** A value is not lossless JSON. `path` names where, e.g. `$.content[2].text`. */
export class JsonError extends KeelsonError<JsonErrorCode> {
  readonly path: string;
  constructor(code: JsonErrorCode, path: string, message: string) {
    super(code, `${message} at ${messagePath(path)}`);
    this.path = path;
  }
}
