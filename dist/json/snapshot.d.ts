import { type JsonValue } from "./types.js";
export interface SnapshotOptions {
    /** Freeze the copy as it is built (one pass for "copy, then deep-freeze"). */
    readonly freeze?: boolean;
}
/**
 * Returns a detached copy of `value` that is exactly representable as JSON, or throws a
 * `JsonError` naming the first offending path. Rejects `undefined` (as a member or element),
 * functions, symbols, bigint, `-0`, NaN/±Infinity, sparse arrays, cycles, objects whose
 * prototype is neither `Object.prototype` nor `null` (class instances, Dates, Maps…), symbol
 * keys, and nesting deeper than `MAX_JSON_DEPTH`. Keys such as `__proto__` and `constructor`
 * are kept as plain own data. Each property (getters included) is read exactly once. The copy
 * has plain prototypes; it is deep-frozen when `options.freeze` is set, else left mutable (see
 * `deepFreeze`).
 */
export declare function snapshotJson(value: unknown, rootPath?: string, options?: SnapshotOptions): JsonValue;
