// The providers over the openai SDK — Chat Completions (and its flavors) and Responses — share
// this: `OpenAISdkProvider`, the provider shell (client made on first use, deadlines, the
// pre-send size check, the reasoning carry-over notice), each request streamed by `sdkAttempt`
// (../sdk-attempt.ts, the attempt every adapter shares: deadlines, cancel, the wire's mapper)
// with failures turned into ProviderErrors by errors.ts.
import type OpenAI from "openai";
import { DEFAULT_DEADLINES } from "../attempt-deadlines.js";
import { contextWindowProblem } from "../context-window.js";
import { ModelRegistry } from "../models.js";
import { type NoticeSink, ReasoningCarryover } from "../reasoning-carryover.js";
import { type DeadlineSettings, type EventMapper, sdkAttempt } from "../sdk-attempt.js";
import type { Provider, ProviderRequest, StreamChunk } from "../types.js";
import { toProviderError } from "./errors.js";
import type { ClientOptions } from "./flavors.js";
import { withoutKey } from "../key-redaction.js";

export type { EventMapper } from "../sdk-attempt.js";

type OpenAISdk = typeof import("openai");

/** Options every provider over the openai SDK takes. */
export interface SdkProviderOptions {
  /** Fail `connection` (retryable) when the request is not on a connected socket within this long. Default 10 000. */
  readonly connectTimeoutMs?: number;
  /** Fail `stalled` (retryable) when no stream event arrives within this long of sending the request. Default 60 000. */
  readonly firstByteTimeoutMs?: number;
  /** Abort and fail `stalled` (retryable) when no event arrives for this long mid-stream. Default 60 000. */
  readonly stallTimeoutMs?: number;
  /** Context windows for the pre-send size check (models it does not know are not checked). Default: DEFAULT_MODELS. */
  readonly models?: ModelRegistry;
  /** Where notices go (e.g. another API's opaque reasoning left out of a request). Default: a process warning. */
  readonly onNotice?: NoticeSink;
}

/** The openai SDK's own default (it also reads `$OPENAI_BASE_URL`). */
const OPENAI_BASE_URL = "https://api.openai.com/v1";

/**
 * A Provider over the openai SDK, one wire per subclass: `body` builds the request body (a pure
 * function of the request), `open` sends it, `mapper` turns the wire's events into chunks. Every
 * request is size-checked, its carry-over of other APIs' reasoning reported, then streamed by
 * `sdkAttempt`. The SDK client is made on the first request (SDK retries off).
 */
export abstract class OpenAISdkProvider<Body, Event> implements Provider {
  readonly id: string;
  #client: OpenAI | undefined;
  readonly #clientOptions: ClientOptions | undefined;
  readonly #sdk: () => Promise<OpenAISdk>;
  readonly #deadlines: DeadlineSettings;
  readonly #models: ModelRegistry;
  readonly #carryover: ReasoningCarryover;

  protected constructor(setup: {
    readonly id: string;
    /** The API whose opaque reasoning this wire reads back (reasoning-carryover.ts). */
    readonly api: string;
    readonly sdk: () => Promise<OpenAISdk>;
    readonly client: OpenAI | undefined;
    readonly clientOptions: ClientOptions | undefined;
    readonly options: SdkProviderOptions;
  }) {
    const { options } = setup;
    this.id = setup.id;
    this.#client = setup.client;
    this.#clientOptions = setup.clientOptions;
    this.#sdk = setup.sdk;
    this.#deadlines = {
      connectTimeoutMs: options.connectTimeoutMs ?? DEFAULT_DEADLINES.connectTimeoutMs,
      firstByteTimeoutMs: options.firstByteTimeoutMs ?? DEFAULT_DEADLINES.firstByteTimeoutMs,
      stallTimeoutMs: options.stallTimeoutMs ?? DEFAULT_DEADLINES.stallTimeoutMs,
    };
    this.#models = options.models ?? new ModelRegistry();
    this.#carryover = new ReasoningCarryover(setup.api, options.onNotice);
  }

  /** Where requests go (named in connection and timeout errors). */
  get baseURL(): string {
    return this.#client?.baseURL ?? this.#clientOptions?.baseURL ?? (process.env.OPENAI_BASE_URL || OPENAI_BASE_URL);
  }

  protected abstract body(request: ProviderRequest): Body;
  protected abstract open(client: OpenAI, body: Body, signal: AbortSignal): Promise<AsyncIterable<Event>>;
  protected abstract mapper(): EventMapper<Event>;

  /** The context window of `model` in this provider's model registry (undefined: a model it does not know). */
  contextWindow(model: string): number | undefined {
    return this.#models.find(model)?.contextWindow;
  }

  async *stream(request: ProviderRequest): AsyncGenerator<StreamChunk> {
    const tooLarge = contextWindowProblem(request, this.#models);
    if (tooLarge !== undefined) throw tooLarge;
    const body = this.body(request);
    this.#carryover.check(request, this.id);
    let sdk: OpenAISdk | undefined;
    yield* sdkAttempt({
      baseURL: () => this.baseURL,
      deadlines: this.#deadlines,
      signal: request.signal,
      connect: async () => {
        sdk = await this.#sdk();
        this.#client ??= new sdk.default({ ...this.#clientOptions, maxRetries: 0 });
        return this.#client;
      },
      open: (client, signal) => this.open(client, body, signal),
      mapper: this.mapper(),
      toError: (error, context) =>
        withoutKey(
          toProviderError(error, sdk!, { ...context, aborted: request.signal.aborted }),
          (this.#client as { apiKey?: unknown } | undefined)?.apiKey ?? this.#clientOptions?.apiKey,
        ),
    });
  }
}
