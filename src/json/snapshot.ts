// One-pass lossless-JSON snapshot: validates and copies in the same walk.
//
// Why one pass: validating and then copying would read each getter twice, and a getter that
// returns a different value the second time would let unvalidated data into the copy.
import { childPath as describePath } from "./path.js";
import { JsonError, type JsonValue } from "./types.js";

function isPlainPrototype(proto: unknown): boolean {
  return proto === Object.prototype || proto === null;
}

/**
 * Returns a detached copy of `value` that is exactly representable as JSON, or throws a
 * `JsonError` naming the first offending path. Rejects `undefined` (as a member or element),
 * functions, symbols, bigint, `-0`, NaN/±Infinity, sparse arrays, cycles, objects whose
 * prototype is neither `Object.prototype` nor `null` (class instances, Dates, Maps…), and
 * symbol keys. Keys such as `__proto__` and `constructor` are kept as plain own data.
 * Each property (getters included) is read exactly once. The copy has plain prototypes and is
 * not frozen (see `deepFreeze`).
 */
export function snapshotJson(value: unknown, rootPath = "$"): JsonValue {
  const ancestors = new Set<object>();

  const walk = (v: unknown, path: string): JsonValue => {
    switch (typeof v) {
      case "string":
      case "boolean":
        return v;
      case "number":
        if (!Number.isFinite(v)) throw new JsonError("non-finite-number", path, `${v} is not representable in JSON`);
        if (Object.is(v, -0)) throw new JsonError("negative-zero", path, "-0 does not survive JSON (it reads back as 0)");
        return v;
      case "undefined":
        throw new JsonError("undefined-value", path, "undefined is not JSON (omit the key instead)");
      case "function":
        throw new JsonError("function-value", path, "a function is not JSON");
      case "symbol":
        throw new JsonError("symbol-value", path, "a symbol is not JSON");
      case "bigint":
        throw new JsonError("bigint-value", path, "a bigint is not JSON (use a string or a safe number)");
    }
    if (v === null) return null;
    const obj = v as object;
    if (ancestors.has(obj)) throw new JsonError("cycle", path, "cyclic reference");
    ancestors.add(obj);
    try {
      if (Array.isArray(obj)) return walkArray(obj, path);
      return walkObject(obj, path);
    } finally {
      ancestors.delete(obj);
    }
  };

  const walkArray = (arr: readonly unknown[], path: string): JsonValue[] => {
    if (Object.getPrototypeOf(arr) !== Array.prototype) {
      throw new JsonError("non-plain-object", path, "array subclass is not plain JSON");
    }
    const out: JsonValue[] = new Array(arr.length);
    for (let i = 0; i < arr.length; i++) {
      if (!Object.hasOwn(arr, i)) throw new JsonError("sparse-array", describePath(path, i), "hole in a sparse array");
      out[i] = walk(readOnce(arr, i, path), describePath(path, i));
    }
    return out;
  };

  const walkObject = (obj: object, path: string): { [k: string]: JsonValue } => {
    const proto = Object.getPrototypeOf(obj);
    if (!isPlainPrototype(proto)) {
      const name = (proto as { constructor?: { name?: string } } | null)?.constructor?.name ?? "unknown";
      throw new JsonError("non-plain-object", path, `an instance of ${name} is not a plain object`);
    }
    if (Object.getOwnPropertySymbols(obj).length > 0) {
      throw new JsonError("symbol-key", path, "symbol-keyed properties are not JSON");
    }
    const out: { [k: string]: JsonValue } = {};
    for (const key of Object.keys(obj)) {
      const child = walk(readOnce(obj, key, path), describePath(path, key));
      // `__proto__` is kept as an own data property: assignment would set the prototype instead.
      if (key === "__proto__") {
        Object.defineProperty(out, key, { value: child, enumerable: true, writable: true, configurable: true });
      } else {
        out[key] = child;
      }
    }
    return out;
  };

  return walk(value, rootPath);
}

function readOnce(obj: object, key: string | number, path: string): unknown {
  try {
    return (obj as Record<string | number, unknown>)[key];
  } catch (cause) {
    throw new JsonError("getter-threw", describePath(path, key), `reading the property threw: ${String(cause)}`);
  }
}
