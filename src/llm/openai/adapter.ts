// OpenAICompatibleProvider: the Provider for OpenAI, DeepSeek and any server that speaks Chat
// Completions, through the official `openai` SDK in streaming mode. The flavor decides the wire
// details (wire.ts), the stream mapper turns SDK chunks into Keelson chunks (stream.ts), and
// failures become ProviderErrors (errors.ts). The SDK never retries (`maxRetries: 0`): retries
// belong to the loop, which logs each attempt and discards partial streams. The SDK is loaded
// on the first request (not at import), so importing Keelson costs no SDK.
import type OpenAI from "openai";
import { type Provider, ProviderError, type ProviderRequest, type StreamChunk } from "../types.js";
import { toProviderError } from "./errors.js";
import { ChatChunkMapper } from "./stream.js";
import { type ChatWireOptions, toChatCompletionsParams } from "./wire.js";

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

const DEFAULT_STALL_TIMEOUT_MS = 60_000;
const DEEPSEEK_BASE_URL = "https://api.deepseek.com/v1";
const KEY_ENV = { openai: "OPENAI_API_KEY", deepseek: "DEEPSEEK_API_KEY" } as const;

/** The wire mapping options a provider with `options` uses (also what `keelson requests --wire` replays). */
export function chatWireOptions(
  options: Pick<OpenAICompatibleOptions, "flavor" | "systemRole" | "promptCacheKey">,
): ChatWireOptions {
  return {
    systemRole: options.systemRole ?? "system",
    maxTokensField: options.flavor === "openai" ? "max_completion_tokens" : "max_tokens",
    promptCacheKey: options.promptCacheKey ?? options.flavor === "openai",
    reasoningReplay: options.flavor === "deepseek" ? "tool-turns" : "none",
  };
}

type OpenAISdk = typeof import("openai");
let sdkLoading: Promise<OpenAISdk> | undefined;
/** The `openai` SDK, imported once, on first use. */
export const openaiSdk = (): Promise<OpenAISdk> => (sdkLoading ??= import("openai"));

export class OpenAICompatibleProvider implements Provider {
  readonly id: string;
  /** The SDK client, made on the first request from `#clientOptions` (or the one given). */
  #client: OpenAI | undefined;
  readonly #clientOptions: ClientOptions | undefined;
  readonly #wire: ChatWireOptions;
  readonly #stallTimeoutMs: number;

  /** Throws ProviderError('auth') naming the env var when no key is found (before any SDK is loaded). */
  constructor(options: OpenAICompatibleOptions) {
    this.id = options.id ?? options.flavor;
    this.#client = options.client;
    this.#clientOptions = options.client === undefined ? clientOptions(options) : undefined;
    this.#stallTimeoutMs = options.stallTimeoutMs ?? DEFAULT_STALL_TIMEOUT_MS;
    this.#wire = chatWireOptions(options);
  }

  async *stream(request: ProviderRequest): AsyncGenerator<StreamChunk> {
    const params = toChatCompletionsParams(request, this.#wire);
    // Our own controller, so a stall can abort the request without touching the caller's signal.
    const controller = new AbortController();
    const forward = (): void => controller.abort(request.signal.reason);
    request.signal.addEventListener("abort", forward, { once: true });
    if (request.signal.aborted) forward();
    const watch = new StallWatch(this.#stallTimeoutMs, () => controller.abort());
    let sdk: OpenAISdk | undefined;
    try {
      watch.arm();
      sdk = await openaiSdk();
      this.#client ??= new sdk.default({ ...this.#clientOptions, maxRetries: 0 });
      const chunks = await this.#client.chat.completions.create(params, { signal: controller.signal });
      const mapper = new ChatChunkMapper();
      for await (const chunk of chunks) {
        watch.pause(); // the consumer's time is not the provider's silence
        for (const out of mapper.map(chunk)) yield out;
        watch.arm();
      }
      watch.pause();
      // An abort ends the SDK's iterator silently: tell a stall from a cancel from a clean end.
      if (watch.stalled)
        throw new ProviderError(
          "stalled",
          `no data from the provider for ${this.#stallTimeoutMs} ms; the request was aborted`,
          { retryable: true },
        );
      if (request.signal.aborted) {
        yield { type: "finish", reason: "aborted" };
        return;
      }
      for (const out of mapper.end()) yield out;
    } catch (error) {
      throw toProviderError(error, sdk ?? (await openaiSdk()), {
        stalled: watch.stalled,
        aborted: request.signal.aborted,
        stallTimeoutMs: this.#stallTimeoutMs,
      });
    } finally {
      watch.pause();
      request.signal.removeEventListener("abort", forward);
      controller.abort(); // releases the connection when the consumer stopped early
    }
  }
}

interface ClientOptions {
  readonly apiKey: string;
  readonly baseURL?: string;
}

function clientOptions(options: OpenAICompatibleOptions): ClientOptions {
  if (options.flavor === "compatible") {
    if (!options.baseURL)
      throw new ProviderError(
        "invalid-request",
        `OpenAICompatibleProvider(flavor "compatible") needs a baseURL (including /v1)`,
      );
    return { apiKey: options.apiKey || "no-key", baseURL: options.baseURL };
  }
  const env = KEY_ENV[options.flavor];
  const apiKey = options.apiKey || process.env[env];
  if (!apiKey)
    throw new ProviderError("auth", `no API key for the ${options.flavor} provider: set ${env} or pass apiKey`);
  const baseURL = options.baseURL ?? (options.flavor === "deepseek" ? DEEPSEEK_BASE_URL : undefined);
  return { apiKey, ...(baseURL === undefined ? {} : { baseURL }) };
}

/** A one-shot timer re-armed around every await on the provider. */
class StallWatch {
  readonly #ms: number;
  readonly #onStall: () => void;
  #timer: ReturnType<typeof setTimeout> | undefined;
  stalled = false;

  constructor(ms: number, onStall: () => void) {
    this.#ms = ms;
    this.#onStall = onStall;
  }

  arm(): void {
    this.pause();
    this.#timer = setTimeout(() => {
      this.stalled = true;
      this.#onStall();
    }, this.#ms);
  }

  pause(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
