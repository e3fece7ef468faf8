// OpenAIResponsesProvider: Keelson's Provider over the OpenAI Responses API, through the official
// `openai` SDK (`client.responses.create({ stream: true })`), stateless: `store: false`, no
// `previous_response_id` — each request is the whole conversation rebuilt from the log, its
// reasoning carried as the encrypted items the API returned (decision 0023). The body is
// `responsesRequestBody` (what `keelson requests --wire responses` prints); events become chunks
// in stream.ts; the provider shell and the attempt — SDK retries off, connect / first-event /
// stall deadlines, failures as ProviderErrors — are the Chat Completions adapter's
// (../openai/sdk-provider.ts), and so is the SDK, loaded on the first request by `openaiSdk`.
import type OpenAI from "openai";
import { openaiSdk } from "../openai/adapter.js";
import { flavorClientOptions } from "../openai/flavors.js";
import { type EventMapper, OpenAISdkProvider, type SdkProviderOptions } from "../openai/sdk-provider.js";
import type { ProviderRequest } from "../types.js";
import { ResponsesEventMapper } from "./stream.js";
import { DEFAULT_RESPONSES_WIRE, RESPONSES_API, type ResponsesWireOptions, responsesRequestBody } from "./wire.js";

type Body = OpenAI.Responses.ResponseCreateParamsStreaming;
type Event = OpenAI.Responses.ResponseStreamEvent;

export interface OpenAIResponsesOptions extends SdkProviderOptions {
  /** Provider id for `provider:model` selectors. Default `openai-responses`. */
  readonly id?: string;
  /** Default `$OPENAI_API_KEY` (a missing key is an `auth` error naming it). */
  readonly apiKey?: string;
  /** Including `/v1`. Default: the SDK's (`$OPENAI_BASE_URL`, else https://api.openai.com/v1). */
  readonly baseURL?: string;
  /** A ready client (tests, proxies); `apiKey` and `baseURL` are then ignored. */
  readonly client?: OpenAI;
  /** Send `prompt_cache_key` = session id. Default true. */
  readonly promptCacheKey?: boolean;
  /** `prompt_cache_retention`; unset, the API's default applies. */
  readonly promptCacheRetention?: "in_memory" | "24h";
  /** `store`. Default false: nothing of the session is kept on OpenAI's side (each request is self-contained either way). */
  readonly store?: boolean;
  /** Ask for encrypted reasoning to replay. Default `auto`: for reasoning models (o-series, GPT-5 except chat variants). */
  readonly encryptedReasoning?: boolean | "auto";
}

/** The wire options a provider with `options` uses (also what `keelson requests --wire responses` replays with none). */
export function responsesWireOptions(
  options: Pick<
    OpenAIResponsesOptions,
    "promptCacheKey" | "promptCacheRetention" | "store" | "encryptedReasoning"
  > = {},
): ResponsesWireOptions {
  return {
    promptCacheKey: options.promptCacheKey ?? DEFAULT_RESPONSES_WIRE.promptCacheKey,
    ...(options.promptCacheRetention === undefined ? {} : { promptCacheRetention: options.promptCacheRetention }),
    store: options.store ?? DEFAULT_RESPONSES_WIRE.store,
    encryptedReasoning: options.encryptedReasoning ?? DEFAULT_RESPONSES_WIRE.encryptedReasoning,
  };
}

export class OpenAIResponsesProvider extends OpenAISdkProvider<Body, Event> {
  readonly #wire: ResponsesWireOptions;

  /** Throws ProviderError('auth') naming OPENAI_API_KEY when no key is found (before any SDK is loaded). */
  constructor(options: OpenAIResponsesOptions = {}) {
    super({
      id: options.id ?? "openai-responses",
      api: RESPONSES_API,
      sdk: () => openaiSdk("the OpenAI Responses provider (OpenAIResponsesProvider)"),
      client: options.client,
      clientOptions:
        options.client === undefined
          ? flavorClientOptions({
              flavor: "openai",
              ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
              ...(options.baseURL === undefined ? {} : { baseURL: options.baseURL }),
            })
          : undefined,
      options,
    });
    this.#wire = responsesWireOptions(options);
  }

  protected body(request: ProviderRequest): Body {
    return responsesRequestBody(request, this.#wire);
  }

  protected open(client: OpenAI, body: Body, signal: AbortSignal): Promise<AsyncIterable<Event>> {
    return client.responses.create(body, { signal });
  }

  protected mapper(): EventMapper<Event> {
    return new ResponsesEventMapper();
  }
}
