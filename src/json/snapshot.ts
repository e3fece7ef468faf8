// One-pass lossless-JSON snapshot: validates and copies in the same walk.
//
// Why one pass: validating and then copying would read each getter twice, and a getter that
// returns a different value the second time would let unvalidated data into the copy.
// The walk keeps a stack of keys and writes a path string only when it throws: this runs on
// every append, and most values are valid.
import { markDeepFrozen } from "./freeze.js";
import { childPath } from "./path.js";
import { JsonError, type JsonValue, MAX_JSON_DEPTH } from "./types.js";

export interface SnapshotOptions {
  /** Freeze the copy as it is built (one pass for "copy, then deep-freeze"). */
  readonly freeze?: boolean;
  /**
   * With `freeze`: also record the copy's root as deep-frozen (`isDeepFrozen`). Default true.
   * Pass false for values no one asks `isDeepFrozen` about, such as a session's event data: one
   * WeakSet add costs about as much as the copy of a small value, and every entry is GC work.
   */
  readonly mark?: boolean;
}

/**
 * Returns a detached copy of `value` that is exactly representable as JSON, or throws a
 * `JsonError` naming the first offending path. Rejects `undefined` (as a member or element),
 * functions, symbols, bigint, `-0`, NaN/±Infinity, sparse arrays, cycles, objects whose
 * prototype is neither `Object.prototype` nor `null` (class instances, Dates, Maps…), symbol
 * keys, and nesting deeper than `MAX_JSON_DEPTH`. Keys such as `__proto__` and `constructor`
 * are kept as plain own data. Each property (getters included) is read exactly once. The copy
 * has plain prototypes; it is deep-frozen (and marked, unless `options.mark` is false) when
 * `options.freeze` is set, else left mutable (see `deepFreeze`).
 */
export function snapshotJson(value: unknown, rootPath = "$", options: SnapshotOptions = {}): JsonValue {
  // One walker is reused (it runs on every append); a getter that snapshots while a walk is under
  // way gets a walker of its own.
  const walker = idle ?? new Snapshot();
  idle = undefined;
  try {
    const copy = walker.start(rootPath, options.freeze === true).walk(value);
    if (options.freeze === true && options.mark !== false) markDeepFrozen(copy);
    return copy;
  } finally {
    walker.reset();
    idle = walker;
  }
}

let idle: Snapshot | undefined;

/** Ancestor levels checked by scanning; deeper ones are also kept in a Set. */
const SCAN_DEPTH = 16;

class Snapshot {
  #root = "$";
  #freeze = false;
  readonly #keys: (string | number)[] = [];
  /**
   * The objects being walked, outermost first (a reference to one of them is a cycle). Values are
   * shallow, so a short array scan beats a Set (whose growth and shrinking allocated on every
   * append); levels past SCAN_DEPTH are also kept in `#deep`, so a deep value stays linear.
   */
  readonly #ancestors: object[] = [];
  #deep: Set<object> | undefined;

  start(root: string, freeze: boolean): this {
    this.#root = root;
    this.#freeze = freeze;
    return this;
  }

  /** Ready for the next walk (a walk that threw leaves its keys and ancestors behind). */
  reset(): void {
    this.#keys.length = 0;
    this.#ancestors.length = 0;
    this.#deep = undefined;
  }

  walk(v: unknown): JsonValue {
    switch (typeof v) {
      case "string":
      case "boolean":
        return v;
      case "number":
        if (!Number.isFinite(v)) throw this.#error("non-finite-number", `${v} is not representable in JSON`);
        if (v === 0 && 1 / v < 0) throw this.#error("negative-zero", "-0 does not survive JSON (it reads back as 0)");
        return v;
      case "undefined":
        throw this.#error("undefined-value", "undefined is not JSON (omit the key instead)");
      case "function":
        throw this.#error("function-value", "a function is not JSON");
      case "symbol":
        throw this.#error("symbol-value", "a symbol is not JSON");
      case "bigint":
        throw this.#error("bigint-value", "a bigint is not JSON (use a string or a safe number)");
    }
    if (v === null) return null;
    const obj = v as object;
    const ancestors = this.#ancestors;
    const depth = ancestors.length;
    if (this.#isAncestor(obj)) throw this.#error("cycle", "cyclic reference");
    if (depth >= MAX_JSON_DEPTH) throw this.#error("too-deep", `nesting deeper than ${MAX_JSON_DEPTH} levels`);
    ancestors.push(obj);
    if (depth >= SCAN_DEPTH) {
      this.#deep ??= new Set();
      this.#deep.add(obj);
    }
    try {
      return Array.isArray(obj) ? this.#array(obj) : this.#object(obj);
    } finally {
      ancestors.pop();
      if (depth >= SCAN_DEPTH) this.#deep!.delete(obj);
    }
  }

  #isAncestor(obj: object): boolean {
    const ancestors = this.#ancestors;
    const scan = Math.min(ancestors.length, SCAN_DEPTH);
    for (let i = 0; i < scan; i++) if (ancestors[i] === obj) return true;
    return this.#deep?.has(obj) === true;
  }

  #array(arr: readonly unknown[]): JsonValue {
    if (Object.getPrototypeOf(arr) !== Array.prototype)
      throw this.#error("non-plain-object", "array subclass is not plain JSON");
    const out: JsonValue[] = new Array(arr.length);
    const keys = this.#keys;
    for (let i = 0; i < arr.length; i++) {
      keys.push(i);
      if (!Object.hasOwn(arr, i)) throw this.#error("sparse-array", "hole in a sparse array");
      out[i] = this.walk(this.#read(arr, i));
      keys.pop();
    }
    return this.#freeze ? Object.freeze(out) : out;
  }

  #object(obj: object): JsonValue {
    const proto = Object.getPrototypeOf(obj);
    if (proto !== Object.prototype && proto !== null) {
      const name = (proto as { constructor?: { name?: string } }).constructor?.name ?? "unknown";
      throw this.#error("non-plain-object", `an instance of ${name} is not a plain object`);
    }
    if (Object.getOwnPropertySymbols(obj).length > 0)
      throw this.#error("symbol-key", "symbol-keyed properties are not JSON");
    const out: { [k: string]: JsonValue } = {};
    const keys = this.#keys;
    for (const key of Object.keys(obj)) {
      keys.push(key);
      const child = this.walk(this.#read(obj, key));
      keys.pop();
      // `__proto__` is kept as an own data property: assignment would set the prototype instead.
      if (key === "__proto__") {
        Object.defineProperty(out, key, { value: child, enumerable: true, writable: true, configurable: true });
      } else {
        out[key] = child;
      }
    }
    return this.#freeze ? Object.freeze(out) : out;
  }

  #read(obj: object, key: string | number): unknown {
    try {
      return (obj as Record<string | number, unknown>)[key];
    } catch (cause) {
      throw this.#error("getter-threw", `reading the property threw: ${String(cause)}`);
    }
  }

  #error(code: JsonError["code"], message: string): JsonError {
    return new JsonError(code, this.#keys.reduce<string>(childPath, this.#root), message);
  }
}
