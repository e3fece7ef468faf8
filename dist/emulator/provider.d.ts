import { type Provider, type ProviderRequest, type StreamChunk } from "../llm/core.js";
import type { Usage } from "../messages/index.js";
import { AnthropicCacheModel, type CacheBlock, PrefixCacheModel } from "./cache-model.js";
import type { Clock, EmulatorModel, EmulatorModelOption } from "./types.js";
export interface EmulatorProviderOptions {
    readonly id?: string;
    readonly model?: EmulatorModelOption;
    readonly cacheStyle?: "anthropic" | "openai" | "deepseek";
    readonly clock?: Clock;
    /** Anthropic style: minimum cacheable prefix (default 1024). Prefix styles: minimum hit. */
    readonly minCacheableTokens?: number;
    readonly ttlMs?: number;
    /** Cache namespace (one per API key/org); providers sharing a cache model and namespace share prefixes. */
    readonly namespace?: string;
}
export declare class EmulatorProvider implements Provider {
    #private;
    readonly id: string;
    readonly cacheStyle: "anthropic" | "openai" | "deepseek";
    readonly cache: AnthropicCacheModel | PrefixCacheModel;
    readonly model: EmulatorModel;
    /** Every request received, as sent. */
    readonly requests: ProviderRequest[];
    /** The usage reported for each answered request, in order. */
    readonly usages: Usage[];
    constructor(options?: EmulatorProviderOptions);
    stream(request: ProviderRequest): AsyncGenerator<StreamChunk>;
}
/**
 * The Anthropic block list of a provider request with Keelson's breakpoints (at most 4): end of
 * tools+system, end of the session prefix, the previous request's last block, the last block.
 */
export declare function anthropicBlocks(request: Pick<ProviderRequest, "tools" | "system" | "messages"> & {
    readonly prefixLength?: unknown;
}): CacheBlock[];
