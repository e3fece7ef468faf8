import type Anthropic from "@anthropic-ai/sdk";
import type { ProviderRequest } from "../types.js";
export interface AnthropicWireOptions {
    /** `max_tokens` when the request sets none (the API requires one). */
    readonly defaultMaxTokens: number;
}
/** The params for `client.messages.create` (without `stream`). */
export declare function toAnthropicParams(request: ProviderRequest, options: AnthropicWireOptions): Anthropic.Messages.MessageCreateParamsNonStreaming;
