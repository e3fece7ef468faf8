// GeminiProvider: Keelson's Provider over the official `@google/genai` SDK's streaming
// `models.generateContentStream` (Gemini Developer API). The SDK's own retries and automatic
// continuation stay off: Keelson retries in the loop, where each attempt is logged. The contents
// and config handed to the SDK are those of `geminiRequestBody` (what `keelson requests --wire
// gemini` prints), which the SDK serializes to the same bytes. Each attempt runs under connect,
// first-event and stall deadlines; a request that clearly exceeds its model's context window is
// refused before anything is sent. The SDK is loaded on the first request (one dynamic import,
// `geminiSdk`), so importing Keelson costs no SDK; a missing key still fails at construction.
import type { GoogleGenAI } from "@google/genai";
import { loadOptionalPackage } from "../../errors/index.js";
import { DEFAULT_DEADLINES } from "../attempt-deadlines.js";
import { contextWindowProblem } from "../context-window.js";
import { ModelRegistry } from "../models.js";
import { type NoticeSink, ReasoningCarryover } from "../reasoning-carryover.js";
import { sdkAttempt } from "../sdk-attempt.js";
import { type Provider, ProviderError, type ProviderRequest, type StreamChunk } from "../types.js";
import {
  type ContextCacheClient,
  type ContextCacheInfo,
  type ContextCachePrompt,
  cacheInfoOf,
  geminiCacheCreateParams,
} from "./context-cache.js";
import { toGeminiError } from "./errors.js";
import { type GeminiChunk, GeminiStreamMapper } from "./stream.js";
import { GEMINI_API, type GeminiRequestBody, geminiModelId, geminiRequestBody } from "./wire.js";
import { withoutKey } from "../key-redaction.js";

export interface GeminiProviderOptions {
  /** Defaults to `$GEMINI_API_KEY`, else `$GOOGLE_API_KEY`. */
  readonly apiKey?: string;
  /** The API root without the version, e.g. the emulator's `geminiBaseURL`. Defaults to `$GOOGLE_GEMINI_BASE_URL` or the SDK's. */
  readonly baseURL?: string;
  /** A ready client (tests); `apiKey`/`baseURL` are then ignored. */
  readonly client?: GoogleGenAI;
  readonly id?: string;
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

/** The SDK's own default base URL (the Gemini Developer API). */
const GEMINI_BASE_URL = "https://generativelanguage.googleapis.com";

type GeminiSdk = typeof import("@google/genai");
/** `@google/genai`, imported once, on first use — the one place the adapter loads its SDK (MissingPackageError when absent). */
export const geminiSdk = (): Promise<GeminiSdk> =>
  loadOptionalPackage<GeminiSdk>("@google/genai", "the Gemini provider (GeminiProvider)");

export class GeminiProvider implements Provider, ContextCacheClient {
  readonly id: string;
  #client: GoogleGenAI | undefined;
  readonly #clientOptions: { readonly apiKey: string; readonly baseURL?: string } | undefined;
  readonly #deadlines: { connectTimeoutMs: number; firstByteTimeoutMs: number; stallTimeoutMs: number };
  readonly #models: ModelRegistry;
  readonly #carryover: ReasoningCarryover;

  /** Throws ProviderError('auth') naming the variables when no key is found (before any SDK is loaded). */
  constructor(options: GeminiProviderOptions = {}) {
    this.id = options.id ?? "gemini";
    this.#deadlines = {
      connectTimeoutMs: options.connectTimeoutMs ?? DEFAULT_DEADLINES.connectTimeoutMs,
      firstByteTimeoutMs: options.firstByteTimeoutMs ?? DEFAULT_DEADLINES.firstByteTimeoutMs,
      stallTimeoutMs: options.stallTimeoutMs ?? DEFAULT_DEADLINES.stallTimeoutMs,
    };
    this.#models = options.models ?? new ModelRegistry();
    this.#carryover = new ReasoningCarryover(GEMINI_API, options.onNotice);
    this.#client = options.client;
    if (options.client !== undefined) return;
    const apiKey = options.apiKey || process.env.GEMINI_API_KEY || process.env.GOOGLE_API_KEY;
    if (!apiKey)
      throw new ProviderError("auth", "no Gemini API key: set GEMINI_API_KEY (or GOOGLE_API_KEY) or pass `apiKey`");
    const baseURL = options.baseURL ?? (process.env.GOOGLE_GEMINI_BASE_URL || undefined);
    this.#clientOptions = { apiKey, ...(baseURL === undefined ? {} : { baseURL }) };
  }

  /** Where requests go (named in connection and timeout errors). */
  get baseURL(): string {
    return this.#clientOptions?.baseURL ?? GEMINI_BASE_URL;
  }

  async #connect(): Promise<GoogleGenAI> {
    if (this.#client !== undefined) return this.#client;
    const sdk = await geminiSdk();
    const { apiKey, baseURL } = this.#clientOptions!;
    this.#client = new sdk.GoogleGenAI({
      vertexai: false, // never switched to Vertex by $GOOGLE_GENAI_USE_VERTEXAI behind the caller's back
      apiKey,
      ...(baseURL === undefined ? {} : { httpOptions: { baseUrl: baseURL } }),
    });
    return this.#client;
  }

  /** `caches.create` over a frozen prefix (see context-cache.ts); failures are ProviderErrors. */
  async createContextCache(
    prompt: ContextCachePrompt,
    ttlSeconds: number,
    signal?: AbortSignal,
  ): Promise<ContextCacheInfo> {
    const client = await this.#connect();
    return this.#cacheCall(async () =>
      cacheInfoOf(await client.caches.create(geminiCacheCreateParams(prompt, ttlSeconds, signal))),
    );
  }

  /** `caches.update` with a new TTL (cheap: the cached prompt is not re-sent). */
  async refreshContextCache(name: string, ttlSeconds: number, signal?: AbortSignal): Promise<ContextCacheInfo> {
    const client = await this.#connect();
    return this.#cacheCall(async () =>
      cacheInfoOf(
        await client.caches.update({
          name,
          config: { ttl: `${ttlSeconds}s`, ...(signal === undefined ? {} : { abortSignal: signal }) },
        }),
        name,
      ),
    );
  }

  async deleteContextCache(name: string): Promise<void> {
    const client = await this.#connect();
    await this.#cacheCall(() => client.caches.delete({ name }));
  }

  async #cacheCall<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw withoutKey(toGeminiError(error, { aborted: false, baseURL: this.baseURL }), this.#clientOptions?.apiKey);
    }
  }

  /** The context window of `model` in this provider's model registry (undefined: a model it does not know). */
  contextWindow(model: string): number | undefined {
    return this.#models.find(model)?.contextWindow;
  }

  async *stream(request: ProviderRequest): AsyncGenerator<StreamChunk> {
    const tooLarge = contextWindowProblem(request, this.#models);
    if (tooLarge !== undefined) throw tooLarge;
    const body = geminiRequestBody(request);
    this.#carryover.check(request, this.id);
    yield* sdkAttempt<GoogleGenAI, GeminiChunk>({
      baseURL: () => this.baseURL,
      deadlines: this.#deadlines,
      signal: request.signal,
      connect: () => this.#connect(),
      open: (client, signal) =>
        client.models.generateContentStream(sdkParams(request.model, body, signal)) as Promise<
          AsyncIterable<GeminiChunk>
        >,
      mapper: new GeminiStreamMapper(),
      toError: (error, { deadline, baseURL }) =>
        withoutKey(toGeminiError(error, { deadline, aborted: false, baseURL }), this.#clientOptions?.apiKey),
    });
  }
}

/**
 * The SDK call for `body`: contents as they are, the rest as config, which the SDK moves back to
 * the body's top level (systemInstruction, tools, cachedContent) or into `generationConfig`.
 * Fresh objects throughout: the SDK normalizes tool declarations in place, and the loop's
 * requests are frozen.
 */
function sdkParams(model: string, body: GeminiRequestBody, signal: AbortSignal) {
  const copy = JSON.parse(JSON.stringify(body)) as GeminiRequestBody;
  return {
    model: geminiModelId(model),
    contents: copy.contents,
    config: {
      ...(copy.systemInstruction === undefined ? {} : { systemInstruction: copy.systemInstruction }),
      ...(copy.tools === undefined ? {} : { tools: copy.tools }),
      ...(copy.cachedContent === undefined ? {} : { cachedContent: copy.cachedContent }),
      ...copy.generationConfig,
      abortSignal: signal,
      automaticFunctionCalling: { disable: true },
      automaticContinuation: false,
    },
  } as Parameters<GoogleGenAI["models"]["generateContentStream"]>[0];
}
