import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { type JsonErrorCode, JsonError, snapshotJson } from "../../src/json/index.js";

/** Runs snapshotJson and returns the JsonError it throws (fails the test if it does not). */
function rejection(value: unknown): JsonError {
  try {
    snapshotJson(value);
  } catch (e) {
    expect(e).toBeInstanceOf(JsonError);
    return e as JsonError;
  }
  throw new Error("snapshotJson accepted a value it must reject");
}

class Point {
  readonly x: number;
  readonly y: number;
  constructor(x: number, y: number) {
    this.x = x;
    this.y = y;
  }
}
class Tagged extends Array<number> {}

function sparse(): unknown[] {
  const a: unknown[] = [1];
  a[2] = 3; // index 1 is a hole
  return a;
}

function cyclic(): unknown {
  const inner: { self?: unknown; n: number } = { n: 1 };
  const outer = { list: [inner] };
  inner.self = outer;
  return outer;
}

function throwingGetter(): unknown {
  return {
    ok: 1,
    get bad(): number {
      throw new Error("boom");
    },
  };
}

describe("snapshotJson rejects what JSON cannot represent, naming the code and the path", () => {
  const cases: readonly (readonly [string, () => unknown, JsonErrorCode, string])[] = [
    ["undefined as an object member", () => ({ a: { b: undefined } }), "undefined-value", "$.a.b"],
    ["undefined as an array element", () => ({ list: [1, undefined] }), "undefined-value", "$.list[1]"],
    ["undefined at the root", () => undefined, "undefined-value", "$"],
    ["a function value", () => ({ f: () => 1 }), "function-value", "$.f"],
    ["a symbol value", () => ({ s: Symbol("x") }), "symbol-value", "$.s"],
    ["a symbol key", () => ({ inner: { [Symbol("k")]: 1, plain: 2 } }), "symbol-key", "$.inner"],
    ["a bigint", () => ({ n: 10n }), "bigint-value", "$.n"],
    ["-0 at the root", () => -0, "negative-zero", "$"],
    ["-0 nested in an array in an object", () => ({ a: [{ b: [0, -0] }] }), "negative-zero", "$.a[0].b[1]"],
    ["NaN", () => ({ x: Number.NaN }), "non-finite-number", "$.x"],
    ["Infinity", () => [Number.POSITIVE_INFINITY], "non-finite-number", "$[0]"],
    ["-Infinity", () => ({ y: [Number.NEGATIVE_INFINITY] }), "non-finite-number", "$.y[0]"],
    ["a sparse array (hole)", () => ({ a: sparse() }), "sparse-array", "$.a[1]"],
    ["a cycle", cyclic, "cycle", "$.list[0].self"],
    [
      "a self-referencing array",
      () => {
        const a: unknown[] = [];
        a.push(a);
        return a;
      },
      "cycle",
      "$[0]",
    ],
    ["a class instance", () => ({ p: new Point(1, 2) }), "non-plain-object", "$.p"],
    ["a Date", () => ({ when: new Date(0) }), "non-plain-object", "$.when"],
    ["a Map", () => ({ m: new Map([["a", 1]]) }), "non-plain-object", "$.m"],
    ["an array subclass", () => ({ t: Tagged.from([1, 2]) }), "non-plain-object", "$.t"],
    ["a getter that throws", throwingGetter, "getter-threw", "$.bad"],
    [
      "a key that is not an identifier, in the path",
      () => ({ "a b": { "1x": undefined } }),
      "undefined-value",
      '$["a b"]["1x"]',
    ],
  ];

  test.each(cases)("rejects %s", (_name, make, code, path) => {
    const error = rejection(make());
    expect(error.code).toBe(code);
    expect(error.path).toBe(path);
    expect(error.message).toContain(path);
  });

  test("the root path can be renamed for the caller's context", () => {
    try {
      snapshotJson({ x: undefined }, "data");
      expect.unreachable();
    } catch (e) {
      expect((e as JsonError).path).toBe("data.x");
    }
  });
});

describe("snapshotJson accepts plain JSON", () => {
  test("a shared, non-cyclic reference used twice is not a cycle and is copied twice", () => {
    const shared = { k: [1, 2] };
    const copy = snapshotJson({ a: shared, b: shared, list: [shared, shared] }) as { a: unknown; b: unknown };
    expect(copy).toEqual({ a: { k: [1, 2] }, b: { k: [1, 2] }, list: [{ k: [1, 2] }, { k: [1, 2] }] });
    expect(copy.a).not.toBe(shared);
  });

  test("cycles are found at any depth, and shared references deep in a value are no cycle", () => {
    // Ancestors are scanned up to 16 levels, deeper ones kept in a set: both halves must see cycles.
    const chain = (depth: number): { root: { next?: unknown }; leaf: { next?: unknown } } => {
      const root: { next?: unknown } = {};
      let leaf = root;
      for (let i = 0; i < depth; i++) {
        const next: { next?: unknown } = {};
        leaf.next = next;
        leaf = next;
      }
      return { root, leaf };
    };
    for (const [depth, back] of [
      [40, 3],
      [40, 30],
      [10, 0],
    ] as const) {
      const { root, leaf } = chain(depth);
      let target: { next?: unknown } = root;
      for (let i = 0; i < back; i++) target = target.next as { next?: unknown };
      leaf.next = target;
      expect(rejection(root).code).toBe("cycle");
    }
    const shared = { k: [1] };
    const { root, leaf } = chain(40);
    leaf.next = [shared, shared, { again: shared }];
    expect(() => snapshotJson({ deep: root, shared })).not.toThrow();
  });

  test("a null-prototype object is accepted and copied to a plain object", () => {
    const bare = Object.assign(Object.create(null) as object, {
      a: 1,
      nested: Object.assign(Object.create(null) as object, { b: "x" }),
    });
    const copy = snapshotJson(bare);
    expect(copy).toEqual({ a: 1, nested: { b: "x" } });
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
  });

  test("primitives, null, empty containers and unicode keys survive unchanged", () => {
    const value = { s: "é\u2028😀", n: -1.5e-300, z: 0, t: true, f: false, nil: null, arr: [], obj: {}, "😀": ["", 0] };
    expect(snapshotJson(value)).toEqual(value);
  });

  test("`__proto__` and `constructor` keys are kept as own plain data and the prototype stays Object.prototype", () => {
    const input = JSON.parse('{"__proto__":{"polluted":true},"constructor":{"prototype":1},"a":1}') as Record<
      string,
      unknown
    >;
    const copy = snapshotJson(input) as Record<string, unknown>;
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy)).toEqual(["__proto__", "constructor", "a"]);
    expect(Object.getOwnPropertyDescriptor(copy, "__proto__")?.value).toEqual({ polluted: true });
    expect(Object.getOwnPropertyDescriptor(copy, "constructor")?.value).toEqual({ prototype: 1 });
    expect((copy as { polluted?: unknown }).polluted).toBeUndefined();
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
    const roundTrip = JSON.parse(JSON.stringify(copy)) as Record<string, unknown>;
    expect(Object.getOwnPropertyDescriptor(roundTrip, "__proto__")?.value).toEqual({ polluted: true });
    expect(JSON.stringify(roundTrip)).toBe(JSON.stringify(input));
  });
});

describe("snapshotJson reads once and detaches", () => {
  test("each getter is read exactly once, and the copy holds the value of that one read", () => {
    let reads = 0;
    const value = {
      get n(): number {
        reads++;
        return reads; // a different value on each read: a second read would be visible
      },
    };
    const copy = snapshotJson({ outer: value }) as { outer: { n: number } };
    expect(reads).toBe(1);
    expect(copy.outer.n).toBe(1);
    expect(Object.getOwnPropertyDescriptor(copy.outer, "n")).toMatchObject({ value: 1, writable: true });
  });

  test("an array element getter is read exactly once", () => {
    let reads = 0;
    const arr: unknown[] = [0];
    Object.defineProperty(arr, 0, { enumerable: true, get: () => ++reads });
    expect(snapshotJson(arr)).toEqual([1]);
    expect(reads).toBe(1);
  });

  test("a getter that returns invalid data on its single read is rejected, not re-read", () => {
    let reads = 0;
    const value = {
      get v(): unknown {
        reads++;
        return reads === 1 ? undefined : "fine";
      },
    };
    expect(rejection(value).code).toBe("undefined-value");
    expect(reads).toBe(1);
  });

  test("mutating the input after the snapshot does not change the copy", () => {
    const input = { a: { list: [1, { deep: "x" }] }, s: "k" };
    const copy = snapshotJson(input);
    const expected = structuredClone(copy);
    input.a.list.push(99);
    (input.a.list[1] as { deep: string }).deep = "changed";
    input.s = "changed";
    expect(copy).toEqual(expected);
    expect(copy).not.toBe(input);
  });

  test("mutating the copy does not change the input", () => {
    const input = { a: [1, 2] };
    const copy = snapshotJson(input) as { a: number[] };
    copy.a.push(3);
    expect(input.a).toEqual([1, 2]);
  });

  test("the copy is not frozen", () => {
    const copy = snapshotJson({ a: [1] }) as { a: number[] };
    expect(Object.isFrozen(copy)).toBe(false);
    expect(Object.isFrozen(copy.a)).toBe(false);
  });
});

describe("snapshotJson over arbitrary JSON", () => {
  const jsonArb = fc.jsonValue().filter((v) => !containsNegativeZero(v));

  test("is the identity up to copying, and the copy survives a JSON round trip", () => {
    fc.assert(
      fc.property(jsonArb, (v) => {
        const copy = snapshotJson(v);
        expect(copy).toStrictEqual(v);
        expect(JSON.parse(JSON.stringify(copy))).toStrictEqual(copy);
      }),
      { numRuns: 300 },
    );
  });

  test("rejects every value that contains -0, at the path of the -0", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.nat(), (v, salt) => {
        const { value, path } = plantNegativeZero(v, salt);
        const error = rejection(value);
        expect(error.code).toBe("negative-zero");
        expect(error.path).toBe(path);
      }),
      { numRuns: 200 },
    );
  });
});

function containsNegativeZero(v: unknown): boolean {
  if (Object.is(v, -0)) return true;
  if (v === null || typeof v !== "object") return false;
  return Object.values(v).some(containsNegativeZero);
}

/** Replaces one leaf-ish position of a -0-free value with -0 and returns the path snapshotJson must name. */
function plantNegativeZero(v: unknown, salt: number): { value: unknown; path: string } {
  const clean = JSON.parse(JSON.stringify(v)) as unknown; // JSON.stringify(-0) is "0": this removes every -0
  if (clean === null || typeof clean !== "object") return { value: -0, path: "$" };
  if (Array.isArray(clean)) {
    clean.unshift(-0);
    return { value: clean, path: "$[0]" };
  }
  const keys = Object.keys(clean);
  const key = keys.length === 0 || salt % 2 === 0 ? "zz_zero" : keys[0]!;
  const value: Record<string, unknown> = { [key]: -0 };
  for (const k of keys)
    if (k !== key)
      Object.defineProperty(value, k, {
        value: (clean as Record<string, unknown>)[k],
        enumerable: true,
        writable: true,
        configurable: true,
      });
  const path = /^[A-Za-z_$][\w$]*$/.test(key) ? `$.${key}` : `$[${JSON.stringify(key)}]`;
  return { value, path };
}
