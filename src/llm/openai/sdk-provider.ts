// The providers over the openai SDK — Chat Completions (and its flavors) and Responses — share
// this: `OpenAISdkProvider`, the provider shell (client made on first use, deadlines, the
// pre-send size check, the reasoning carry-over notice), and `sdkStream`, one streaming attempt:
// the caller's signal forwarded to a controller of our own (so a deadline can abort
// the request without touching the caller's signal), the connect / first-event / stall
// deadlines, the wire's event mapper fed event by event, and every failure turned into a
// ProviderError (errors.ts). An abort ends the SDK's iterator silently, so a passed deadline, a
// cancel (`finish: aborted`) and a clean end (the mapper's closing chunks) are told apart here.
import type OpenAI from "openai";
import { AttemptDeadlines, DEFAULT_DEADLINES } from "../attempt-deadlines.js";
import { contextWindowProblem } from "../context-window.js";
import { ModelRegistry } from "../models.js";
import { type NoticeSink, ReasoningCarryover } from "../reasoning-carryover.js";
import type { Provider, ProviderRequest, StreamChunk } from "../types.js";
import { toProviderError } from "./errors.js";
import type { ClientOptions } from "./flavors.js";

export interface DeadlineSettings {
  readonly connectTimeoutMs: number;
  readonly firstByteTimeoutMs: number;
  readonly stallTimeoutMs: number;
}

/** How one wire's events become Keelson chunks. */
export interface EventMapper<E> {
  map(event: E): Iterable<StreamChunk>;
  /** The closing chunks once the iterator is done; throws when the stream was cut off. */
  end(): Iterable<StreamChunk>;
}

type OpenAISdk = typeof import("openai");

export interface SdkAttempt<E> {
  /** Loads the SDK (`openaiSdk` in adapter.ts, the one place the optional `openai` package loads). */
  readonly sdk: () => Promise<OpenAISdk>;
  /** The client to use; made on first use by the adapter. */
  readonly client: (sdk: OpenAISdk) => OpenAI;
  /** Named in connection and deadline errors. */
  readonly baseURL: () => string;
  readonly deadlines: DeadlineSettings;
  readonly signal: AbortSignal;
  /** Sends the request; resolves once the response headers arrived. */
  readonly open: (client: OpenAI, signal: AbortSignal) => Promise<AsyncIterable<E>>;
  readonly mapper: EventMapper<E>;
}

export async function* sdkStream<E>(attempt: SdkAttempt<E>): AsyncGenerator<StreamChunk> {
  const { signal } = attempt;
  // Before the attempt: a missing SDK is the application's install (a MissingPackageError),
  // never a provider failure to retry.
  const sdk = await attempt.sdk();
  const controller = new AbortController();
  const forward = (): void => controller.abort(signal.reason);
  signal.addEventListener("abort", forward, { once: true });
  if (signal.aborted) forward();
  let deadlines: AttemptDeadlines | undefined;
  try {
    const client = attempt.client(sdk);
    deadlines = new AttemptDeadlines({ baseURL: attempt.baseURL(), ...attempt.deadlines }, () => controller.abort());
    deadlines.start();
    const events = await attempt.open(client, controller.signal);
    deadlines.responded();
    for await (const event of events) {
      deadlines.received(); // the consumer's time is not the provider's silence
      for (const out of attempt.mapper.map(event)) yield out;
      deadlines.waiting();
    }
    deadlines.stop();
    if (deadlines.expired !== undefined) throw deadlines.error();
    if (signal.aborted) {
      yield { type: "finish", reason: "aborted" };
      return;
    }
    for (const out of attempt.mapper.end()) yield out;
  } catch (error) {
    throw toProviderError(error, sdk, {
      deadline: deadlines?.expired === undefined ? undefined : deadlines.error(error),
      aborted: signal.aborted,
      baseURL: attempt.baseURL(),
    });
  } finally {
    deadlines?.stop();
    signal.removeEventListener("abort", forward);
    controller.abort(); // releases the connection when the consumer stopped early
  }
}

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
 * `sdkStream`. The SDK client is made on the first request (SDK retries off).
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

  async *stream(request: ProviderRequest): AsyncGenerator<StreamChunk> {
    const tooLarge = contextWindowProblem(request, this.#models);
    if (tooLarge !== undefined) throw tooLarge;
    const body = this.body(request);
    this.#carryover.check(request, this.id);
    yield* sdkStream({
      sdk: this.#sdk,
      client: (sdk) => (this.#client ??= new sdk.default({ ...this.#clientOptions, maxRetries: 0 })),
      baseURL: () => this.baseURL,
      deadlines: this.#deadlines,
      signal: request.signal,
      open: (client, signal) => this.open(client, body, signal),
      mapper: this.mapper(),
    });
  }
}
