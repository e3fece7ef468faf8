// RankTable (src/emulator/rank-table.ts): tokens looked up by their text through offsets into the
// ranks text — what a Map from each token's text to its rank would answer, for every key added,
// for keys never added, for a key added twice (its last rank) and for the empty key; a table
// filled to its capacity refuses one more token. BpeCounter's oracle test covers cl100k_base whole.
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { RankTable } from "../../src/emulator/rank-table.js";

/** The table and a Map built from the same space-separated tokens, ranks 0, 1, 2, … */
function both(tokens: readonly string[]): { table: RankTable; map: Map<string, number> } {
  const text = tokens.join(" ");
  const table = new RankTable(text, tokens.length);
  const map = new Map<string, number>();
  let at = 0;
  tokens.forEach((token, rank) => {
    table.add(at, at + token.length, rank);
    map.set(token, rank);
    at += token.length + 1;
  });
  return { table, map };
}

describe("RankTable", () => {
  test("answers as a Map of the same tokens does, for added and absent keys", () => {
    const key = fc.string({ unit: fc.constantFrom("A", "B", "Q", "g", "=", "+", "/"), maxLength: 6 });
    fc.assert(
      fc.property(fc.array(key, { maxLength: 300 }), fc.array(key, { maxLength: 50 }), (tokens, probes) => {
        const { table, map } = both(tokens);
        expect(table.size).toBe(map.size);
        for (const k of [...tokens, ...probes]) expect(table.get(k)).toBe(map.get(k));
      }),
      { numRuns: 300 },
    );
  });

  test("a key added twice keeps its last rank; the empty key is a key like any other", () => {
    const { table } = both(["IQ==", "", "Ig==", "IQ=="]);
    expect(table.size).toBe(3);
    expect(table.get("IQ==")).toBe(3);
    expect(table.get("")).toBe(1);
    expect(table.get("Ig==")).toBe(2);
    expect(table.get("Iw==")).toBeUndefined();
    expect(table.get("IQ=")).toBeUndefined(); // a prefix of a key is not that key
  });

  test("one token more than its capacity is a RangeError", () => {
    const table = new RankTable("a b c", 2);
    table.add(0, 1, 0);
    table.add(2, 3, 1);
    table.add(0, 1, 5); // the same key again takes no room
    expect(table.get("a")).toBe(5);
    expect(() => table.add(4, 5, 2)).toThrow(RangeError);
  });
});
