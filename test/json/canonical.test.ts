import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { canonicalEquals, canonicalJson, contentHash, type JsonValue, jsonEquals } from "../../src/json/index.js";

/** The same object with its keys inserted in the order given by `order` (recursively). */
function reorderKeys(value: JsonValue, order: readonly number[], depth = 0): JsonValue {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((v) => reorderKeys(v, order, depth + 1));
  const entries = Object.entries(value);
  const shuffled = entries
    .map((entry, i) => ({ entry, rank: order[(i + depth) % Math.max(order.length, 1)] ?? i }))
    .sort((x, y) => x.rank - y.rank)
    .map((x) => x.entry);
  const out: Record<string, JsonValue> = {};
  for (const [k, v] of shuffled)
    Object.defineProperty(out, k, {
      value: reorderKeys(v, order, depth + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  return out;
}

const noNegativeZero = (v: unknown): boolean =>
  !Object.is(v, -0) && (v === null || typeof v !== "object" || Object.values(v).every(noNegativeZero));
const jsonArb = fc.jsonValue().filter(noNegativeZero) as fc.Arbitrary<JsonValue>;

describe("canonicalJson", () => {
  test("sorts object keys at every depth and emits no whitespace", () => {
    expect(canonicalJson({ b: 1, a: { d: [{ z: 1, y: 2 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[{"y":2,"z":1}]},"b":1}',
    );
  });

  test("sorts keys by UTF-16 code unit, not by locale", () => {
    expect(canonicalJson({ b: 1, B: 2, a: 3, é: 4, "10": 5, "9": 6 })).toBe('{"10":5,"9":6,"B":2,"a":3,"b":1,"é":4}');
  });

  test("keeps a `__proto__` own key as data", () => {
    const value = JSON.parse('{"z":1,"__proto__":{"x":1}}') as JsonValue;
    expect(canonicalJson(value)).toBe('{"__proto__":{"x":1},"z":1}');
  });

  test("is independent of key insertion order", () => {
    fc.assert(
      fc.property(jsonArb, fc.array(fc.nat(100), { minLength: 1, maxLength: 8 }), (v, order) => {
        const reordered = reorderKeys(v, order);
        expect(reordered).toStrictEqual(v);
        expect(canonicalJson(reordered)).toBe(canonicalJson(v));
        expect(canonicalEquals(reordered, v)).toBe(true);
        expect(contentHash(reordered)).toBe(contentHash(v));
      }),
      { numRuns: 300 },
    );
  });

  test("parses back to a value deep-equal to the input", () => {
    fc.assert(
      fc.property(jsonArb, (v) => {
        expect(JSON.parse(canonicalJson(v))).toStrictEqual(v);
      }),
      { numRuns: 300 },
    );
  });

  test("is a fixed point of JSON.stringify for values whose keys are already sorted", () => {
    const value = { a: [1, "x", null, true], b: { c: 1.5 } };
    expect(canonicalJson(value)).toBe(JSON.stringify(value));
  });
});

describe("canonicalEquals", () => {
  test("arrays are order-sensitive", () => {
    expect(canonicalEquals([1, 2], [2, 1])).toBe(false);
    expect(canonicalEquals({ a: [{ x: 1 }, { y: 2 }] }, { a: [{ y: 2 }, { x: 1 }] })).toBe(false);
  });

  test("values that differ anywhere are unequal", () => {
    expect(canonicalEquals({ a: 1 }, { a: 1, b: null })).toBe(false);
    expect(canonicalEquals({ a: "1" }, { a: 1 })).toBe(false);
    expect(canonicalEquals(null, {})).toBe(false);
    expect(canonicalEquals([], {})).toBe(false);
  });

  test("agrees with structural deep equality on arbitrary pairs", () => {
    fc.assert(
      fc.property(jsonArb, jsonArb, (a, b) => {
        let deepEqual = true;
        try {
          expect(a).toStrictEqual(b);
        } catch {
          deepEqual = false;
        }
        expect(canonicalEquals(a, b)).toBe(deepEqual);
      }),
      { numRuns: 300 },
    );
  });
});

describe("contentHash", () => {
  test("is a 64-digit hex SHA-256 of the canonical form, stable across calls", () => {
    const h = contentHash({ b: 2, a: 1 });
    expect(h).toMatch(/^[0-9a-f]{64}$/);
    expect(contentHash({ a: 1, b: 2 })).toBe(h);
    // Pinned: sha256 of '{"a":1,"b":2}'. A change here changes every stored hash.
    expect(h).toBe("43258cff783fe7036d8a43033f830adfc60ec037382473548ac742b888292777");
  });

  test("differs for values that are not canonically equal", () => {
    fc.assert(
      fc.property(jsonArb, jsonArb, (a, b) => {
        fc.pre(!canonicalEquals(a, b));
        expect(contentHash(a)).not.toBe(contentHash(b));
      }),
      { numRuns: 300 },
    );
  });

  test("distinguishes array order and string-vs-number", () => {
    expect(contentHash([1, 2])).not.toBe(contentHash([2, 1]));
    expect(contentHash("1")).not.toBe(contentHash(1));
    expect(contentHash({ a: null })).not.toBe(contentHash({}));
  });
});

describe("jsonEquals", () => {
  test("answers as canonicalEquals does: reordered keys equal, any difference unequal", () => {
    fc.assert(
      fc.property(jsonArb, jsonArb, fc.array(fc.nat(100), { minLength: 1, maxLength: 8 }), (a, b, order) => {
        expect(jsonEquals(reorderKeys(a, order), a)).toBe(true);
        expect(jsonEquals(a, b)).toBe(canonicalEquals(a, b));
      }),
      { numRuns: 300 },
    );
  });

  test("arrays are order-sensitive; a missing key is not a null one; [] is not {}", () => {
    expect(jsonEquals([1, 2], [2, 1])).toBe(false);
    expect(jsonEquals({ a: 1 }, { a: 1, b: null })).toBe(false);
    expect(jsonEquals({ a: 1, c: 2 }, { a: 1, b: 2 })).toBe(false);
    expect(jsonEquals([], {})).toBe(false);
    expect(jsonEquals({ a: [{ x: 1 }] }, { a: [{ x: 1 }] })).toBe(true);
  });
});
