// One emulated API call, independent of sockets: validate the body for its wire (Anthropic
// Messages, Chat Completions, Responses), draw the
// fault, ask the model, account the prompt cache, plan the reply and render it — returning
// what to send (JSON, an SSE event list, or a stall). The server only writes the outcome.
import { errorMessage } from "../errors/index.js";
import { createHash } from "node:crypto";
import type { JsonObject } from "../json/index.js";
import type { ModelRegistry } from "../llm/index.js";
import type { Usage } from "../messages/index.js";
import { anthropicEvents, anthropicMessage, anthropicUsage } from "./anthropic-render.js";
import { parseAnthropicRequest } from "./anthropic-wire.js";
import type { AnthropicCacheModel, PrefixCacheModel } from "./cache-model.js";
import type { GeminiCacheStore } from "./gemini-caches.js";
import type { Fault, FaultPlan } from "./faults.js";
import { deepseekOutputSegment } from "./deepseek-tokens.js";
import { geminiEvents, geminiResponse, geminiUsage } from "./gemini-render.js";
import { parseGeminiRequest } from "./gemini-wire.js";
import { openaiChunks, openaiCompletion, openaiUsage } from "./openai-render.js";
import { parseOpenAIRequest } from "./openai-wire.js";
import { responsesEvents, responsesResponse, responsesUsage } from "./responses-render.js";
import { type ParsedResponsesRequest, parseResponsesRequest } from "./responses-wire.js";
import { plannedUsage, planReply } from "./reply-plan.js";
import type { SseEvent } from "./sse.js";
import { type CacheUsage, type Clock, type EmulatorModel, type EmulatorRequest, WireError } from "./types.js";
import { failureToWireError } from "./wire-errors.js";

export type Api = "anthropic" | "openai" | "responses" | "gemini";

/** What a Gemini URL says: `models/<model>:streamGenerateContent` (stream) or `:generateContent`. */
export interface GeminiRoute {
  readonly model: string;
  readonly stream: boolean;
}

/** Gemini's implicit caching minimum when the registry does not know the model (2.5 models). */
export const GEMINI_DEFAULT_MIN_CACHEABLE = 2048;

/** OpenAI's `prompt_cache_retention: 24h`. */
const DAY_MS = 24 * 60 * 60_000;

/** Server-wide state an exchange reads and advances (counters, caches). */
export interface ExchangeState {
  readonly model: EmulatorModel;
  readonly clock: Clock;
  readonly faults: FaultPlan;
  readonly caches: {
    readonly anthropic: AnthropicCacheModel;
    readonly openai: PrefixCacheModel;
    readonly deepseek: PrefixCacheModel;
    /** Gemini implicit caching: message-granular prefixes, per-model minimum (GEMINI_DEFAULT_MIN_CACHEABLE). */
    readonly gemini: PrefixCacheModel;
    /** Gemini explicit context caches (`cachedContents`), per API key. */
    readonly geminiExplicit: GeminiCacheStore;
  };
  readonly style: "openai" | "deepseek";
  readonly minCacheableTokens: number | undefined;
  readonly registry: ModelRegistry | undefined;
  readonly counters: { message: number; call: number };
}

/** What the exchange learned, for the request record. */
export interface ExchangeFacts {
  request?: EmulatorRequest;
  fault?: Fault;
  usage?: Usage;
  wireUsage?: JsonObject;
}

export type Outcome =
  | { readonly kind: "json"; readonly body: JsonObject }
  | { readonly kind: "sse"; readonly events: readonly SseEvent[] }
  | { readonly kind: "stall" };

/** Runs the call; validation failures, HTTP faults and scripted errors throw WireError. */
export async function runExchange(
  state: ExchangeState,
  api: Api,
  apiKey: string,
  body: unknown,
  facts: ExchangeFacts,
  gemini?: GeminiRoute,
): Promise<Outcome> {
  const deepseek = api === "openai" && isDeepSeekStyle(state, body);
  const owner = keyNamespace(apiKey);
  const parsed =
    api === "anthropic"
      ? parseAnthropicRequest(body)
      : api === "gemini"
        ? parseGeminiRequest(body, gemini ?? { model: "", stream: false }, (name) =>
            state.caches.geminiExplicit.lookup(name, owner),
          )
        : api === "responses"
          ? parseResponsesRequest(body)
          : parseOpenAIRequest(body, { deepseek });
  const request = parsed.request;
  facts.request = request;
  const fault = state.faults.take();
  if (fault !== undefined) facts.fault = fault;
  const httpFault = fault === undefined ? undefined : state.faults.httpError(fault);
  if (httpFault !== undefined) throw httpFault;

  let reply: Awaited<ReturnType<EmulatorModel["reply"]>>;
  try {
    reply = await state.model.reply(request);
  } catch (error) {
    throw new WireError("api", errorMessage(error));
  }
  if (reply === "hang") return { kind: "stall" };
  if ("throws" in reply) throw new WireError("api", reply.throws.message);
  if ("error" in reply) throw failureToWireError(reply.error);

  const prefix = api === "anthropic" ? "toolu_emu_" : api === "gemini" ? "fc_emu_" : "call_emu_";
  const plan = planReply(reply, {
    maxTokens: request.maxTokens,
    stop: request.stop,
    nextCallId: () => `${prefix}${String(++state.counters.call).padStart(6, "0")}`,
  });
  const namespace = `${owner}:${request.model}`;
  const id = ++state.counters.message;

  let cache: CacheUsage;
  if ("blocks" in parsed) {
    const min = state.minCacheableTokens ?? state.registry?.find(request.model)?.minCacheableTokens;
    cache = state.caches.anthropic.apply(
      namespace,
      parsed.blocks,
      min === undefined ? {} : { minCacheableTokens: min },
    );
  } else if ("cachedTokens" in parsed && parsed.cachedTokens !== undefined) {
    // Explicit cache: its tokens are read at the cached rate, the rest is input (no implicit
    // caching modelled on top of an explicit cache).
    const prompt = parsed.segments.reduce((sum, s) => sum + s.tokens, 0);
    cache = { inputTokens: prompt - parsed.cachedTokens, cacheReadTokens: parsed.cachedTokens, cacheWriteTokens: 0 };
  } else if (api === "gemini") {
    const min = state.registry?.find(request.model)?.minCacheableTokens ?? GEMINI_DEFAULT_MIN_CACHEABLE;
    const { promptTokens, cachedTokens } = state.caches.gemini.apply(namespace, parsed.segments, undefined, {
      minTokens: min,
    });
    cache = { inputTokens: promptTokens - cachedTokens, cacheReadTokens: cachedTokens, cacheWriteTokens: 0 };
  } else {
    const model = deepseek ? state.caches.deepseek : state.caches.openai;
    const { promptTokens, cachedTokens } = model.apply(
      namespace,
      parsed.segments,
      deepseek ? deepseekOutputSegment(plan, request.messages) : undefined,
      "promptCacheRetention" in parsed && parsed.promptCacheRetention === "24h" ? { ttlMs: DAY_MS } : {},
    );
    cache = { inputTokens: promptTokens - cachedTokens, cacheReadTokens: cachedTokens, cacheWriteTokens: 0 };
  }
  const usage = plannedUsage(plan, cache);
  facts.usage = usage;

  if ("blocks" in parsed) {
    facts.wireUsage = anthropicUsage(usage);
    const ctx = { id: `msg_emu_${String(id).padStart(6, "0")}`, model: request.model, usage };
    return request.stream
      ? { kind: "sse", events: anthropicEvents(plan, ctx) }
      : { kind: "json", body: anthropicMessage(plan, ctx) };
  }
  if ("includeThoughts" in parsed) {
    facts.wireUsage = geminiUsage(usage);
    const ctx = {
      responseId: `emu-${String(id).padStart(6, "0")}`,
      model: request.model,
      usage,
      includeThoughts: parsed.includeThoughts,
    };
    return request.stream
      ? { kind: "sse", events: geminiEvents(plan, ctx) }
      : { kind: "json", body: geminiResponse(plan, ctx) };
  }
  if ("encryptedReasoning" in parsed) return respond(parsed, plan, usage, id, state, facts);
  facts.wireUsage = openaiUsage(usage, deepseek);
  const ctx = {
    id: `chatcmpl-emu-${String(id).padStart(6, "0")}`,
    model: request.model,
    created: Math.floor(state.clock.now() / 1000),
    usage,
    deepseek,
  };
  return request.stream
    ? { kind: "sse", events: openaiChunks(plan, ctx, parsed.includeUsage) }
    : { kind: "json", body: openaiCompletion(plan, ctx) };
}

/** A Responses API answer: the response object, or its event stream. */
function respond(
  parsed: ParsedResponsesRequest,
  plan: ReturnType<typeof planReply>,
  usage: Usage,
  id: number,
  state: ExchangeState,
  facts: ExchangeFacts,
): Outcome {
  facts.wireUsage = responsesUsage(usage);
  const ctx = {
    id: `resp_emu_${String(id).padStart(6, "0")}`,
    model: parsed.request.model,
    createdAt: Math.floor(state.clock.now() / 1000),
    usage,
    encryptedReasoning: parsed.encryptedReasoning,
    reasoningSummary: parsed.reasoningSummary,
    store: parsed.store,
  };
  return parsed.request.stream
    ? { kind: "sse", events: responsesEvents(plan, ctx) }
    : { kind: "json", body: responsesResponse(plan, ctx) };
}

/** The caller's namespace for caches: a short hash of the API key (the key itself is never kept). */
export function keyNamespace(apiKey: string): string {
  return createHash("sha256").update(apiKey).digest("hex").slice(0, 16);
}

/** DeepSeek style: the server's style, or a model named `deepseek…` on any server. */
function isDeepSeekStyle(state: ExchangeState, body: unknown): boolean {
  if (state.style === "deepseek") return true;
  const model = typeof body === "object" && body !== null ? (body as { model?: unknown }).model : undefined;
  return typeof model === "string" && model.startsWith("deepseek");
}
