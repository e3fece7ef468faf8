// countTokens: cl100k_base counts on ordinary text, a guard that keeps js-tiktoken's quadratic
// case (long runs without whitespace) out, determinism, and truncation to a token budget.
import { describe, expect, test } from "vitest";
import { countTokens, truncateToTokens } from "../../src/emulator/index.js";

describe("countTokens", () => {
  test("counts ordinary text with cl100k_base", () => {
    expect(countTokens("")).toBe(0);
    expect(countTokens("hello world")).toBe(2);
    expect(countTokens("The quick brown fox jumps over the lazy dog.")).toBe(10);
  });

  test("a 50k-char run without whitespace counts in under 100 ms, as ceil(len/4)", () => {
    countTokens("warm the encoder up");
    const run = "a".repeat(50_000);
    const started = performance.now();
    const tokens = countTokens(run);
    expect(performance.now() - started).toBeLessThan(100);
    expect(tokens).toBe(12_500);
  });

  test("a long letter run inside ordinary text is estimated, the rest encoded", () => {
    const text = `read ${"x".repeat(100)} now`;
    expect(countTokens(text)).toBe(countTokens("read") + Math.ceil(101 / 4) + countTokens(" now"));
  });

  test("special-token text is ordinary text, not an error", () => {
    expect(countTokens("<|endoftext|>")).toBeGreaterThan(1);
  });

  test("is deterministic across calls and long inputs", () => {
    const prose = "Keelson logs every request it sends. ".repeat(500);
    expect(countTokens(prose)).toBe(countTokens(`${prose}`));
    expect(countTokens(prose)).toBeGreaterThan(2500);
  });
});

describe("truncateToTokens", () => {
  test("keeps whole pieces up to the budget", () => {
    expect(truncateToTokens("one two three four five", 3)).toBe("one two three");
    expect(truncateToTokens("one two", 10)).toBe("one two");
    expect(truncateToTokens("one two", 0)).toBe("");
  });
});
