import { type JsonValue } from "./types.js";
/** Checks a fresh `JSON.parse` result for -0, ±Infinity and too deep nesting, and deep-freezes it in place; returns it. */
export declare function adoptParsedJson(value: unknown, rootPath?: string): JsonValue;
