// AnthropicProvider: Keelson's Provider over the official `@anthropic-ai/sdk` streaming Messages
// API. The SDK's own retries are off (`maxRetries: 0`): Keelson retries in the loop, where each
// attempt is logged. Errors become ProviderErrors with stable codes (see http-errors.ts); each
// attempt runs under connect, first-event and stall deadlines (attempt-deadlines.ts); a request
// that clearly exceeds its model's context window is refused before anything is sent. The body
// handed to the SDK is `anthropicRequestBody` (what `keelson requests --wire` prints). The SDK
// is loaded on the first request (not at import), so importing Keelson costs no SDK. The same
// adapter speaks to Amazon Bedrock and Google Vertex AI (`platform`), through their official
// SDKs, loaded the same way (platform-client.ts): same body, same cache breakpoints.
import { errorMessage } from "../../errors/index.js";
import type Anthropic from "@anthropic-ai/sdk";
import { ANTHROPIC_API, type NoticeSink, ReasoningCarryover } from "../reasoning-carryover.js";
import { AttemptDeadlines, DEFAULT_DEADLINES } from "../attempt-deadlines.js";
import { contextWindowProblem } from "../context-window.js";
import { describeFailure, httpError } from "../http-errors.js";
import { withoutKey } from "../key-redaction.js";
import { ModelRegistry } from "../models.js";
import { type Provider, ProviderError, type ProviderRequest, type StreamChunk } from "../types.js";
import { untilAborted } from "../until-aborted.js";
import {
  type AnthropicPlatform,
  type AnthropicSdk,
  anthropicClient,
  anthropicSdk,
  platformBaseURL,
} from "./platform-client.js";
import { AnthropicStreamMapper } from "./stream.js";
import { ANTHROPIC_DEFAULT_MAX_TOKENS, anthropicRequestBody } from "./wire.js";

export interface AnthropicProviderOptions {
  /**
   * Where Claude runs: `anthropic` (default, `@anthropic-ai/sdk`), `bedrock`
   * (`@anthropic-ai/bedrock-sdk`: AWS credential chain, `AWS_REGION`) or `vertex`
   * (`@anthropic-ai/vertex-sdk`: Google ADC, `CLOUD_ML_REGION`, `ANTHROPIC_VERTEX_PROJECT_ID`).
   */
  readonly platform?: AnthropicPlatform;
  /** Passed to the Bedrock / Vertex client as they are (e.g. `awsRegion`, `region`, `projectId`, `authClient`). */
  readonly platformOptions?: Readonly<Record<string, unknown>>;
  /** Defaults to `$ANTHROPIC_API_KEY` (the first-party API only). */
  readonly apiKey?: string;
  /**
   * Without `/v1`, e.g. the emulator's `anthropicBaseURL`. Defaults to `$ANTHROPIC_BASE_URL` or the
   * SDK's; on Bedrock / Vertex the platform SDK's (`$ANTHROPIC_BEDROCK_BASE_URL`, `$ANTHROPIC_VERTEX_BASE_URL`).
   */
  readonly baseURL?: string;
  /** A ready client (tests); `apiKey`/`baseURL` are then ignored. */
  readonly client?: Anthropic;
  readonly id?: string;
  /** `max_tokens` when a request sets none. Default 8192. */
  readonly defaultMaxTokens?: number;
  /** Fail `connection` (retryable) when the request is not on a connected socket within this long (ms). Default 10 000. */
  readonly connectTimeoutMs?: number;
  /** Fail `stalled` (retryable) when no stream event arrives within this long of sending the request (ms). Default 60 000. */
  readonly firstByteTimeoutMs?: number;
  /** Fail a stream that sends nothing for this long mid-stream (ms). Default 60 000. */
  readonly stallTimeoutMs?: number;
  /** Context windows for the pre-send size check (models it does not know are not checked). Default: DEFAULT_MODELS. */
  readonly models?: ModelRegistry;
  /** Where notices go (e.g. another API's opaque reasoning left out of a request). Default: a process warning. */
  readonly onNotice?: NoticeSink;
}

export class AnthropicProvider implements Provider {
  readonly id: string;
  /** The SDK client, made on the first request from `#clientOptions` (or the one given). */
  #client: Anthropic | undefined;
  readonly #clientOptions:
    | {
        readonly apiKey?: string;
        readonly baseURL?: string;
        readonly platformOptions?: Readonly<Record<string, unknown>>;
      }
    | undefined;
  readonly #platform: AnthropicPlatform;
  readonly #carryover: ReasoningCarryover;
  readonly #defaultMaxTokens: number;
  readonly #deadlines: { connectTimeoutMs: number; firstByteTimeoutMs: number; stallTimeoutMs: number };
  readonly #models: ModelRegistry;

  /** Throws ProviderError('auth') when no key is found for the first-party API (before any SDK is loaded). */
  constructor(options: AnthropicProviderOptions = {}) {
    this.#platform = options.platform ?? "anthropic";
    this.id = options.id ?? this.#platform;
    this.#carryover = new ReasoningCarryover(ANTHROPIC_API, options.onNotice);
    this.#defaultMaxTokens = options.defaultMaxTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS;
    this.#deadlines = {
      connectTimeoutMs: options.connectTimeoutMs ?? DEFAULT_DEADLINES.connectTimeoutMs,
      firstByteTimeoutMs: options.firstByteTimeoutMs ?? DEFAULT_DEADLINES.firstByteTimeoutMs,
      stallTimeoutMs: options.stallTimeoutMs ?? DEFAULT_DEADLINES.stallTimeoutMs,
    };
    this.#models = options.models ?? new ModelRegistry();
    if (options.client !== undefined) {
      this.#client = options.client;
      return;
    }
    if (this.#platform !== "anthropic") {
      // Credentials come from the platform SDK's standard environment, at the first request.
      this.#clientOptions = {
        ...(options.baseURL ? { baseURL: options.baseURL } : {}),
        ...(options.platformOptions === undefined ? {} : { platformOptions: options.platformOptions }),
      };
      return;
    }
    const apiKey = options.apiKey ?? process.env.ANTHROPIC_API_KEY;
    if (!apiKey) throw new ProviderError("auth", "no Anthropic API key: set ANTHROPIC_API_KEY or pass `apiKey`");
    const baseURL = options.baseURL ?? process.env.ANTHROPIC_BASE_URL;
    this.#clientOptions = { apiKey, ...(baseURL ? { baseURL } : {}) };
  }

  /** Where requests go (named in connection and timeout errors). */
  get baseURL(): string {
    return this.#client?.baseURL ?? this.#clientOptions?.baseURL ?? platformBaseURL(this.#platform);
  }

  /** The SDK (and the platform's client, made on the first request): a missing package is a MissingPackageError. */
  async #connect(): Promise<{ client: Anthropic; sdk: AnthropicSdk }> {
    const sdk = await anthropicSdk();
    this.#client ??= await anthropicClient(this.#platform, this.#clientOptions ?? {});
    return { client: this.#client, sdk };
  }

  /** The context window of `model` in this provider's model registry (undefined: a model it does not know). */
  contextWindow(model: string): number | undefined {
    return this.#models.find(model)?.contextWindow;
  }

  async *stream(request: ProviderRequest): AsyncGenerator<StreamChunk> {
    const tooLarge = contextWindowProblem(request, this.#models);
    if (tooLarge !== undefined) throw tooLarge;
    const body = anthropicRequestBody(request, { defaultMaxTokens: this.#defaultMaxTokens });
    this.#carryover.check(request, this.id);
    // Before the attempt: a missing SDK is the application's install, never a provider failure.
    const { client, sdk } = await this.#connect();
    const controller = new AbortController();
    const forward = (): void => controller.abort(request.signal.reason);
    if (request.signal.aborted) forward();
    else request.signal.addEventListener("abort", forward, { once: true });
    const mapper = new AnthropicStreamMapper();
    let deadlines: AttemptDeadlines | undefined;
    try {
      deadlines = new AttemptDeadlines({ baseURL: this.baseURL, ...this.#deadlines }, () => controller.abort());
      deadlines.start();
      const events = await client.messages.create(body, { signal: controller.signal });
      deadlines.responded();
      for await (const event of untilAborted(events, controller.signal)) {
        deadlines.received(); // the consumer's time is not the provider's silence
        yield* mapper.map(event);
        deadlines.waiting();
      }
      deadlines.stop();
      if (deadlines.expired !== undefined) throw deadlines.error();
      if (!mapper.stopped && !request.signal.aborted) {
        throw new ProviderError("connection", `the stream from ${this.baseURL} ended before message_stop (cut off)`, {
          retryable: true,
        });
      }
    } catch (error) {
      if (deadlines?.expired !== undefined) throw error instanceof ProviderError ? error : deadlines.error(error);
      if (request.signal.aborted) return; // the loop sees its own signal
      const failure = toProviderError(error, sdk, { baseURL: this.baseURL, platform: this.#platform });
      throw withoutKey(failure, this.#clientOptions?.apiKey);
    } finally {
      deadlines?.stop();
      request.signal.removeEventListener("abort", forward);
      controller.abort(); // releases the connection when the consumer stopped early
    }
  }
}

const CREDENTIALS_MISSING =
  /Failed to acquire Google OAuth credentials|Could not load credentials|Unable to load credentials|CredentialsProviderError/i;

/**
 * Maps SDK failures (HTTP errors, in-stream error events, dropped sockets) to ProviderErrors;
 * connection failures name `context.baseURL` when given.
 */
export function toProviderError(
  error: unknown,
  { default: Anthropic }: AnthropicSdk,
  context: { readonly baseURL?: string; readonly platform?: AnthropicPlatform } = {},
): ProviderError {
  if (error instanceof ProviderError) return error;
  const at = context.baseURL === undefined ? "" : ` at ${context.baseURL}`;
  // Bedrock / Vertex: no credentials in the AWS chain or Google ADC — not worth a retry.
  if (error instanceof Error && CREDENTIALS_MISSING.test(error.message))
    return new ProviderError(
      "auth",
      `no credentials for Anthropic on ${context.platform ?? "its platform"}: ${describeFailure(error)}`,
      { cause: error },
    );
  if (error instanceof Anthropic.APIConnectionError)
    return new ProviderError("connection", `could not reach Anthropic${at}: ${describeFailure(error)}`, {
      retryable: true,
      cause: error,
    });
  if (error instanceof Anthropic.APIError) {
    const body = error.error as { error?: { type?: string; message?: string } } | undefined;
    const message = body?.error?.message ?? error.message;
    if (error.status === undefined) {
      // An `event: error` inside the stream: classify by its type.
      const type = body?.error?.type ?? "";
      if (type === "overloaded_error" || /overloaded/i.test(message))
        return new ProviderError("overloaded", `provider overloaded: ${message}`, { retryable: true, cause: error });
      if (type === "rate_limit_error")
        return new ProviderError("rate-limited", `rate limited: ${message}`, { retryable: true, cause: error });
      if (type === "invalid_request_error") return httpError(400, message, undefined, error);
      return new ProviderError("server-error", `stream error (${type || "unknown"}): ${message}`, {
        retryable: true,
        cause: error,
      });
    }
    return httpError(error.status, message, error.headers, error);
  }
  if (
    error instanceof SyntaxError ||
    (error instanceof Anthropic.AnthropicError && /JSON|parse|unexpected token/i.test(error.message))
  ) {
    // A garbled event (cut or corrupted in transit) is retried: nothing of the attempt reaches the log.
    return new ProviderError("protocol", `malformed stream from Anthropic: ${error.message}`, {
      retryable: true,
      cause: error,
    });
  }
  if (
    error instanceof Error &&
    /terminated|ECONNRESET|socket hang up|other side closed|fetch failed/i.test(error.message)
  ) {
    return new ProviderError("connection", `the connection${at} dropped: ${describeFailure(error)}`, {
      retryable: true,
      cause: error,
    });
  }
  return new ProviderError("provider-error", errorMessage(error), { cause: error });
}
