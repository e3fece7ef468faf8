// Public API of the llm layer (depends on json, messages): the provider-neutral core (core.ts)
// plus the real adapters (Anthropic Messages — direct, Bedrock, Vertex —, Gemini, OpenAI Chat
// Completions and its flavors, OpenAI Responses), which load the official SDKs.
export * from "./core.js";
export {
  ANTHROPIC_DEFAULT_MAX_TOKENS,
  ANTHROPIC_STRING_FORMATS,
  AnthropicProvider,
  anthropicOutputSchema,
  type AnthropicProviderOptions,
  anthropicRequestBody,
  toAnthropicParams,
} from "./anthropic/index.js";
export {
  type ContextCacheClient,
  type ContextCacheInfo,
  type ContextCachePrompt,
  GeminiProvider,
  type GeminiProviderOptions,
  type GeminiRequestBody,
  geminiRequestBody,
} from "./gemini/index.js";
export type { AnthropicPlatform } from "./anthropic/platform-client.js";
export {
  type ChatFlavor,
  isStrictSchema,
  LOCAL_FLAVORS,
  type LocalFlavor,
  OpenAICompatibleProvider,
  type OpenAICompatibleOptions,
  responseFormat,
} from "./openai/index.js";
export {
  OpenAIResponsesProvider,
  type OpenAIResponsesOptions,
  RESPONSES_API,
  responsesRequestBody,
  responsesWireOptions,
} from "./openai-responses/index.js";
export { type ProviderFromEnv, type ProviderFromEnvOptions, providerFromEnv } from "./provider-from-env.js";
