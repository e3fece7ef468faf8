// The prefix-cache models (CACHING.md), pure apart from an injected clock. Both work on a
// request already cut into token-counted, hashed units (blocks for Anthropic, messages for
// OpenAI/DeepSeek) and chain the hashes, so "this prefix was seen" is one map lookup per unit.
//
// AnthropicCacheModel — explicit breakpoints: each breakpoint writes the prefix through its
//   block; a read looks back at most 20 blocks from each breakpoint for an unexpired entry;
//   the longest read wins; prefixes under the minimum are neither read nor written; reads
//   refresh the TTL. Usage: read = longest prefix read, write = read point → last breakpoint,
//   input = after the last breakpoint.
// PrefixCacheModel — automatic prefix caching: cached = the longest stored prefix rounded
//   down to whole blocks, zero under the minimum. OpenAI stores every message boundary of each
//   request; DeepSeek stores only complete units: the end of the input and input + output.
import { createHash } from "node:crypto";
import type { CacheUsage, Clock } from "./types.js";
import { KeelsonError } from "../errors/index.js";

/** One Anthropic cache unit: a tool definition, a system block or a message content block. */
export interface CacheBlock {
  readonly tokens: number;
  /** Content hash of the block (without its cache_control). */
  readonly hash: string;
  /** Carries `cache_control`. */
  readonly breakpoint: boolean;
}

/** One automatic-caching unit: the tool list or one message. */
export interface CacheSegment {
  readonly tokens: number;
  readonly hash: string;
}

export class CacheModelError extends KeelsonError<"too-many-breakpoints"> {}

interface Entry {
  readonly tokens: number;
  expiresAt: number;
}

const systemClock: Clock = { now: () => Date.now() };

/** Chain links already computed: a long session re-chains the same prefix every request. */
const links = new Map<string, string>();
const LINK_LIMIT = 500_000;

/** Hashes of every prefix: chain[i] identifies blocks 0..i (order and content). */
function chainHashes(units: readonly { readonly hash: string }[]): string[] {
  const chain: string[] = [];
  let previous = "";
  for (const unit of units) {
    const link = `${previous}\u0000${unit.hash}`;
    let next = links.get(link);
    if (next === undefined) {
      next = createHash("sha256").update(link).digest("base64url");
      if (links.size >= LINK_LIMIT) links.clear();
      links.set(link, next);
    }
    previous = next;
    chain.push(previous);
  }
  return chain;
}

/** An expiring map of prefix entries, keyed by namespace + chain hash. */
class EntryStore {
  readonly #entries = new Map<string, Entry>();
  readonly #clock: Clock;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  get size(): number {
    this.#sweep();
    return this.#entries.size;
  }

  live(key: string): Entry | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= this.#clock.now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry;
  }

  put(key: string, tokens: number, ttlMs: number): void {
    this.#entries.set(key, { tokens, expiresAt: this.#clock.now() + ttlMs });
  }

  clear(): void {
    this.#entries.clear();
  }

  #sweep(): void {
    const now = this.#clock.now();
    for (const [key, entry] of this.#entries) if (entry.expiresAt <= now) this.#entries.delete(key);
  }
}

export interface AnthropicCacheOptions {
  readonly minCacheableTokens?: number;
  readonly ttlMs?: number;
  readonly clock?: Clock;
  /** Blocks a read looks back from each breakpoint, the breakpoint included. */
  readonly lookbackBlocks?: number;
  readonly maxBreakpoints?: number;
}

export class AnthropicCacheModel {
  readonly minCacheableTokens: number;
  readonly ttlMs: number;
  readonly lookbackBlocks: number;
  readonly maxBreakpoints: number;
  readonly #store: EntryStore;

  constructor(options: AnthropicCacheOptions = {}) {
    this.minCacheableTokens = options.minCacheableTokens ?? 1024;
    this.ttlMs = options.ttlMs ?? 300_000;
    this.lookbackBlocks = options.lookbackBlocks ?? 20;
    this.maxBreakpoints = options.maxBreakpoints ?? 4;
    this.#store = new EntryStore(options.clock ?? systemClock);
  }

  /** Live entries (expired ones are dropped first). */
  get size(): number {
    return this.#store.size;
  }

  clear(): void {
    this.#store.clear();
  }

  /**
   * Accounts one request: reads, then writes one entry per breakpoint. `namespace` separates
   * caches (API key/org + model); `minCacheableTokens` overrides the default per model.
   */
  apply(namespace: string, blocks: readonly CacheBlock[], options: { minCacheableTokens?: number } = {}): CacheUsage {
    const min = options.minCacheableTokens ?? this.minCacheableTokens;
    const breakpoints = blocks.flatMap((block, i) => (block.breakpoint ? [i] : []));
    if (breakpoints.length > this.maxBreakpoints)
      throw new CacheModelError(
        "too-many-breakpoints",
        `A maximum of ${this.maxBreakpoints} blocks with cache_control may be provided. Found ${breakpoints.length}.`,
      );
    const cumulative: number[] = [];
    let total = 0;
    for (const block of blocks) {
      total += block.tokens;
      cumulative.push(total);
    }
    const last = breakpoints.at(-1);
    if (last === undefined || cumulative[last]! < min)
      return { inputTokens: total, cacheReadTokens: 0, cacheWriteTokens: 0 };

    const chain = chainHashes(blocks);
    const key = (i: number): string => `${namespace}\u0000${chain[i]}`;
    let readAt = -1;
    for (const p of breakpoints) {
      for (let i = p; i >= Math.max(0, p - this.lookbackBlocks + 1) && i > readAt; i -= 1) {
        if (cumulative[i]! >= min && this.#store.live(key(i)) !== undefined) {
          readAt = i;
          break;
        }
      }
    }
    const read = readAt < 0 ? 0 : cumulative[readAt]!;
    if (readAt >= 0) this.#store.put(key(readAt), read, this.ttlMs);
    for (const p of breakpoints) if (cumulative[p]! >= min) this.#store.put(key(p), cumulative[p]!, this.ttlMs);
    return {
      inputTokens: total - cumulative[last]!,
      cacheReadTokens: read,
      cacheWriteTokens: cumulative[last]! - read,
    };
  }
}

export interface PrefixCacheOptions {
  readonly style: "openai" | "deepseek";
  /** Prompts (and hits) under this many tokens are not cached: openai 1024, deepseek 64. */
  readonly minTokens?: number;
  /** Hits are counted in whole blocks: openai 128, deepseek 64. */
  readonly blockTokens?: number;
  /** Idle retention: openai 5 min, deepseek 1 h by default. */
  readonly ttlMs?: number;
  readonly clock?: Clock;
}

export interface PrefixCacheResult {
  readonly promptTokens: number;
  readonly cachedTokens: number;
}

export class PrefixCacheModel {
  readonly style: "openai" | "deepseek";
  readonly minTokens: number;
  readonly blockTokens: number;
  readonly ttlMs: number;
  readonly #store: EntryStore;

  constructor(options: PrefixCacheOptions) {
    const deepseek = options.style === "deepseek";
    this.style = options.style;
    this.minTokens = options.minTokens ?? (deepseek ? 64 : 1024);
    this.blockTokens = options.blockTokens ?? (deepseek ? 64 : 128);
    this.ttlMs = options.ttlMs ?? (deepseek ? 3_600_000 : 300_000);
    this.#store = new EntryStore(options.clock ?? systemClock);
  }

  get size(): number {
    return this.#store.size;
  }

  clear(): void {
    this.#store.clear();
  }

  /**
   * Accounts one request, then stores its prefixes (and, for deepseek, the unit ending after
   * `output`, the assistant message the model produced, as the next request will send it).
   * `minTokens` overrides the minimum for this request (per-model minimums, e.g. Gemini's);
   * `ttlMs` the idle retention (default the model's; OpenAI's `prompt_cache_retention: 24h`
   * passes a day).
   */
  apply(
    namespace: string,
    segments: readonly CacheSegment[],
    output?: CacheSegment,
    options: { readonly minTokens?: number; readonly ttlMs?: number } = {},
  ): PrefixCacheResult {
    const ttlMs = options.ttlMs ?? this.ttlMs;
    const chain = chainHashes(output === undefined ? segments : [...segments, output]);
    const key = (i: number): string => `${namespace}\u0000${chain[i]}`;
    let total = 0;
    let matched = 0;
    let matchedAt = -1;
    const cumulative: number[] = [];
    for (let i = 0; i < segments.length; i += 1) {
      total += segments[i]!.tokens;
      cumulative.push(total);
      const entry = this.#store.live(key(i));
      if (entry !== undefined) {
        matched = entry.tokens;
        matchedAt = i;
      }
    }
    const rounded = Math.floor(matched / this.blockTokens) * this.blockTokens;
    const cachedTokens = rounded >= (options.minTokens ?? this.minTokens) ? rounded : 0;
    if (matchedAt >= 0) this.#store.put(key(matchedAt), matched, ttlMs);
    if (this.style === "openai") {
      for (let i = 0; i < segments.length; i += 1) this.#store.put(key(i), cumulative[i]!, ttlMs);
    } else if (segments.length > 0) {
      this.#store.put(key(segments.length - 1), total, ttlMs);
      if (output !== undefined) this.#store.put(key(segments.length), total + output.tokens, ttlMs);
    }
    return { promptTokens: total, cachedTokens };
  }
}
