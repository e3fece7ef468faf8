// The prefix-cache models against CACHING.md: Anthropic breakpoints (write one entry each, read
// within a 20-block lookback, minimum length, TTL refreshed on read, usage buckets) and the
// automatic-prefix styles (OpenAI 128-token blocks from 1024, DeepSeek complete units of
// input and input+output in 64-token blocks).
import { describe, expect, test } from "vitest";
import {
  AnthropicCacheModel,
  type CacheBlock,
  CacheModelError,
  PrefixCacheModel,
  SimulatedClock,
} from "../../src/emulator/index.js";
import { thrown } from "../support/thrown.js";

const block = (id: string, tokens: number, breakpoint = false): CacheBlock => ({ hash: id, tokens, breakpoint });
/** The blocks with breakpoints exactly at `at` (negative positions count from the end). */
const mark = (blocks: readonly CacheBlock[], ...at: number[]): CacheBlock[] =>
  blocks.map((b, i) => ({ ...b, breakpoint: at.includes(i) || at.includes(i - blocks.length) }));
const sum = (blocks: readonly CacheBlock[]): number => blocks.reduce((n, b) => n + b.tokens, 0);

/** Tools + system (one breakpoint) and `turns` user/assistant exchanges of 200 tokens each. */
function session(turns: number, system = "system-v1"): CacheBlock[] {
  const blocks = [block("tool:read", 600), block(system, 900, true)];
  for (let t = 0; t < turns; t += 1) blocks.push(block(`user:${t}`, 200), block(`assistant:${t}`, 200));
  return blocks;
}

describe("AnthropicCacheModel", () => {
  test("a multi-request session with stable breakpoints reads everything before the newest tail", () => {
    const cache = new AnthropicCacheModel({ clock: new SimulatedClock() });
    const first = mark(session(1).slice(0, -1), 1, -1);
    expect(cache.apply("k", first)).toStrictEqual({ inputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: sum(first) });
    let previous = first;
    for (let turn = 2; turn <= 6; turn += 1) {
      // The previous request's last block keeps its breakpoint; the new last block gets one.
      const blocks = mark(session(turn).slice(0, -1), 1, previous.length - 1, -1);
      const usage = cache.apply("k", blocks);
      expect(usage.cacheReadTokens).toBe(sum(previous));
      expect(usage.cacheWriteTokens).toBe(sum(blocks) - sum(previous));
      expect(usage.inputTokens).toBe(0);
      previous = blocks;
    }
  });

  test("input_tokens counts only the blocks after the last breakpoint", () => {
    const cache = new AnthropicCacheModel();
    const blocks = [block("sys", 1500, true), block("u1", 300), block("u2", 40)];
    expect(cache.apply("k", blocks)).toStrictEqual({ inputTokens: 340, cacheReadTokens: 0, cacheWriteTokens: 1500 });
    expect(cache.apply("k", blocks)).toStrictEqual({ inputTokens: 340, cacheReadTokens: 1500, cacheWriteTokens: 0 });
  });

  test("a change at the system level misses everything after it", () => {
    const cache = new AnthropicCacheModel();
    const tools = block("tools", 1200, true);
    const before = [tools, block("system-a", 500, true), block("u1", 400), block("a1", 400, true)];
    cache.apply("k", before);
    const after = [tools, block("system-b", 500, true), block("u1", 400), block("a1", 400, true)];
    // Only the tools entry survives: the system change invalidates the system and every later level.
    expect(cache.apply("k", after)).toStrictEqual({ inputTokens: 0, cacheReadTokens: 1200, cacheWriteTokens: 1300 });
  });

  test("a system prompt that changes every request busts the cache every request", () => {
    const cache = new AnthropicCacheModel();
    for (let step = 0; step < 4; step += 1) {
      const usage = cache.apply("k", [block(`system at step ${step}`, 2000, true), block("history", 800, true)]);
      expect(usage.cacheReadTokens).toBe(0);
      expect(usage.cacheWriteTokens).toBe(2800);
    }
  });

  test("prefixes below the minimum cacheable length are neither read nor written", () => {
    const cache = new AnthropicCacheModel({ minCacheableTokens: 1024 });
    const blocks = [block("sys", 600, true), block("u1", 300, true)];
    expect(cache.apply("k", blocks)).toStrictEqual({ inputTokens: 900, cacheReadTokens: 0, cacheWriteTokens: 0 });
    expect(cache.apply("k", blocks)).toStrictEqual({ inputTokens: 900, cacheReadTokens: 0, cacheWriteTokens: 0 });
    expect(cache.size).toBe(0);
    // The per-request minimum (a per-model registry value) overrides the default.
    expect(cache.apply("k", blocks, { minCacheableTokens: 512 }).cacheWriteTokens).toBe(900);
  });

  test("entries expire after the TTL on the simulated clock, and every read refreshes it", () => {
    const clock = new SimulatedClock();
    const cache = new AnthropicCacheModel({ clock, ttlMs: 300_000 });
    const blocks = [block("sys", 2000, true)];
    cache.apply("k", blocks);
    clock.advance(299_999);
    expect(cache.apply("k", blocks).cacheReadTokens).toBe(2000);
    clock.advance(299_999);
    expect(cache.apply("k", blocks).cacheReadTokens).toBe(2000);
    clock.advance(300_000);
    expect(cache.apply("k", blocks)).toStrictEqual({ inputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 2000 });
  });

  test("reads look back 20 blocks: a step adding 20+ blocks misses without a breakpoint on the previous tail", () => {
    const base = [block("sys", 1100, true), block("u1", 500), block("a1", 500)];
    const wide = [...base, ...Array.from({ length: 24 }, (_, i) => block(`tool-${i}`, 50))];
    const withoutTail = new AnthropicCacheModel();
    withoutTail.apply("k", mark(base, 0, 2));
    expect(withoutTail.apply("k", mark(wide, 0, -1)).cacheReadTokens).toBe(1100);
    const withTail = new AnthropicCacheModel();
    withTail.apply("k", mark(base, 0, 2));
    expect(withTail.apply("k", mark(wide, 0, 2, -1))).toStrictEqual({
      inputTokens: 0,
      cacheReadTokens: 2100,
      cacheWriteTokens: 1200,
    });
  });

  test("the breakpoint itself is the first of the 20 blocks a read looks back over", () => {
    const cache = new AnthropicCacheModel();
    cache.apply("k", [block("sys", 2000, true)]);
    const grown = [block("sys", 2000), ...Array.from({ length: 19 }, (_, i) => block(`b${i}`, 10))];
    expect(cache.apply("k", mark(grown, -1)).cacheReadTokens).toBe(2000);
    const tooFar = [block("sys", 2000), ...Array.from({ length: 20 }, (_, i) => block(`c${i}`, 10))];
    expect(cache.apply("k", mark(tooFar, -1)).cacheReadTokens).toBe(0);
  });

  test("more than 4 breakpoints is an error, as the API's 400", () => {
    const cache = new AnthropicCacheModel();
    const blocks = Array.from({ length: 5 }, (_, i) => block(`b${i}`, 500, true));
    expect(thrown(() => cache.apply("k", blocks), CacheModelError).message).toBe(
      "A maximum of 4 blocks with cache_control may be provided. Found 5.",
    );
  });

  test("caches are separated by namespace (API key / organisation)", () => {
    const cache = new AnthropicCacheModel();
    const blocks = [block("sys", 2000, true)];
    cache.apply("org-a", blocks);
    expect(cache.apply("org-b", blocks).cacheReadTokens).toBe(0);
    expect(cache.apply("org-a", blocks).cacheReadTokens).toBe(2000);
  });
});

const seg = (id: string, tokens: number) => ({ hash: id, tokens });

describe("PrefixCacheModel (OpenAI style)", () => {
  test("cached tokens are the seen prefix rounded down to 128-token blocks (2006 → 1920)", () => {
    const cache = new PrefixCacheModel({ style: "openai" });
    expect(cache.apply("k", [seg("sys", 1000), seg("u1", 1006)])).toStrictEqual({
      promptTokens: 2006,
      cachedTokens: 0,
    });
    expect(cache.apply("k", [seg("sys", 1000), seg("u1", 1006), seg("u2", 40)])).toStrictEqual({
      promptTokens: 2046,
      cachedTokens: 1920,
    });
  });

  test("below 1024 tokens nothing is cached", () => {
    const cache = new PrefixCacheModel({ style: "openai" });
    cache.apply("k", [seg("sys", 600), seg("u1", 400)]);
    expect(cache.apply("k", [seg("sys", 600), seg("u1", 400), seg("u2", 400)]).cachedTokens).toBe(0);
  });

  test("every message boundary of a request is a reusable prefix", () => {
    const cache = new PrefixCacheModel({ style: "openai" });
    cache.apply("k", [seg("sys", 1500), seg("u1", 600)]);
    expect(cache.apply("k", [seg("sys", 1500), seg("u1-edited", 600)]).cachedTokens).toBe(1408);
  });

  test("entries expire after the TTL", () => {
    const clock = new SimulatedClock();
    const cache = new PrefixCacheModel({ style: "openai", clock, ttlMs: 300_000 });
    cache.apply("k", [seg("sys", 2048)]);
    clock.advance(300_000);
    expect(cache.apply("k", [seg("sys", 2048)]).cachedTokens).toBe(0);
  });
});

describe("PrefixCacheModel (DeepSeek style)", () => {
  test("a request extending the previous one by its answer hits ⌊(input + output) / 64⌋ × 64", () => {
    const cache = new PrefixCacheModel({ style: "deepseek" });
    const output = seg("answer-1", 77);
    expect(cache.apply("k", [seg("sys", 300), seg("u1", 200)], output)).toStrictEqual({
      promptTokens: 500,
      cachedTokens: 0,
    });
    expect(
      cache.apply("k", [seg("sys", 300), seg("u1", 200), output, seg("u2", 100)], seg("answer-2", 10)),
    ).toStrictEqual({ promptTokens: 677, cachedTokens: 576 });
  });

  test("only complete units hit: sharing part of the previous input is a miss", () => {
    const cache = new PrefixCacheModel({ style: "deepseek" });
    cache.apply("k", [seg("sys", 300), seg("u1", 200)], seg("a1", 50));
    expect(cache.apply("k", [seg("sys", 300), seg("u1-other", 200)]).cachedTokens).toBe(0);
    expect(cache.apply("k", [seg("sys", 300), seg("u1", 200), seg("u2", 9)]).cachedTokens).toBe(448);
  });
});
