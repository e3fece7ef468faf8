import type { JsonValue } from "./types.js";
/** Hex SHA-256 of `canonicalJson(value)`; equal for values equal under canonical equality. */
export declare function contentHash(value: JsonValue): string;
