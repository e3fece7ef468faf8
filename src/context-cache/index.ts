// Public API of the context-cache layer: explicit provider context caches over a session's frozen
// prefix (a plugin). Depends on json, header, llm (types and the model registry), loop types.
export {
  GEMINI_EXPLICIT_CACHE_MIN_TOKENS,
  type GeminiCacheConfig,
  geminiContextCache,
  type GeminiContextCacheEvent,
  type GeminiContextCacheOptions,
} from "./gemini-context-cache.js";
