import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { adoptParsedJson, JsonError, snapshotJson } from "../../src/json/index.js";

function isDeepFrozen(value: unknown): boolean {
  if (value === null || typeof value !== "object") return true;
  return Object.isFrozen(value) && Object.values(value).every(isDeepFrozen);
}

function thrown(fn: () => unknown): JsonError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(JsonError);
    return e as JsonError;
  }
  throw new Error("expected a JsonError");
}

describe("adoptParsedJson", () => {
  test("returns the parsed value itself, deep-frozen in place", () => {
    const parsed = JSON.parse('{"a":[1,{"b":"x"}],"c":null}') as { a: unknown[] };
    const adopted = adoptParsedJson(parsed);
    expect(adopted).toBe(parsed);
    expect(isDeepFrozen(parsed)).toBe(true);
    expect(() => {
      parsed.a.push(2);
    }).toThrow(TypeError);
  });

  test("keeps a parsed `__proto__` key as own data", () => {
    const parsed = JSON.parse('{"__proto__":{"x":1}}') as object;
    adoptParsedJson(parsed);
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(parsed, "__proto__")?.value).toEqual({ x: 1 });
  });

  test("rejects the one non-lossless value JSON.parse can produce, -0, with its path", () => {
    const error = thrown(() => adoptParsedJson(JSON.parse('{"a":[0,{"b":-0}]}'), "events[3]"));
    expect(error.code).toBe("negative-zero");
    expect(error.path).toBe("events[3].a[1].b");
    expect(thrown(() => adoptParsedJson(JSON.parse("-0"))).path).toBe("$");
  });

  test("names the same path for a -0 as snapshotJson does, including keys that need quoting", () => {
    const text = '{"a b":{"1x":[-0]}}';
    const fromSnapshot = thrown(() => snapshotJson(JSON.parse(text)));
    const fromAdopt = thrown(() => adoptParsedJson(JSON.parse(text)));
    expect(fromAdopt.path).toBe(fromSnapshot.path);
  });

  test("accepts exactly what snapshotJson accepts among JSON.parse results, and yields an equal value", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const text = JSON.stringify(v);
        let snapshot: unknown;
        let snapshotError: JsonError | undefined;
        try {
          snapshot = snapshotJson(JSON.parse(text));
        } catch (e) {
          snapshotError = e as JsonError;
        }
        const parsed: unknown = JSON.parse(text);
        if (snapshotError === undefined) {
          expect(adoptParsedJson(parsed)).toStrictEqual(snapshot);
          expect(isDeepFrozen(parsed)).toBe(true);
        } else {
          expect(thrown(() => adoptParsedJson(parsed)).code).toBe(snapshotError.code);
        }
      }),
      { numRuns: 300 },
    );
  });

  test("rejects -0 planted anywhere in parsed JSON text", () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue(), { maxLength: 5 }), fc.nat(), (items, at) => {
        const texts = items.map((v) => JSON.stringify(v));
        texts.splice(at % (texts.length + 1), 0, "-0");
        const error = thrown(() => adoptParsedJson(JSON.parse(`{"list":[${texts.join(",")}]}`)));
        expect(error.code).toBe("negative-zero");
      }),
      { numRuns: 200 },
    );
  });
});
