// checkJsonSchema: one `path: what is wrong` line per problem, [] when the value conforms. Pins
// the keywords tool inputs use (type, required, additionalProperties, properties/items paths,
// enum, const, numeric bounds, lengths in code points, item counts, anyOf/oneOf/allOf) and that
// every other keyword (pattern, format, $ref, …) is ignored rather than reported.
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import type { JsonValue } from "../../src/json/index.js";
import { checkJsonSchema } from "../../src/tools/json-schema-check.js";

describe("checkJsonSchema: type", () => {
  test.each<[string, JsonValue]>([
    ["string", "x"],
    ["number", 1.5],
    ["integer", 3],
    ["boolean", false],
    ["null", null],
    ["array", [1, "a"]],
    ["object", { a: 1 }],
  ])("a %s value conforms to type %j", (type, value) => {
    expect(checkJsonSchema({ type }, value)).toEqual([]);
  });

  test.each<[string, JsonValue, string]>([
    ["string", 1, "number"],
    ["number", "1", "string"],
    ["boolean", 0, "number"],
    ["null", {}, "object"],
    ["array", { 0: 1 }, "object"],
    ["object", [], "array"],
    ["object", null, "null"],
    ["string", null, "null"],
  ])("type %j refuses a value whose type is %s", (type, value, got) => {
    expect(checkJsonSchema({ type }, value)).toEqual([`(root): expected ${type}, got ${got}`]);
  });

  test("integer accepts whole numbers (including 2.0 and negatives) and refuses fractions", () => {
    expect(checkJsonSchema({ type: "integer" }, 2.0)).toEqual([]);
    expect(checkJsonSchema({ type: "integer" }, -7)).toEqual([]);
    expect(checkJsonSchema({ type: "integer" }, 1.5)).toEqual(["(root): expected integer, got number"]);
    expect(checkJsonSchema({ type: "integer" }, "1")).toEqual(["(root): expected integer, got string"]);
  });

  test("type number accepts whole numbers too", () => {
    expect(checkJsonSchema({ type: "number" }, 4)).toEqual([]);
  });

  test("a list of types accepts any member and names them all when none matches", () => {
    const schema = { type: ["string", "null"] };
    expect(checkJsonSchema(schema, "a")).toEqual([]);
    expect(checkJsonSchema(schema, null)).toEqual([]);
    expect(checkJsonSchema(schema, 3)).toEqual(["(root): expected string or null, got number"]);
  });

  test("a type mismatch is the only problem reported for that value (other keywords are not checked)", () => {
    expect(checkJsonSchema({ type: "string", minLength: 5, enum: ["abcdef"] }, 3)).toEqual([
      "(root): expected string, got number",
    ]);
  });

  test("the path argument prefixes the problem lines", () => {
    expect(checkJsonSchema({ type: "string" }, 1, "args")).toEqual(["args: expected string, got number"]);
  });
});

describe("checkJsonSchema: objects", () => {
  const schema = {
    type: "object",
    properties: { path: { type: "string" }, limit: { type: "integer" } },
    required: ["path"],
  };

  test("a conforming object yields no problems, optional properties may be absent", () => {
    expect(checkJsonSchema(schema, { path: "a", limit: 3 })).toEqual([]);
    expect(checkJsonSchema(schema, { path: "a" })).toEqual([]);
  });

  test("each missing required key is one `key: required` line", () => {
    expect(checkJsonSchema({ ...schema, required: ["path", "limit"] }, {})).toEqual([
      "path: required",
      "limit: required",
    ]);
  });

  test("a required key present with a null value is present (null is checked against its schema instead)", () => {
    expect(checkJsonSchema(schema, { path: null })).toEqual(["path: expected string, got null"]);
  });

  test("properties are checked at their own path, all problems reported", () => {
    expect(checkJsonSchema(schema, { path: 1, limit: 0.5 })).toEqual([
      "path: expected string, got number",
      "limit: expected integer, got number",
    ]);
  });

  test("unknown properties are allowed by default", () => {
    expect(checkJsonSchema(schema, { path: "a", extra: [1] })).toEqual([]);
  });

  test("additionalProperties: false reports each unknown property", () => {
    expect(checkJsonSchema({ ...schema, additionalProperties: false }, { path: "a", x: 1, y: 2 })).toEqual([
      "x: unknown property",
      "y: unknown property",
    ]);
  });

  test("additionalProperties as a schema checks every unknown property against it", () => {
    const open = { ...schema, additionalProperties: { type: "number" } };
    expect(checkJsonSchema(open, { path: "a", x: 1 })).toEqual([]);
    expect(checkJsonSchema(open, { path: "a", x: "1" })).toEqual(["x: expected number, got string"]);
  });

  test("additionalProperties does not apply to declared properties", () => {
    expect(checkJsonSchema({ ...schema, additionalProperties: false }, { path: "a", limit: 1 })).toEqual([]);
  });

  test("nested objects report dotted paths (`a.b`)", () => {
    const nested = {
      type: "object",
      properties: { a: { type: "object", properties: { b: { type: "string" } }, required: ["b", "c"] } },
    };
    expect(checkJsonSchema(nested, { a: { b: 2 } })).toEqual(["a.c: required", "a.b: expected string, got number"]);
  });

  test("a path given by the caller is the prefix of property paths", () => {
    expect(checkJsonSchema(schema, { path: 1 }, "args")).toEqual(["args.path: expected string, got number"]);
  });

  test("object keywords are skipped for non-objects when there is no type", () => {
    expect(checkJsonSchema({ required: ["a"], additionalProperties: false }, "text")).toEqual([]);
  });
});

describe("checkJsonSchema: arrays", () => {
  test("items checks every element at `path[i]`", () => {
    const schema = { type: "object", properties: { items: { type: "array", items: { type: "number" } } } };
    expect(checkJsonSchema(schema, { items: [1, 2, "3", 4, null] })).toEqual([
      "items[2]: expected number, got string",
      "items[4]: expected number, got null",
    ]);
  });

  test("paths compose through arrays of objects (`list[1].id`)", () => {
    const schema = {
      type: "array",
      items: { type: "object", properties: { id: { type: "integer" } }, required: ["id"] },
    };
    expect(checkJsonSchema(schema, [{ id: 1 }, { id: "x" }, {}], "list")).toEqual([
      "list[1].id: expected integer, got string",
      "list[2].id: required",
    ]);
  });

  test("at the root an element path is `(root)[i]`", () => {
    expect(checkJsonSchema({ items: { type: "string" } }, ["a", 1])).toEqual([
      "(root)[1]: expected string, got number",
    ]);
  });

  test("minItems and maxItems bound the element count (inclusive)", () => {
    const schema = { type: "array", minItems: 1, maxItems: 2 };
    expect(checkJsonSchema(schema, [1])).toEqual([]);
    expect(checkJsonSchema(schema, [1, 2])).toEqual([]);
    expect(checkJsonSchema(schema, [])).toEqual(["(root): must have at least 1 items"]);
    expect(checkJsonSchema(schema, [1, 2, 3])).toEqual(["(root): must have at most 2 items"]);
  });

  test("tuple-form items (an array of schemas) is not checked", () => {
    expect(checkJsonSchema({ items: [{ type: "string" }] }, [1])).toEqual([]);
  });
});

describe("checkJsonSchema: enum and const", () => {
  test("enum accepts a listed value and lists the options otherwise", () => {
    const schema = { enum: ["a", 1, null] };
    expect(checkJsonSchema(schema, "a")).toEqual([]);
    expect(checkJsonSchema(schema, null)).toEqual([]);
    expect(checkJsonSchema(schema, "b")).toEqual(['(root): must be one of "a", 1, null']);
  });

  test("enum compares structurally, regardless of key order", () => {
    const schema = { enum: [{ a: 1, b: [2] }] };
    expect(checkJsonSchema(schema, { b: [2], a: 1 })).toEqual([]);
    expect(checkJsonSchema(schema, { a: 1, b: [3] })).toEqual(['(root): must be one of {"a":1,"b":[2]}']);
  });

  test("const accepts exactly its value (structurally) and names it otherwise", () => {
    expect(checkJsonSchema({ const: { x: [1, 2] } }, { x: [1, 2] })).toEqual([]);
    expect(checkJsonSchema({ const: "on" }, "off")).toEqual(['(root): must be "on"']);
    expect(checkJsonSchema({ const: null }, 0)).toEqual(["(root): must be null"]);
  });

  test("enum and const problems are both reported", () => {
    expect(checkJsonSchema({ enum: [1, 2], const: 1 }, 3)).toEqual([
      "(root): must be one of 1, 2",
      "(root): must be 1",
    ]);
  });
});

describe("checkJsonSchema: numbers", () => {
  test("minimum and maximum are inclusive", () => {
    const schema = { type: "number", minimum: 1, maximum: 10 };
    expect(checkJsonSchema(schema, 1)).toEqual([]);
    expect(checkJsonSchema(schema, 10)).toEqual([]);
    expect(checkJsonSchema(schema, 0.5)).toEqual(["(root): must be ≥ 1"]);
    expect(checkJsonSchema(schema, 11)).toEqual(["(root): must be ≤ 10"]);
  });

  test("exclusiveMinimum and exclusiveMaximum (numeric, draft 6+) exclude the bound", () => {
    const schema = { type: "number", exclusiveMinimum: 0, exclusiveMaximum: 1 };
    expect(checkJsonSchema(schema, 0.5)).toEqual([]);
    expect(checkJsonSchema(schema, 0)).toEqual(["(root): must be > 0"]);
    expect(checkJsonSchema(schema, 1)).toEqual(["(root): must be < 1"]);
  });

  test("an impossible range reports every bound the value breaks", () => {
    expect(checkJsonSchema({ minimum: 5, exclusiveMaximum: 3 }, 4)).toEqual([
      "(root): must be ≥ 5",
      "(root): must be < 3",
    ]);
  });

  test("numeric bounds do not apply to non-numbers", () => {
    expect(checkJsonSchema({ minimum: 5, maximum: 1 }, "3")).toEqual([]);
  });
});

describe("checkJsonSchema: string lengths", () => {
  test("minLength and maxLength are inclusive", () => {
    const schema = { type: "string", minLength: 2, maxLength: 3 };
    expect(checkJsonSchema(schema, "ab")).toEqual([]);
    expect(checkJsonSchema(schema, "abc")).toEqual([]);
    expect(checkJsonSchema(schema, "a")).toEqual(["(root): must be at least 2 characters"]);
    expect(checkJsonSchema(schema, "abcd")).toEqual(["(root): must be at most 3 characters"]);
  });

  test("lengths count code points: an emoji (two UTF-16 units) counts 1", () => {
    expect("😀".length).toBe(2);
    expect(checkJsonSchema({ maxLength: 1 }, "😀")).toEqual([]);
    expect(checkJsonSchema({ minLength: 2 }, "😀")).toEqual(["(root): must be at least 2 characters"]);
    expect(checkJsonSchema({ maxLength: 2 }, "a😀")).toEqual([]);
    expect(checkJsonSchema({ maxLength: 2 }, "😀😀😀")).toEqual(["(root): must be at most 2 characters"]);
  });

  test("length bounds do not apply to non-strings", () => {
    expect(checkJsonSchema({ minLength: 3 }, 1)).toEqual([]);
    expect(checkJsonSchema({ maxLength: 0 }, ["a"])).toEqual([]);
  });
});

describe("checkJsonSchema: combinators", () => {
  test("anyOf accepts a value matching at least one branch, including several", () => {
    const schema = { anyOf: [{ type: "string" }, { type: "number" }, { minimum: 0 }] };
    expect(checkJsonSchema(schema, "a")).toEqual([]);
    expect(checkJsonSchema(schema, 3)).toEqual([]);
  });

  test("anyOf with no matching branch is one line, not the branches' problems", () => {
    expect(checkJsonSchema({ anyOf: [{ type: "string" }, { type: "number" }] }, true)).toEqual([
      "(root): matches none of the allowed shapes (anyOf)",
    ]);
  });

  test("oneOf accepts a value matching exactly one branch", () => {
    expect(checkJsonSchema({ oneOf: [{ type: "string" }, { type: "number" }] }, 1)).toEqual([]);
  });

  test("oneOf refuses a value matching no branch or more than one", () => {
    const schema = { oneOf: [{ type: "number" }, { minimum: 0 }] };
    const problem = "(root): must match exactly one of the allowed shapes (oneOf)";
    expect(checkJsonSchema(schema, -1)).toEqual([]);
    expect(checkJsonSchema(schema, 1)).toEqual([problem]);
    expect(checkJsonSchema(schema, "x")).toEqual([]); // minimum ignores non-numbers: only branch 2 matches
    expect(checkJsonSchema({ oneOf: [{ type: "number" }, { type: "integer" }] }, 1)).toEqual([problem]);
    expect(checkJsonSchema({ oneOf: [{ type: "number" }, { type: "integer" }] }, "x")).toEqual([problem]);
  });

  test("allOf reports every branch's problems at the value's path", () => {
    const schema = { allOf: [{ type: "number", minimum: 10 }, { maximum: 5 }] };
    expect(checkJsonSchema(schema, 7)).toEqual(["(root): must be ≥ 10", "(root): must be ≤ 5"]);
    expect(checkJsonSchema({ allOf: [{ type: "number" }, { minimum: 0 }] }, 1)).toEqual([]);
  });

  test("combinator branches see the property path", () => {
    const schema = { type: "object", properties: { a: { allOf: [{ type: "string" }] } } };
    expect(checkJsonSchema(schema, { a: 1 })).toEqual(["a: expected string, got number"]);
  });
});

describe("checkJsonSchema: what it does not check", () => {
  test.each<[string, JsonValue, JsonValue]>([
    ["pattern", { type: "string", pattern: "^[0-9]+$" }, "letters"],
    ["format", { type: "string", format: "email" }, "not an email"],
    ["$ref", { $ref: "#/$defs/n", $defs: { n: { type: "number" } } }, "a string"],
    ["multipleOf", { type: "number", multipleOf: 2 }, 3],
    ["uniqueItems", { type: "array", uniqueItems: true }, [1, 1]],
    ["not", { not: { type: "string" } }, "s"],
    ["propertyNames", { propertyNames: { maxLength: 1 } }, { long: 1 }],
    ["an unknown keyword", { "x-whatever": true }, 1],
  ])("%s is ignored, never reported", (_keyword, schema, value) => {
    expect(checkJsonSchema(schema, value)).toEqual([]);
  });

  test("`true` and a malformed (list) schema constrain nothing; `false` accepts nothing", () => {
    expect(checkJsonSchema(true, 1)).toEqual([]);
    expect(checkJsonSchema(false, 1)).toEqual(["(root): not allowed"]);
    expect(checkJsonSchema({ properties: { a: false } }, { a: 1 })).toEqual(["a: not allowed"]);
    expect(checkJsonSchema([{ type: "string" }], 1)).toEqual([]);
  });

  test("keywords with malformed values are ignored rather than throwing", () => {
    expect(checkJsonSchema({ minimum: "5", maxLength: null, required: "a", enum: "a", anyOf: {} }, 1)).toEqual([]);
    expect(checkJsonSchema({ required: [1, "a"] }, { a: 1 })).toEqual([]);
  });
});

describe("checkJsonSchema: properties", () => {
  test("the empty schema accepts every JSON value, and { const: v } accepts v", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const value = v as JsonValue;
        expect(checkJsonSchema({}, value)).toEqual([]);
        expect(checkJsonSchema({ const: value }, value)).toEqual([]);
      }),
    );
  });
});
