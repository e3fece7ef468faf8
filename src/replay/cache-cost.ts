// The predicted prompt-cache cost of a difference (CACHING.md): how many tokens the logged request
// reads from the cache its predecessor warmed, and how many of them the rebuilt request no longer
// can — from that same cache (the session as logged, meeting the new code), and from the cache the
// rebuilt predecessor warms (the new code on its own: a difference that changes every request).
//
// What a request can read depends on the provider's rule, per the model registry's `provider`:
//   anthropic — entries exist only at breakpoints, which Keelson places at the end of
//     tools + system, the end of the session prefix, the request before the newest answer and the
//     request's end (src/llm/anthropic/wire.ts): the longest of those the two requests share,
//     counted when at least the model's minimum cacheable length;
//   openai — the shared prefix, in 128-token increments, from the minimum (1024) on;
//   deepseek — whole units only, stored at the end of earlier requests: 64-token steps;
//   anything else — the shared prefix, exactly.
// Token counts are the layer's estimate (bytes/4 by default, memoized per frozen object); prices
// come from the registry (src/llm/models.ts): a lost read is paid as a cache write instead (or as
// uncached input where writes are free — the registry then prices writes as input).
import { estimateTokens, type ModelInfo, ModelRegistry, type TokenCounter, valueCounter } from "../llm/core.js";
import type { ReconstructedRequest } from "../reconstruct/index.js";
import { type BlockLayout, type CanonicalEquality, firstDifference, layoutOf } from "./segments.js";
import type { ReplayCacheCost } from "./types.js";

type CacheRule = "breakpoints" | "prefix-128" | "units-64" | "exact";

export interface CacheCostInput {
  readonly loggedPrev: ReconstructedRequest | undefined;
  readonly logged: ReconstructedRequest;
  readonly replayedPrev: ReconstructedRequest | undefined;
  readonly replayed: ReconstructedRequest | undefined;
  /** Leading cache blocks the rebuilt request shares with the logged one. */
  readonly sharedWithLogged: number;
}

let builtin: ModelRegistry | undefined;

export class CachePredictor {
  readonly #tokensOf: (value: unknown) => number;
  readonly #models: ModelRegistry;
  readonly #eq: CanonicalEquality;

  constructor(options: { countTokens?: TokenCounter; models?: ModelRegistry }, eq: CanonicalEquality) {
    this.#tokensOf = valueCounter(options.countTokens ?? estimateTokens);
    builtin ??= new ModelRegistry();
    this.#models = options.models ?? builtin;
    this.#eq = eq;
  }

  cost(input: CacheCostInput): ReplayCacheCost {
    const model = input.logged.header.config.model;
    const info = this.#models.find(model);
    const priced = (lost: number): { cost?: number } =>
      info === undefined ? {} : { cost: (lost * (info.pricing.cacheWrite - info.pricing.cacheRead)) / 1_000_000 };
    const { loggedPrev, replayed } = input;
    if (loggedPrev === undefined || replayed === undefined)
      return { model, expectedTokens: 0, lostTokens: 0, recurringLostTokens: 0, ...priced(0) };
    const rule = ruleOf(model, info);
    const min = info?.minCacheableTokens ?? 0;
    const prev = this.#blocks(loggedPrev);
    const sharedLog = this.#shared(loggedPrev, input.logged);
    const expected = readable(rule, prev, sharedLog, min);
    const lost = expected - readable(rule, prev, Math.min(sharedLog, input.sharedWithLogged), min);
    let steady = 0;
    if (input.replayedPrev !== undefined) {
      const own = this.#blocks(input.replayedPrev);
      steady = readable(rule, own, this.#shared(input.replayedPrev, replayed), min);
    }
    const recurring = Math.min(lost, Math.max(0, expected - steady));
    return { model, expectedTokens: expected, lostTokens: lost, recurringLostTokens: recurring, ...priced(lost) };
  }

  /** Leading cache blocks two requests share (a request extending its predecessor shares all of it). */
  #shared(a: ReconstructedRequest, b: ReconstructedRequest): number {
    const diff = firstDifference(a, b, this.#eq, { matched: 0 }, () => undefined);
    return diff?.sharedBlocks ?? blockCount(layoutOf(a));
  }

  #blocks(r: ReconstructedRequest): Blocks {
    const layout = layoutOf(r);
    const tokens = [
      ...layout.tools.map((t) => this.#tokensOf(t)),
      ...(layout.system === undefined ? [] : [this.#tokensOf(layout.system)]),
      ...layout.prefix.map((m) => this.#tokensOf(m)),
      ...layout.history.map((m) => this.#tokensOf(m)),
    ];
    const cumulative = [0];
    for (const t of tokens) cumulative.push(cumulative.at(-1)! + t);
    return { layout, cumulative };
  }
}

interface Blocks {
  readonly layout: BlockLayout;
  /** `cumulative[n]`: tokens of the first n blocks. */
  readonly cumulative: readonly number[];
}

function blockCount(l: BlockLayout): number {
  return l.tools.length + (l.system === undefined ? 0 : 1) + l.prefix.length + l.history.length;
}

function ruleOf(model: string, info: ModelInfo | undefined): CacheRule {
  const provider =
    info === undefined
      ? model.slice(0, Math.max(0, model.indexOf(":")))
      : info.provider === "emulator"
        ? info.id.includes("openai")
          ? "openai"
          : info.id.includes("deepseek")
            ? "deepseek"
            : "anthropic"
        : info.provider;
  if (provider === "anthropic") return "breakpoints";
  if (provider === "openai") return "prefix-128";
  if (provider === "deepseek") return "units-64";
  return "exact";
}

/** Tokens a request sharing `shared` leading blocks with `prev` reads from the cache `prev` warmed. */
function readable(rule: CacheRule, prev: Blocks, shared: number, min: number): number {
  const { cumulative, layout } = prev;
  const total = cumulative.length - 1;
  if (rule === "exact") return cumulative[Math.min(shared, total)]!;
  if (rule === "prefix-128") {
    const tokens = cumulative[Math.min(shared, total)]!;
    return tokens >= Math.max(min, 1) ? Math.floor(tokens / 128) * 128 : 0;
  }
  const head = layout.tools.length + (layout.system === undefined ? 0 : 1);
  const prefixEnd = head + layout.prefix.length;
  // the message before the newest answer (Keelson's third breakpoint), as a block count
  let lastAnswer = layout.history.length - 1;
  while (lastAnswer >= 0 && layout.history[lastAnswer]!.role !== "assistant") lastAnswer--;
  const tail = lastAnswer > 0 ? prefixEnd + lastAnswer : 0;
  const points = rule === "breakpoints" ? [head, prefixEnd, tail, total] : [tail, total];
  let best = 0;
  for (const p of points) {
    const tokens = cumulative[p]!;
    if (p > 0 && p <= shared && tokens >= min && tokens > best) best = tokens;
  }
  return rule === "units-64" ? Math.floor(best / 64) * 64 : best;
}
