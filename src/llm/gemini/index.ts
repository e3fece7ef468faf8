// The Gemini adapter (official `@google/genai` SDK, streaming generateContent, thought signatures
// kept for replay, implicit-cache usage normalized, explicit context caches by name).
export { GeminiProvider, type GeminiProviderOptions, geminiSdk } from "./adapter.js";
export {
  type ContextCacheClient,
  type ContextCacheInfo,
  type ContextCachePrompt,
  cacheInfoOf,
  geminiCacheCreateParams,
} from "./context-cache.js";
export { toGeminiError } from "./errors.js";
export {
  type GeminiChunk,
  type GeminiStreamPart,
  GeminiStreamMapper,
  type GeminiUsage,
  normalizeGeminiUsage,
} from "./stream.js";
export {
  GEMINI_API,
  type GeminiCacheRef,
  type GeminiContent,
  type GeminiPart,
  type GeminiRequestBody,
  geminiCacheOf,
  geminiModelId,
  geminiRequestBody,
  MINTED_CALL_ID_PREFIX,
  SKIP_SIGNATURE,
} from "./wire.js";
