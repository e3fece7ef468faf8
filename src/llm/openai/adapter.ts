// OpenAICompatibleProvider: the Provider for OpenAI, DeepSeek and any server that speaks Chat
// Completions, through the official `openai` SDK in streaming mode. The flavor decides the wire
// details (wire.ts), the stream mapper turns SDK chunks into Keelson chunks (stream.ts), and
// failures become ProviderErrors (errors.ts). The provider shell is shared with the Responses
// adapter (sdk-provider.ts): the SDK never retries (`maxRetries: 0`) — retries belong to the
// loop, which logs each attempt and discards partial streams; each attempt runs under connect,
// first-event and stall deadlines (attempt-deadlines.ts); a request that clearly exceeds its
// model's context window is refused before anything is sent. The SDK is loaded on the first
// request (`openaiSdk`, the one place the `openai` package loads, an optional peer), so importing
// Keelson costs no SDK.
import { loadOptionalPackage } from "../../errors/index.js";
import type OpenAI from "openai";
import type { ProviderRequest } from "../types.js";
import { type ChatFlavor, chatWireOptions, flavorClientOptions } from "./flavors.js";
import { type EventMapper, OpenAISdkProvider, type SdkProviderOptions } from "./sdk-provider.js";
import { ChatChunkMapper } from "./stream.js";
import { type ChatWireOptions, toChatCompletionsParams } from "./wire.js";

export interface OpenAICompatibleOptions extends SdkProviderOptions {
  /**
   * `openai`, `deepseek`, a local server (`vllm`, `llamacpp`, `ollama`, `lmstudio`: default base
   * URLs on localhost, no key needed), or `compatible` for any other Chat Completions server
   * (needs `baseURL`).
   */
  readonly flavor: ChatFlavor;
  /** Provider id for `provider:model` selectors; defaults to the flavor. */
  readonly id?: ChatFlavor | (string & {});
  /**
   * Defaults: `OPENAI_API_KEY` (openai), `DEEPSEEK_API_KEY` (deepseek), `VLLM_API_KEY` (vllm),
   * `LLAMACPP_API_KEY` (llamacpp). A local or compatible server gets only this key — never the
   * OpenAI one from the environment — or a placeholder when unset, as local servers usually need none.
   */
  readonly apiKey?: string;
  /**
   * Including `/v1`. Defaults: the SDK's (openai), `https://api.deepseek.com/v1` (deepseek),
   * `http://localhost:8000/v1` (vllm), `:8080/v1` (llamacpp), `:11434/v1` (ollama), `:1234/v1` (lmstudio).
   */
  readonly baseURL?: string;
  /** A ready client (tests, proxies); `apiKey` and `baseURL` are then ignored. */
  readonly client?: OpenAI;
  /** Role of the system prompt message. Default `system`. */
  readonly systemRole?: "system" | "developer";
  /** Send `prompt_cache_key` = session id. Default: true for openai, false otherwise. */
  readonly promptCacheKey?: boolean;
  /** Send llama.cpp's `cache_prompt: true` (keep the slot's KV cache for the next request). Default: true for llamacpp only. */
  readonly cachePrompt?: boolean;
}

export { chatWireOptions } from "./flavors.js";

type ChatCompletionChunk = OpenAI.Chat.Completions.ChatCompletionChunk;
type ChatCompletionCreateParamsStreaming = OpenAI.Chat.Completions.ChatCompletionCreateParamsStreaming;

type OpenAISdk = typeof import("openai");
/**
 * The `openai` SDK, imported once, on first use (an optional peer: MissingPackageError naming
 * `purpose` when absent). Both openai-SDK adapters load it here.
 */
export const openaiSdk = (purpose = "the OpenAI-compatible provider (OpenAICompatibleProvider)"): Promise<OpenAISdk> =>
  loadOptionalPackage<OpenAISdk>("openai", purpose);

export class OpenAICompatibleProvider extends OpenAISdkProvider<
  ChatCompletionCreateParamsStreaming,
  ChatCompletionChunk
> {
  readonly #wire: ChatWireOptions;

  /** Throws ProviderError('auth') naming the env var when no key is found (before any SDK is loaded). */
  constructor(options: OpenAICompatibleOptions) {
    super({
      id: options.id ?? options.flavor,
      // Chat Completions reads no opaque reasoning back: any in the history is left out.
      api: "openai-chat",
      sdk: () => openaiSdk(),
      client: options.client,
      clientOptions: options.client === undefined ? flavorClientOptions(options) : undefined,
      options,
    });
    this.#wire = chatWireOptions(options);
  }

  protected body(request: ProviderRequest): ChatCompletionCreateParamsStreaming {
    return toChatCompletionsParams(request, this.#wire);
  }

  protected open(
    client: OpenAI,
    body: ChatCompletionCreateParamsStreaming,
    signal: AbortSignal,
  ): Promise<AsyncIterable<ChatCompletionChunk>> {
    return client.chat.completions.create(body, { signal });
  }

  protected mapper(): EventMapper<ChatCompletionChunk> {
    return new ChatChunkMapper();
  }
}
