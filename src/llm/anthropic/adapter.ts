// AnthropicProvider: Keelson's Provider over the official `@anthropic-ai/sdk` streaming Messages
// API. The SDK's own retries are off (`maxRetries: 0`): Keelson retries in the loop, where each
// attempt is logged. Errors become ProviderErrors with stable codes (see http-errors.ts). The
// SDK is loaded on the first request (not at import), so importing Keelson costs no SDK.
import type Anthropic from "@anthropic-ai/sdk";
import { httpError } from "../http-errors.js";
import { withStallTimeout } from "../stall.js";
import { type Provider, ProviderError, type ProviderRequest, type StreamChunk } from "../types.js";
import { AnthropicStreamMapper } from "./stream.js";
import { toAnthropicParams } from "./wire.js";

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
let sdkLoading: Promise<AnthropicSdk> | undefined;
/** `@anthropic-ai/sdk`, imported once, on first use. */
const anthropicSdk = (): Promise<AnthropicSdk> => (sdkLoading ??= import("@anthropic-ai/sdk"));

export class AnthropicProvider implements Provider {
  readonly id: string;
  /** The SDK client, made on the first request from `#clientOptions` (or the one given). */
  #client: Anthropic | undefined;
  readonly #clientOptions: { readonly apiKey: string; readonly baseURL?: string } | undefined;
  readonly #defaultMaxTokens: number;
  readonly #stallTimeoutMs: number;

  /** Throws ProviderError('auth') when no key is found (before any SDK is loaded). */
  constructor(options: AnthropicProviderOptions = {}) {
    this.id = options.id ?? "anthropic";
    this.#defaultMaxTokens = options.defaultMaxTokens ?? 8192;
    this.#stallTimeoutMs = options.stallTimeoutMs ?? 60_000;
    if (options.client !== undefined) {
      this.#client = options.client;
      return;
    }
    const apiKey = options.apiKey ?? process.env.ANTHROPIC_API_KEY;
    if (!apiKey) throw new ProviderError("auth", "no Anthropic API key: set ANTHROPIC_API_KEY or pass `apiKey`");
    const baseURL = options.baseURL ?? process.env.ANTHROPIC_BASE_URL;
    this.#clientOptions = { apiKey, ...(baseURL ? { baseURL } : {}) };
  }

  async #connect(): Promise<{ client: Anthropic; sdk: AnthropicSdk }> {
    const sdk = await anthropicSdk();
    this.#client ??= new sdk.default({ ...this.#clientOptions, maxRetries: 0 });
    return { client: this.#client, sdk };
  }

  async *stream(request: ProviderRequest): AsyncGenerator<StreamChunk> {
    const params = toAnthropicParams(request, { defaultMaxTokens: this.#defaultMaxTokens });
    const controller = new AbortController();
    const forward = (): void => controller.abort(request.signal.reason);
    if (request.signal.aborted) forward();
    else request.signal.addEventListener("abort", forward, { once: true });
    const mapper = new AnthropicStreamMapper();
    let sdk: AnthropicSdk | undefined;
    try {
      const connection = await this.#connect();
      sdk = connection.sdk;
      const events = await connection.client.messages.create(
        { ...params, stream: true },
        { signal: controller.signal },
      );
      for await (const event of withStallTimeout(events, this.#stallTimeoutMs, () => controller.abort())) {
        yield* mapper.map(event);
      }
      if (!mapper.stopped && !request.signal.aborted) {
        throw new ProviderError("connection", "the stream ended before message_stop (cut off)", { retryable: true });
      }
    } catch (error) {
      if (request.signal.aborted) return; // the loop sees its own signal
      throw toProviderError(error, sdk ?? (await anthropicSdk()));
    } finally {
      request.signal.removeEventListener("abort", forward);
    }
  }
}

/** Maps SDK failures (HTTP errors, in-stream error events, dropped sockets) to ProviderErrors. */
export function toProviderError(error: unknown, { default: Anthropic }: AnthropicSdk): ProviderError {
  if (error instanceof ProviderError) return error;
  if (error instanceof Anthropic.APIConnectionError)
    return new ProviderError("connection", `could not reach Anthropic: ${error.message}`, {
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
    return new ProviderError("protocol", `malformed stream from Anthropic: ${error.message}`, { cause: error });
  }
  if (
    error instanceof Error &&
    /terminated|ECONNRESET|socket hang up|other side closed|fetch failed/i.test(error.message)
  ) {
    return new ProviderError("connection", `the connection dropped: ${error.message}`, {
      retryable: true,
      cause: error,
    });
  }
  return new ProviderError("provider-error", error instanceof Error ? error.message : String(error), { cause: error });
}
