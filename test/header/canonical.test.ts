// P17 canonical absence, and equality/hashing by canonical serialization (ARCHITECTURE.md §3).
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { canonicalHeader, type EpochHeader, headerEquals, headerHash, headerKey } from "../../src/header/index.js";
import { deepFreeze } from "../../src/json/index.js";
import { baseHeader, text, tool } from "../support/builders.js";
import { epochHeaderArb, headerPairArb, makeHeader, reverseKeys } from "./arbitraries.js";

const config = { model: "emulator:a", maxTokens: 100 };
const prefix = [{ role: "user" as const, content: [text("<reminder>catalog</reminder>")] }];

describe("canonical absence (P17)", () => {
  test("an empty system prompt is absent: canonicalHeader omits the key", () => {
    const h = canonicalHeader({ config, system: "" });
    expect("system" in h).toBe(false);
    expect(h).toStrictEqual({ config });
  });

  test("an empty tool list is absent: canonicalHeader omits the key", () => {
    const h = canonicalHeader({ config, tools: [] });
    expect("tools" in h).toBe(false);
    expect(h).toStrictEqual({ config });
  });

  test("an empty message prefix is absent: canonicalHeader omits the key", () => {
    const h = canonicalHeader({ config, messagePrefix: [] });
    expect("messagePrefix" in h).toBe(false);
    expect(h).toStrictEqual({ config });
  });

  test("a header with every part empty equals the bare config header", () => {
    const empty: EpochHeader = { config, system: "", tools: [], messagePrefix: [] };
    expect(headerEquals(empty, { config })).toBe(true);
    expect(headerKey(empty)).toBe(headerKey({ config }));
    expect(headerHash(empty)).toBe(headerHash({ config }));
  });

  test("non-empty parts are kept as given", () => {
    const h = baseHeader({ messagePrefix: prefix });
    expect(canonicalHeader(h)).toStrictEqual(h);
  });

  test("every representation of absence has the same key, for any header", () => {
    fc.assert(
      fc.property(epochHeaderArb, (h) => {
        const omitted = canonicalHeader(h);
        const emptied = makeHeader(h.config, h.system ?? "", h.tools ?? [], h.messagePrefix ?? []);
        expect(headerKey(emptied)).toBe(headerKey(omitted));
        expect(headerEquals(emptied, h)).toBe(true);
      }),
    );
  });

  test("canonicalHeader is idempotent and preserves equality", () => {
    fc.assert(
      fc.property(epochHeaderArb, (h) => {
        const c = canonicalHeader(h);
        expect(canonicalHeader(c)).toStrictEqual(c);
        expect(headerEquals(c, h)).toBe(true);
        for (const key of ["system", "tools", "messagePrefix"] as const) {
          if (key in c) expect((c[key] as { length: number }).length).toBeGreaterThan(0);
        }
      }),
    );
  });
});

describe("header equality", () => {
  test("config keys in a different insertion order are equal", () => {
    const a: EpochHeader = { config: { model: "m", temperature: 0.5, maxTokens: 10, stop: ["END"] } };
    const b: EpochHeader = { config: { stop: ["END"], maxTokens: 10, temperature: 0.5, model: "m" } };
    expect(JSON.stringify(a)).not.toBe(JSON.stringify(b));
    expect(headerEquals(a, b)).toBe(true);
    expect(headerHash(a)).toBe(headerHash(b));
  });

  test("tool schema keys in a different insertion order are equal", () => {
    const a = baseHeader();
    const b = { ...baseHeader(), tools: [reverseKeys(tool("read"))] };
    expect(JSON.stringify(a.tools)).not.toBe(JSON.stringify(b.tools));
    expect(headerEquals(a, b)).toBe(true);
  });

  test("equality is independent of key insertion order anywhere in a header", () => {
    fc.assert(
      fc.property(epochHeaderArb, (h) => {
        expect(headerEquals(h, reverseKeys(h))).toBe(true);
        expect(headerKey(h)).toBe(headerKey(reverseKeys(h)));
      }),
    );
  });

  test.each<[string, EpochHeader]>([
    ["model", baseHeader({ config: { model: "other", maxTokens: 1024 } })],
    ["a sampling field", baseHeader({ config: { model: "emulator:rule-based", maxTokens: 1024, temperature: 0 } })],
    ["an extra config field", baseHeader({ config: { model: "emulator:rule-based", maxTokens: 1024, x_seed: 1 } })],
    ["one system line", baseHeader({ system: "You are a careful assistant.\nAnswer at length." })],
    ["a trailing newline in system", baseHeader({ system: "You are a careful assistant.\nAnswer briefly.\n" })],
    ["a tool description", baseHeader({ tools: [{ ...tool("read"), description: "reads" }] })],
    ["an added tool", baseHeader({ tools: [tool("read"), tool("write")] })],
    ["no tools", baseHeader({ tools: [] })],
    ["a message prefix", baseHeader({ messagePrefix: prefix })],
  ])("headers differing in %s are unequal", (_what, other) => {
    expect(headerEquals(baseHeader(), other)).toBe(false);
    expect(headerHash(baseHeader())).not.toBe(headerHash(other));
  });

  test("tool order is significant (it is what the model sees)", () => {
    const a = baseHeader({ tools: [tool("read"), tool("write")] });
    const b = baseHeader({ tools: [tool("write"), tool("read")] });
    expect(headerEquals(a, b)).toBe(false);
  });

  test("message prefix order is significant", () => {
    const two = [...prefix, { role: "assistant" as const, content: [text("ok")] }];
    expect(headerEquals(baseHeader({ messagePrefix: two }), baseHeader({ messagePrefix: [...two].reverse() }))).toBe(
      false,
    );
  });

  test("headerEquals agrees with headerKey equality, and is symmetric", () => {
    fc.assert(
      fc.property(headerPairArb, ([a, b]) => {
        expect(headerEquals(a, b)).toBe(headerKey(a) === headerKey(b));
        expect(headerEquals(b, a)).toBe(headerEquals(a, b));
      }),
    );
  });
});

describe("header hashing", () => {
  test("headers hash equal iff they are equal", () => {
    fc.assert(
      fc.property(headerPairArb, ([a, b]) => {
        expect(headerHash(a) === headerHash(b)).toBe(headerEquals(a, b));
      }),
    );
  });

  test("a hash is a SHA-256 hex digest", () => {
    expect(headerHash(baseHeader())).toMatch(/^[0-9a-f]{64}$/);
  });

  test("a frozen header keys and hashes like an equal unfrozen one", () => {
    fc.assert(
      fc.property(epochHeaderArb, (h) => {
        const copy = structuredClone(h);
        const frozen = deepFreeze(structuredClone(h));
        expect(headerKey(frozen)).toBe(headerKey(copy));
        expect(headerKey(frozen)).toBe(headerKey(frozen));
        expect(headerHash(frozen)).toBe(headerHash(copy));
      }),
    );
  });
});
