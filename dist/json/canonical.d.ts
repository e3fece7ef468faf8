import type { JsonValue } from "./types.js";
/** Serializes a JSON value with sorted keys. Input must already be lossless JSON. */
export declare function canonicalJson(value: JsonValue): string;
/** Equality of two JSON values by canonical serialization. */
export declare function canonicalEquals(a: JsonValue, b: JsonValue): boolean;
