// Public API of the llm layer (depends on json, messages): the provider-neutral core (core.ts)
// plus the real adapters, which load the official SDKs.
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
  GeminiProvider,
  type GeminiProviderOptions,
  type GeminiRequestBody,
  geminiRequestBody,
} from "./gemini/index.js";
export type { AnthropicPlatform } from "./anthropic/platform-client.js";
export {
  isStrictSchema,
  OpenAICompatibleProvider,
  type OpenAICompatibleOptions,
  responseFormat,
} from "./openai/index.js";
export { type ProviderFromEnv, type ProviderFromEnvOptions, providerFromEnv } from "./provider-from-env.js";
