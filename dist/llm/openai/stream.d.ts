import type OpenAI from "openai";
import type { Usage } from "../../messages/index.js";
import { type StreamChunk } from "../types.js";
type Chunk = OpenAI.Chat.Completions.ChatCompletionChunk;
/** Usage as OpenAI and DeepSeek shape it; the DeepSeek fields pass through the SDK untyped. */
type WireUsage = OpenAI.CompletionUsage & {
    prompt_cache_hit_tokens?: number;
    prompt_cache_miss_tokens?: number;
    cache_write_tokens?: number;
};
export declare class ChatChunkMapper {
    #private;
    map(chunk: Chunk): StreamChunk[];
    /**
     * The closing chunks once the SDK iterator is done: block-ends, usage (when the server sent
     * it), finish. A stream that ended without a `finish_reason` was cut off: a retryable
     * connection failure, since nothing of it may reach history.
     */
    end(): StreamChunk[];
}
/**
 * Provider usage → Keelson's disjoint buckets. DeepSeek: `prompt_cache_hit_tokens` is the cache
 * read and `prompt_cache_miss_tokens` the uncached input (`prompt_tokens` counts both). OpenAI:
 * `prompt_tokens` includes `cached_tokens` and, from GPT-5.6, the `cache_write_tokens` written;
 * both are taken out of the uncached input.
 */
export declare function normalizeUsage(usage: WireUsage): Usage;
export {};
