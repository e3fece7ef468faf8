// Gemini explicit context caches through the SDK's `ai.caches` (create, update, delete). What a
// cache holds is exactly what the wire would have sent for the frozen part of a request —
// `geminiRequestBody` over the system prompt, the tools and the first `messages` — so a request
// that names the cache (`geminiCache: { name, messages }`) and leaves those out means the same
// prompt. `ContextCacheClient` is the provider-neutral face the context-cache plugin uses;
// `GeminiProvider` implements it.
import type { GoogleGenAI } from "@google/genai";
import type { Message } from "../../messages/index.js";
import type { ProviderRequest, ToolSchema } from "../types.js";
import { geminiModelId, geminiRequestBody } from "./wire.js";

/** The frozen prefix a cache is made of. */
export interface ContextCachePrompt {
  readonly model: string;
  readonly system?: string;
  readonly tools?: readonly ToolSchema[];
  readonly messages: readonly Message[];
}

/** A cache as the API describes it. `tokens`: what it holds (billed for storage per hour while it lives). */
export interface ContextCacheInfo {
  readonly name: string;
  /** RFC 3339, when the API said. */
  readonly expireTime?: string;
  readonly tokens?: number;
}

/** What the context-cache plugin needs from a provider. */
export interface ContextCacheClient {
  createContextCache(prompt: ContextCachePrompt, ttlSeconds: number, signal?: AbortSignal): Promise<ContextCacheInfo>;
  /** Extends the cache's life to `ttlSeconds` from now. */
  refreshContextCache(name: string, ttlSeconds: number, signal?: AbortSignal): Promise<ContextCacheInfo>;
  deleteContextCache(name: string): Promise<void>;
}

/** The `caches.create` parameters for `prompt` (fresh objects: the SDK normalizes in place). */
export function geminiCacheCreateParams(
  prompt: ContextCachePrompt,
  ttlSeconds: number,
  signal?: AbortSignal,
): Parameters<GoogleGenAI["caches"]["create"]>[0] {
  const body = geminiRequestBody({
    model: prompt.model,
    messages: prompt.messages,
    ...(prompt.system === undefined ? {} : { system: prompt.system }),
    ...(prompt.tools === undefined ? {} : { tools: prompt.tools }),
  } as ProviderRequest); // the body reads only the request's content
  const copy = JSON.parse(JSON.stringify(body)) as typeof body;
  return {
    model: geminiModelId(prompt.model),
    config: {
      ...(copy.contents.length === 0 ? {} : { contents: copy.contents }),
      ...(copy.systemInstruction === undefined ? {} : { systemInstruction: copy.systemInstruction }),
      ...(copy.tools === undefined ? {} : { tools: copy.tools }),
      ttl: `${ttlSeconds}s`,
      ...(signal === undefined ? {} : { abortSignal: signal }),
    },
  } as Parameters<GoogleGenAI["caches"]["create"]>[0];
}

/** The SDK's CachedContent → ContextCacheInfo. */
export function cacheInfoOf(
  value: { name?: string; expireTime?: string; usageMetadata?: { totalTokenCount?: number } },
  fallbackName = "",
): ContextCacheInfo {
  const tokens = value.usageMetadata?.totalTokenCount;
  return {
    name: value.name ?? fallbackName,
    ...(value.expireTime === undefined ? {} : { expireTime: value.expireTime }),
    ...(typeof tokens === "number" ? { tokens } : {}),
  };
}
