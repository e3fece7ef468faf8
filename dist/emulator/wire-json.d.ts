import type { JsonValue } from "../json/index.js";
import { WireError } from "./types.js";
export type Obj = {
    readonly [key: string]: unknown;
};
export declare function isObj(value: unknown): value is Obj;
export declare function invalid(message: string, param?: string): WireError;
export declare function requireObj(value: unknown, path: string): Obj;
export declare function requireString(value: unknown, path: string): string;
export declare function optionalString(value: unknown, path: string): string | undefined;
export declare function requireArray(value: unknown, path: string): readonly unknown[];
export declare function optionalArray(value: unknown, path: string): readonly unknown[];
export declare function optionalPositiveInt(value: unknown, path: string): number | undefined;
/** `stop` / `stop_sequences`: a string or a list of strings. */
export declare function stopList(value: unknown, path: string): string[];
/** JSON Schema object of a tool; anything else is a 400. */
export declare function schemaObject(value: unknown, path: string): {
    readonly [key: string]: JsonValue;
};
