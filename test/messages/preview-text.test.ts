// previewText works on a head of long texts (listings preview thousands of prompts); the result
// must equal collapsing the whole text and cutting it, for any text and bound.
import fc from "fast-check";
import { expect, test } from "vitest";
import { previewText } from "../../src/messages/index.js";

const reference = (text: string, max: number): string => {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

test("equals collapsing the whole text then cutting it", () => {
  const chunk = fc.oneof(fc.string(), fc.constantFrom(" ", "\n\t ", "  \u00a0 ", "x"), fc.string({ unit: "grapheme" }));
  fc.assert(
    fc.property(fc.array(chunk, { maxLength: 200 }), fc.integer({ min: 1, max: 120 }), (parts, max) => {
      const text = parts.join("");
      expect(previewText(text, max)).toBe(reference(text, max));
    }),
    { numRuns: 2000 },
  );
});

test("a long text whose tail is all whitespace keeps its exact length rule", () => {
  const text = `${"a".repeat(50)}${" ".repeat(10_000)}`;
  expect(previewText(text, 50)).toBe("a".repeat(50));
  expect(previewText(text, 49)).toBe(`${"a".repeat(48)}…`);
});
