// OpenAICompatibleProvider: the Provider for OpenAI, DeepSeek and any server that speaks Chat
// Completions, through the official `openai` SDK in streaming mode. The flavor decides the wire
// details (wire.ts), the stream mapper turns SDK chunks into Keelson chunks (stream.ts), and
// failures become ProviderErrors (errors.ts). The SDK never retries (`maxRetries: 0`): retries
// belong to the loop, which logs each attempt and discards partial streams. Each attempt runs
// under connect, first-event and stall deadlines (attempt-deadlines.ts), and a request that
// clearly exceeds its model's context window is refused before anything is sent. The SDK is
// loaded on the first request (not at import), so importing Keelson costs no SDK.
import { loadOptionalPackage } from "../../errors/index.js";
import type OpenAI from "openai";
import { AttemptDeadlines, DEFAULT_DEADLINES } from "../attempt-deadlines.js";
import { contextWindowProblem } from "../context-window.js";
import { ModelRegistry } from "../models.js";
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
  /** Fail `connection` (retryable) when the request is not on a connected socket within this long. Default 10 000. */
  readonly connectTimeoutMs?: number;
  /** Fail `stalled` (retryable) when no stream event arrives within this long of sending the request. Default 60 000. */
  readonly firstByteTimeoutMs?: number;
  /** Abort and fail `stalled` (retryable) when no chunk arrives for this long mid-stream. Default 60 000. */
  readonly stallTimeoutMs?: number;
  /** Context windows for the pre-send size check (models it does not know are not checked). Default: DEFAULT_MODELS. */
  readonly models?: ModelRegistry;
  /** Role of the system prompt message. Default `system`. */
  readonly systemRole?: "system" | "developer";
  /** Send `prompt_cache_key` = session id. Default: true for openai, false otherwise. */
  readonly promptCacheKey?: boolean;
}

const DEEPSEEK_BASE_URL = "https://api.deepseek.com/v1";
/** The openai SDK's own default (it also reads `$OPENAI_BASE_URL`). */
const OPENAI_BASE_URL = "https://api.openai.com/v1";
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
    outputMode: options.flavor === "deepseek" ? "json_object" : "json_schema",
  };
}

type OpenAISdk = typeof import("openai");
/** The `openai` SDK, imported once, on first use (an optional peer: MissingPackageError when absent). */
const openaiSdk = (): Promise<OpenAISdk> =>
  loadOptionalPackage<OpenAISdk>("openai", "the OpenAI-compatible provider (OpenAICompatibleProvider)");

export class OpenAICompatibleProvider implements Provider {
  readonly id: string;
  /** The SDK client, made on the first request from `#clientOptions` (or the one given). */
  #client: OpenAI | undefined;
  readonly #clientOptions: ClientOptions | undefined;
  readonly #wire: ChatWireOptions;
  readonly #deadlines: { connectTimeoutMs: number; firstByteTimeoutMs: number; stallTimeoutMs: number };
  readonly #models: ModelRegistry;

  /** Throws ProviderError('auth') naming the env var when no key is found (before any SDK is loaded). */
  constructor(options: OpenAICompatibleOptions) {
    this.id = options.id ?? options.flavor;
    this.#client = options.client;
    this.#clientOptions = options.client === undefined ? clientOptions(options) : undefined;
    this.#deadlines = {
      connectTimeoutMs: options.connectTimeoutMs ?? DEFAULT_DEADLINES.connectTimeoutMs,
      firstByteTimeoutMs: options.firstByteTimeoutMs ?? DEFAULT_DEADLINES.firstByteTimeoutMs,
      stallTimeoutMs: options.stallTimeoutMs ?? DEFAULT_DEADLINES.stallTimeoutMs,
    };
    this.#models = options.models ?? new ModelRegistry();
    this.#wire = chatWireOptions(options);
  }

  /** Where requests go (named in connection and timeout errors). */
  get baseURL(): string {
    return this.#client?.baseURL ?? this.#clientOptions?.baseURL ?? (process.env.OPENAI_BASE_URL || OPENAI_BASE_URL);
  }

  async *stream(request: ProviderRequest): AsyncGenerator<StreamChunk> {
    const tooLarge = contextWindowProblem(request, this.#models);
    if (tooLarge !== undefined) throw tooLarge;
    const params = toChatCompletionsParams(request, this.#wire);
    // Before the attempt: a missing SDK is the application's install, never a provider failure.
    const sdk = await openaiSdk();
    // Our own controller, so a deadline can abort the request without touching the caller's signal.
    const controller = new AbortController();
    const forward = (): void => controller.abort(request.signal.reason);
    request.signal.addEventListener("abort", forward, { once: true });
    if (request.signal.aborted) forward();
    let deadlines: AttemptDeadlines | undefined;
    try {
      this.#client ??= new sdk.default({ ...this.#clientOptions, maxRetries: 0 });
      deadlines = new AttemptDeadlines({ baseURL: this.baseURL, ...this.#deadlines }, () => controller.abort());
      deadlines.start();
      const chunks = await this.#client.chat.completions.create(params, { signal: controller.signal });
      deadlines.responded();
      const mapper = new ChatChunkMapper();
      for await (const chunk of chunks) {
        deadlines.received(); // the consumer's time is not the provider's silence
        for (const out of mapper.map(chunk)) yield out;
        deadlines.waiting();
      }
      deadlines.stop();
      // An abort ends the SDK's iterator silently: tell a passed deadline from a cancel from a clean end.
      if (deadlines.expired !== undefined) throw deadlines.error();
      if (request.signal.aborted) {
        yield { type: "finish", reason: "aborted" };
        return;
      }
      for (const out of mapper.end()) yield out;
    } catch (error) {
      throw toProviderError(error, sdk, {
        deadline: deadlines?.expired === undefined ? undefined : deadlines.error(error),
        aborted: request.signal.aborted,
        baseURL: this.baseURL,
      });
    } finally {
      deadlines?.stop();
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
