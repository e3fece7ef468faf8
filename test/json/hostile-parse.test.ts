// What JSON.parse can hand the load path besides -0, found by the hostile-logs suite: a number
// literal too large for a double (read as ±Infinity) and nesting of any depth (JSON.parse is not
// recursive; every consumer after it is). Both must be JsonErrors, never a silently lossy value or
// a stack overflow.
import { describe, expect, test } from "vitest";
import { adoptParsedJson, JsonError, MAX_JSON_DEPTH, snapshotJson } from "../../src/json/index.js";

function jsonError(run: () => unknown): JsonError {
  try {
    run();
  } catch (e) {
    expect(e).toBeInstanceOf(JsonError);
    return e as JsonError;
  }
  throw new Error("expected a JsonError");
}

const nestedArrays = (depth: number): string => `${"[".repeat(depth)}${"]".repeat(depth)}`;
const nestedObjects = (depth: number): string => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;

describe("adoptParsedJson rejects number literals that overflow a double", () => {
  test.each(["1e999", "-1e999", "123456789e400"])(
    "%s (which JSON.parse reads as ±Infinity), naming its path",
    (literal) => {
      const parsed: unknown = JSON.parse(`{"meta":{"list":[1,${literal}]}}`);
      const error = jsonError(() => adoptParsedJson(parsed, "events[4]"));
      expect(error.code).toBe("non-finite-number");
      expect(error.path).toBe("events[4].meta.list[1]");
    },
  );
});

describe(`nesting deeper than MAX_JSON_DEPTH (${MAX_JSON_DEPTH}) is a JsonError, not a stack overflow`, () => {
  test.each([
    ["arrays", nestedArrays],
    ["objects", nestedObjects],
  ])("%s nested 100,000 deep are refused by adoptParsedJson and snapshotJson", (_name, nested) => {
    const text = nested(100_000);
    expect(jsonError(() => adoptParsedJson(JSON.parse(text))).code).toBe("too-deep");
    expect(jsonError(() => snapshotJson(JSON.parse(text))).code).toBe("too-deep");
  });

  test("both name the same path: the first array or object one level past the bound (the root is level 1)", () => {
    const text = `{"ok":[1],"deep":${nestedObjects(MAX_JSON_DEPTH + 5)}}`;
    const fromAdopt = jsonError(() => adoptParsedJson(JSON.parse(text)));
    const fromSnapshot = jsonError(() => snapshotJson(JSON.parse(text)));
    expect(fromAdopt.path).toBe(fromSnapshot.path);
    expect(fromAdopt.path).toBe(`$.deep${".a".repeat(MAX_JSON_DEPTH - 1)}`);
  });

  test("exactly MAX_JSON_DEPTH levels are accepted by both", () => {
    const text = nestedArrays(MAX_JSON_DEPTH);
    expect(adoptParsedJson(JSON.parse(text))).toEqual(JSON.parse(text));
    expect(snapshotJson(JSON.parse(text))).toEqual(JSON.parse(text));
    expect(jsonError(() => adoptParsedJson(JSON.parse(nestedArrays(MAX_JSON_DEPTH + 1)))).code).toBe("too-deep");
  });
});
