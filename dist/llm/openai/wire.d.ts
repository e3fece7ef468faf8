import type OpenAI from "openai";
import type { ProviderRequest } from "../types.js";
export interface ChatWireOptions {
    /** Role of the system prompt message: `developer` for OpenAI reasoning models that prefer it. */
    readonly systemRole: "system" | "developer";
    /** OpenAI deprecated `max_tokens` for `max_completion_tokens`; DeepSeek and most servers read `max_tokens`. */
    readonly maxTokensField: "max_completion_tokens" | "max_tokens";
    /** Send `prompt_cache_key: request.sessionId` (OpenAI routes a session to one cache with it). */
    readonly promptCacheKey: boolean;
    /**
     * Which reasoning goes back to the provider. `none`: dropped (OpenAI keeps its reasoning
     * server-side; most servers reject or ignore it). `tool-turns` (DeepSeek thinking mode): the
     * `reasoning_content` of every assistant message between two user messages in which the model
     * called a tool — DeepSeek answers 400 without it — and nothing for turns without tool calls,
     * whose reasoning DeepSeek documents as not part of the context.
     */
    readonly reasoningReplay: "none" | "tool-turns";
}
/** The streaming params for one request: `stream: true` with `include_usage`. */
export declare function toChatCompletionsParams(request: ProviderRequest, options: ChatWireOptions): OpenAI.Chat.Completions.ChatCompletionCreateParamsStreaming;
/** `provider:model` → `model` (the selector's prefix picks the provider; the rest is the model id). */
export declare function modelId(model: string): string;
