// geminiContextCache: an agent plugin that keeps the frozen prefix of a Gemini session — system
// prompt, tool schemas and session prefix, all fixed per loop instance — in an explicit context
// cache (`caches.create`), and names it on every request through the call config
// (`geminiCache: { name, messages, prefixHash, tokens }`). The config is logged on the request
// header before the request that uses it, so every request stays a pure function of the log,
// `cachedContent` included. An `agent/request` listener decides, per step:
// - a logged cache for the same prefix (same `prefixHash`: model, system, tools, prefix) is reused
//   as is — also by a new agent resuming the session (no second create) — and refreshed with
//   `caches.update` when this instance knows it expires within `refreshBeforeSeconds`;
// - else, when the prefix estimate reaches the minimum (the registry's per-model value, else
//   1024, Gemini's minimum for explicit caches), a cache is created and named;
// - when the step's request failed `cache-missing` (expired or evicted), the cache is recreated
//   and its new name returned: the loop logs it and sends again, once.
// A failing create is not a failed turn: the request goes without a cache (`onEvent` says why).
// With `deleteOnDispose`, caches this instance created are deleted when the agent is disposed.
import { canonicalJson, contentHash, type JsonValue } from "../json/index.js";
import { foldRequestHeader, type RequestConfig } from "../header/index.js";
import {
  type ContextCacheClient,
  type ContextCacheInfo,
  type ContextCachePrompt,
  estimateRequestTokens,
  ModelRegistry,
  type TokenCounter,
} from "../llm/index.js";
import type { AgentPlugin, RequestPayload } from "../loop/index.js";
import type { SessionEvent } from "../session/index.js";

/** Gemini's smallest explicit cache (tokens) for models the registry does not know. */
export const GEMINI_EXPLICIT_CACHE_MIN_TOKENS = 1024;

export interface GeminiContextCacheOptions {
  /** Makes, refreshes and deletes caches: the agent's `GeminiProvider`. */
  readonly client: ContextCacheClient;
  /** The smallest prefix (estimated tokens) worth a cache. Default: the model's `minCacheableTokens`, else 1024. */
  readonly minTokens?: number;
  /** Lifetime asked for at create and refresh. Default 3600 (the API's default). */
  readonly ttlSeconds?: number;
  /** Refresh (`caches.update`) a cache this instance knows expires within this long. Default 300. */
  readonly refreshBeforeSeconds?: number;
  /** Delete the caches this instance created when the agent is disposed. Default false (they expire). */
  readonly deleteOnDispose?: boolean;
  /** Which models get a cache. Default: ids containing `gemini`. */
  readonly appliesTo?: (model: string) => boolean;
  readonly models?: ModelRegistry;
  /** Token estimate for the minimum. Default: bytes/4 (`estimateTokens`). */
  readonly countTokens?: TokenCounter;
  /** The clock expiries are compared with (ms). Default `Date.now`. */
  readonly now?: () => number;
  /** What the plugin did, with the cache's size (its storage is billed per token-hour while it lives). */
  readonly onEvent?: (event: GeminiContextCacheEvent) => void;
}

export type GeminiContextCacheEvent =
  | {
      readonly kind: "created" | "recreated" | "refreshed";
      readonly name: string;
      readonly tokens?: number;
      readonly expireTime?: string;
    }
  | { readonly kind: "reused"; readonly name: string }
  | { readonly kind: "deleted"; readonly name: string }
  | { readonly kind: "skipped"; readonly reason: string; readonly tokens: number }
  | { readonly kind: "failed"; readonly action: "create" | "refresh" | "delete"; readonly message: string };

/** The logged call-config field: the cache, how many leading messages it holds, what it was made of. */
export interface GeminiCacheConfig {
  readonly name: string;
  readonly messages: number;
  readonly prefixHash: string;
  readonly tokens?: number;
}

interface Known extends GeminiCacheConfig {
  /** When this instance learned the expiry (ms); unknown for a cache read from the log. */
  expireAt?: number;
}

export function geminiContextCache(options: GeminiContextCacheOptions): AgentPlugin {
  const ttl = options.ttlSeconds ?? 3600;
  const refreshBeforeMs = (options.refreshBeforeSeconds ?? 300) * 1000;
  const now = options.now ?? Date.now;
  const models = options.models ?? new ModelRegistry();
  const applies = options.appliesTo ?? ((model: string) => /gemini/i.test(model));
  const emit = (event: GeminiContextCacheEvent): void => options.onEvent?.(event);

  return function geminiContextCachePlugin(host) {
    const created = new Set<string>();
    let known: Known | undefined;
    let readLog = false;

    const make = async (
      prompt: ContextCachePrompt,
      prefixHash: string,
      kind: "created" | "recreated",
      signal: AbortSignal,
    ): Promise<Known | undefined> => {
      try {
        const info = await options.client.createContextCache(prompt, ttl, signal);
        created.add(info.name);
        emit({ kind, ...info });
        return { ...fromInfo(info, prompt.messages.length, prefixHash), ...expiry(info) };
      } catch (error) {
        emit({ kind: "failed", action: "create", message: error instanceof Error ? error.message : String(error) });
        return undefined;
      }
    };

    const refresh = async (cache: Known, signal: AbortSignal): Promise<Known | undefined> => {
      try {
        const info = await options.client.refreshContextCache(cache.name, ttl, signal);
        emit({ kind: "refreshed", ...info, name: cache.name });
        return { ...cache, ...expiry(info) };
      } catch (error) {
        emit({ kind: "failed", action: "refresh", message: error instanceof Error ? error.message : String(error) });
        return undefined; // gone: make a new one now, before the request
      }
    };

    host.on("agent/request", async (payload: RequestPayload, next) => {
      const config = await next();
      // Another model (a switch mid-session): no cache, and no stale name left on the config.
      if (!applies(config.model)) return config.geminiCache === undefined ? config : withCache(config, undefined);
      const prompt: ContextCachePrompt = {
        model: config.model,
        messages: payload.sessionPrefix,
        ...(payload.system === "" ? {} : { system: payload.system }),
        ...(payload.tools.length === 0 ? {} : { tools: payload.tools }),
      };
      const prefixHash = hashOf(prompt);
      if (!readLog) {
        readLog = true;
        known ??= loggedCache(host.agent.session.events as readonly SessionEvent[]);
      }
      const logged = cacheConfigOf(config.geminiCache) ?? known;
      if (payload.retryOf?.code === "cache-missing" && cacheConfigOf(config.geminiCache) !== undefined) {
        known = await make(prompt, prefixHash, "recreated", payload.signal);
        return withCache(config, known);
      }
      if (logged !== undefined && logged.prefixHash === prefixHash) {
        known = known?.name === logged.name ? known : { ...logged };
        if (known.expireAt !== undefined && now() >= known.expireAt - refreshBeforeMs) {
          known = known.expireAt > now() ? await refresh(known, payload.signal) : undefined;
          known ??= await make(prompt, prefixHash, "recreated", payload.signal);
        } else emit({ kind: "reused", name: known.name });
        return withCache(config, known);
      }
      const tokens = estimateRequestTokens({ ...prompt }, options.countTokens);
      const min =
        options.minTokens ?? models.find(config.model)?.minCacheableTokens ?? GEMINI_EXPLICIT_CACHE_MIN_TOKENS;
      if (tokens < min) {
        emit({ kind: "skipped", reason: `the frozen prefix is ~${tokens} tokens, under the minimum ${min}`, tokens });
        known = undefined;
        return withCache(config, undefined);
      }
      known = await make(prompt, prefixHash, "created", payload.signal);
      return withCache(config, known);
    });

    host.onDispose(() => {
      if (options.deleteOnDispose !== true) return;
      for (const name of created)
        options.client.deleteContextCache(name).then(
          () => emit({ kind: "deleted", name }),
          (error: unknown) =>
            emit({ kind: "failed", action: "delete", message: error instanceof Error ? error.message : String(error) }),
        );
      created.clear();
    });
    return undefined;
  };
}

/** What the cache was made of, as a short hash: a different model, system, tool set or prefix needs a new cache. */
function hashOf(prompt: ContextCachePrompt): string {
  return contentHash(JSON.parse(canonicalJson(prompt as unknown as JsonValue)) as JsonValue).slice(0, 16);
}

function fromInfo(info: ContextCacheInfo, messages: number, prefixHash: string): GeminiCacheConfig {
  return { name: info.name, messages, prefixHash, ...(info.tokens === undefined ? {} : { tokens: info.tokens }) };
}

function expiry(info: ContextCacheInfo): { expireAt?: number } {
  const at = info.expireTime === undefined ? Number.NaN : Date.parse(info.expireTime);
  return Number.isNaN(at) ? {} : { expireAt: at };
}

/** `config` naming `cache` (or no cache at all). */
function withCache(config: RequestConfig, cache: GeminiCacheConfig | undefined): RequestConfig {
  const { geminiCache: _old, ...rest } = config;
  if (cache === undefined) return rest as RequestConfig;
  const { name, messages, prefixHash, tokens } = cache;
  return { ...rest, geminiCache: { name, messages, prefixHash, ...(tokens === undefined ? {} : { tokens }) } };
}

function cacheConfigOf(value: unknown): GeminiCacheConfig | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const v = value as Partial<GeminiCacheConfig>;
  if (typeof v.name !== "string" || typeof v.messages !== "number" || typeof v.prefixHash !== "string")
    return undefined;
  return {
    name: v.name,
    messages: v.messages,
    prefixHash: v.prefixHash,
    ...(typeof v.tokens === "number" ? { tokens: v.tokens } : {}),
  };
}

/** The cache the log's last header names (a resumed session's), if any. */
function loggedCache(events: readonly SessionEvent[]): Known | undefined {
  return cacheConfigOf(foldRequestHeader(events)?.config.geminiCache);
}
