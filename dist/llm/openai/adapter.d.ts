import type OpenAI from "openai";
import { type Provider, type ProviderRequest, type StreamChunk } from "../types.js";
import { type ChatWireOptions } from "./wire.js";
export interface OpenAICompatibleOptions {
    /** `openai`, `deepseek`, or `compatible` for any other Chat Completions server (needs `baseURL`). */
    readonly flavor: "openai" | "deepseek" | "compatible";
    /** Provider id for `provider:model` selectors; defaults to the flavor. */
    readonly id?: "openai" | "deepseek" | (string & {});
    /**
     * Defaults: `OPENAI_API_KEY` (openai), `DEEPSEEK_API_KEY` (deepseek). A compatible server gets
     * only this key — never the OpenAI one from the environment — or a placeholder when unset, as
     * local servers usually need none.
     */
    readonly apiKey?: string;
    /** Including `/v1`. Defaults: the SDK's (openai), `https://api.deepseek.com/v1` (deepseek). */
    readonly baseURL?: string;
    /** A ready client (tests, proxies); `apiKey` and `baseURL` are then ignored. */
    readonly client?: OpenAI;
    /** Abort and fail `stalled` (retryable) when no chunk arrives for this long. Default 60 000. */
    readonly stallTimeoutMs?: number;
    /** Role of the system prompt message. Default `system`. */
    readonly systemRole?: "system" | "developer";
    /** Send `prompt_cache_key` = session id. Default: true for openai, false otherwise. */
    readonly promptCacheKey?: boolean;
}
/** The wire mapping options a provider with `options` uses (also what `keelson requests --wire` replays). */
export declare function chatWireOptions(options: Pick<OpenAICompatibleOptions, "flavor" | "systemRole" | "promptCacheKey">): ChatWireOptions;
type OpenAISdk = typeof import("openai");
/** The `openai` SDK, imported once, on first use. */
export declare const openaiSdk: () => Promise<OpenAISdk>;
export declare class OpenAICompatibleProvider implements Provider {
    #private;
    readonly id: string;
    /** Throws ProviderError('auth') naming the env var when no key is found (before any SDK is loaded). */
    constructor(options: OpenAICompatibleOptions);
    stream(request: ProviderRequest): AsyncGenerator<StreamChunk>;
}
export {};
