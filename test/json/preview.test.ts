// previewJson: a value as an error message quotes it — its JSON, bounded — except where JSON would
// misreport it: NaN and ±Infinity (JSON's `null`) and a bigint (no JSON at all) appear as written,
// so "idleMs must be a number > 0, got NaN" names what the caller passed.
import { describe, expect, test } from "vitest";
import { previewJson } from "../../src/json/index.js";

describe("previewJson", () => {
  test("JSON of the value, cut to the bound", () => {
    expect(previewJson({ a: 1 })).toBe('{"a":1}');
    expect(previewJson("x".repeat(100), 10)).toBe('"xxxxxx...');
    expect(previewJson(null)).toBe("null");
    expect(previewJson(undefined)).toBe("undefined");
  });

  test("NaN, ±Infinity and a bigint as written, not as null", () => {
    expect(previewJson(Number.NaN)).toBe("NaN");
    expect(previewJson(Number.POSITIVE_INFINITY)).toBe("Infinity");
    expect(previewJson(Number.NEGATIVE_INFINITY)).toBe("-Infinity");
    expect(previewJson(12n)).toBe("12n");
  });
});
