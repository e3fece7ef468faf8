import type Anthropic from "@anthropic-ai/sdk";
import { type Provider, ProviderError, type ProviderRequest, type StreamChunk } from "../types.js";
export interface AnthropicProviderOptions {
    /** Defaults to `$ANTHROPIC_API_KEY`. */
    readonly apiKey?: string;
    /** Without `/v1`, e.g. the emulator's `anthropicBaseURL`. Defaults to `$ANTHROPIC_BASE_URL` or the SDK's. */
    readonly baseURL?: string;
    /** A ready client (tests); `apiKey`/`baseURL` are then ignored. */
    readonly client?: Anthropic;
    readonly id?: string;
    /** `max_tokens` when a request sets none. Default 8192. */
    readonly defaultMaxTokens?: number;
    /** Fail a stream that sends nothing for this long (ms). Default 60 000. */
    readonly stallTimeoutMs?: number;
}
type AnthropicSdk = typeof import("@anthropic-ai/sdk");
export declare class AnthropicProvider implements Provider {
    #private;
    readonly id: string;
    /** Throws ProviderError('auth') when no key is found (before any SDK is loaded). */
    constructor(options?: AnthropicProviderOptions);
    stream(request: ProviderRequest): AsyncGenerator<StreamChunk>;
}
/** Maps SDK failures (HTTP errors, in-stream error events, dropped sockets) to ProviderErrors. */
export declare function toProviderError(error: unknown, { default: Anthropic }: AnthropicSdk): ProviderError;
export {};
