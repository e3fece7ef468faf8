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
export declare class CacheModelError extends KeelsonError<"too-many-breakpoints"> {
}
export interface AnthropicCacheOptions {
    readonly minCacheableTokens?: number;
    readonly ttlMs?: number;
    readonly clock?: Clock;
    /** Blocks a read looks back from each breakpoint, the breakpoint included. */
    readonly lookbackBlocks?: number;
    readonly maxBreakpoints?: number;
}
export declare class AnthropicCacheModel {
    #private;
    readonly minCacheableTokens: number;
    readonly ttlMs: number;
    readonly lookbackBlocks: number;
    readonly maxBreakpoints: number;
    constructor(options?: AnthropicCacheOptions);
    /** Live entries (expired ones are dropped first). */
    get size(): number;
    clear(): void;
    /**
     * Accounts one request: reads, then writes one entry per breakpoint. `namespace` separates
     * caches (API key/org + model); `minCacheableTokens` overrides the default per model.
     */
    apply(namespace: string, blocks: readonly CacheBlock[], options?: {
        minCacheableTokens?: number;
    }): CacheUsage;
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
export declare class PrefixCacheModel {
    #private;
    readonly style: "openai" | "deepseek";
    readonly minTokens: number;
    readonly blockTokens: number;
    readonly ttlMs: number;
    constructor(options: PrefixCacheOptions);
    get size(): number;
    clear(): void;
    /**
     * Accounts one request, then stores its prefixes (and, for deepseek, the unit ending after
     * `output`, the assistant message the model produced, as the next request will send it).
     */
    apply(namespace: string, segments: readonly CacheSegment[], output?: CacheSegment): PrefixCacheResult;
}
