// Gemini explicit context caches (`cachedContents`), as the Developer API serves them to
// `@google/genai`'s `ai.caches.*`: POST /v1beta/cachedContents (create), GET / PATCH / DELETE
// /v1beta/cachedContents/<id>. A cache holds a model, a system instruction, tools and leading
// contents, validated like a generateContent body; it is private to the API key that made it and
// lives until its expireTime on the emulator's clock (default TTL one hour, as the API's).
// Shapes and messages are the real API's (probed against production, 2026-09): a prompt under the
// minimum → 400 "Cached content is too small. total_token_count=N, min_total_token_count=M"; an
// unknown, deleted or expired name → 403 PERMISSION_DENIED "CachedContent not found (or permission
// denied)" for get, update, delete and generateContent alike; the create response echoes none of
// the cached members, only `usageMetadata.totalTokenCount`.
import type { JsonObject } from "../json/index.js";
import type { Clock } from "./types.js";
import { WireError } from "./types.js";
import { invalid, type Obj, optionalArray, requireObj, requireString } from "./wire-json.js";

/** Minimum prompt of an explicit cache (the Developer API's answer for current Flash models). */
export const GEMINI_EXPLICIT_MIN_TOKENS = 1024;
const DEFAULT_TTL_MS = 60 * 60_000;
export const CACHE_NOT_FOUND = "CachedContent not found (or permission denied)";

/** What a cache holds, in wire form (the generateContent parser reads it back). */
export interface GeminiCachedPrompt {
  readonly model: string;
  readonly systemInstruction: unknown;
  readonly tools: unknown;
  readonly toolConfig: unknown;
  readonly contents: readonly unknown[];
  /** Tokens of everything cached (system, tools, contents). */
  readonly tokens: number;
}

interface Entry extends GeminiCachedPrompt {
  readonly owner: string;
  readonly name: string;
  readonly createTime: number;
  updateTime: number;
  expireTime: number;
}

/** `cachedContents` (POST) or `cachedContents/<id>` (GET, PATCH, DELETE) under /v1beta or /v1. */
export interface GeminiCacheRoute {
  readonly method: "POST" | "GET" | "PATCH" | "DELETE";
  readonly id: string | undefined;
}

export function geminiCacheRoute(method: string, path: string): GeminiCacheRoute | undefined {
  const match = /^\/v1(?:beta)?\/cachedContents(?:\/([^/:]+))?$/.exec(path);
  if (match === null) return undefined;
  const id = match[1] === undefined ? undefined : decodeURIComponent(match[1]);
  if (id === undefined) return method === "POST" ? { method: "POST", id } : undefined;
  return method === "GET" || method === "PATCH" || method === "DELETE" ? { method, id } : undefined;
}

export interface GeminiCacheStoreOptions {
  readonly clock: Clock;
  /** Counts a cache's prompt tokens (the emulator parses it as a generateContent body). */
  readonly count: (prompt: Omit<GeminiCachedPrompt, "tokens">) => number;
  readonly minTokens?: number;
}

export class GeminiCacheStore {
  readonly #entries = new Map<string, Entry>();
  readonly #clock: Clock;
  readonly #count: GeminiCacheStoreOptions["count"];
  readonly #minTokens: number;
  #next = 0;

  constructor(options: GeminiCacheStoreOptions) {
    this.#clock = options.clock;
    this.#count = options.count;
    this.#minTokens = options.minTokens ?? GEMINI_EXPLICIT_MIN_TOKENS;
  }

  /** Live caches (expired ones are gone). */
  get size(): number {
    this.#sweep();
    return this.#entries.size;
  }

  /** One request on a cache route, by `owner` (the API key's namespace); throws WireError. */
  handle(route: GeminiCacheRoute, owner: string, body: unknown): JsonObject {
    if (route.method === "POST") return this.#create(owner, body);
    const entry = this.#find(`cachedContents/${route.id}`, owner);
    if (entry === undefined) throw new WireError("permission", CACHE_NOT_FOUND, { status: 403 });
    if (route.method === "DELETE") {
      this.#entries.delete(entry.name);
      return {};
    }
    if (route.method === "PATCH") this.#update(entry, body);
    return view(entry);
  }

  /** The live cache `name` of `owner`, or undefined (unknown, another key's, expired or deleted). */
  lookup(name: string, owner: string): GeminiCachedPrompt | undefined {
    return this.#find(name, owner);
  }

  #find(name: string, owner: string): Entry | undefined {
    this.#sweep();
    const entry = this.#entries.get(name);
    return entry !== undefined && entry.owner === owner ? entry : undefined;
  }

  #create(owner: string, raw: unknown): JsonObject {
    const body = requireObj(raw ?? {}, "body");
    const model = requireString(body.model, "model");
    const prompt = {
      model: model.startsWith("models/") ? model.slice("models/".length) : model,
      systemInstruction: body.systemInstruction,
      tools: body.tools,
      toolConfig: body.toolConfig,
      contents: optionalArray(body.contents, "contents"),
    };
    const tokens = this.#count(prompt);
    if (tokens < this.#minTokens)
      throw invalid(
        `Cached content is too small. total_token_count=${tokens}, min_total_token_count=${this.#minTokens}`,
      );
    const now = this.#clock.now();
    const name = `cachedContents/emu${String(++this.#next).padStart(6, "0")}`;
    const entry: Entry = {
      ...prompt,
      tokens,
      owner,
      name,
      createTime: now,
      updateTime: now,
      expireTime: expiry(body, now) ?? now + DEFAULT_TTL_MS,
    };
    this.#entries.set(name, entry);
    return view(entry);
  }

  #update(entry: Entry, raw: unknown): void {
    const now = this.#clock.now();
    const expires = expiry(requireObj(raw ?? {}, "body"), now);
    if (expires === undefined) throw invalid("* UpdateCachedContentRequest: ttl or expire_time is required");
    entry.expireTime = expires;
    entry.updateTime = now;
  }

  #sweep(): void {
    const now = this.#clock.now();
    for (const [name, entry] of this.#entries) if (entry.expireTime <= now) this.#entries.delete(name);
  }
}

/** `ttl: "3600s"` or `expireTime` (RFC 3339) → the expiry instant (ms); undefined when neither is given. */
function expiry(body: Obj, now: number): number | undefined {
  if (body.ttl !== undefined) {
    const match = /^(\d+(?:\.\d+)?)s$/.exec(requireString(body.ttl, "ttl"));
    if (match === null)
      throw invalid(
        `Invalid value at 'cached_content.ttl' (type.googleapis.com/google.protobuf.Duration), "${String(body.ttl)}"`,
      );
    return now + Math.round(Number.parseFloat(match[1]!) * 1000);
  }
  if (body.expireTime !== undefined) {
    const at = Date.parse(requireString(body.expireTime, "expire_time"));
    if (Number.isNaN(at))
      throw invalid(`Invalid value at 'cached_content.expire_time' (type.googleapis.com/google.protobuf.Timestamp)`);
    return at;
  }
  return undefined;
}

/** The CachedContent resource as the API returns it (no cached members). */
function view(entry: Entry): JsonObject {
  return {
    name: entry.name,
    model: `models/${entry.model}`,
    createTime: new Date(entry.createTime).toISOString(),
    updateTime: new Date(entry.updateTime).toISOString(),
    expireTime: new Date(entry.expireTime).toISOString(),
    displayName: "",
    usageMetadata: { totalTokenCount: entry.tokens },
  };
}
