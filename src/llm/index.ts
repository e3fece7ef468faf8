// Public API of the llm layer (depends on json, messages): the provider-neutral core (core.ts)
// plus the real adapters, which load the official SDKs.
export * from "./core.js";
export { AnthropicProvider, type AnthropicProviderOptions, toAnthropicParams } from "./anthropic/index.js";
export { OpenAICompatibleProvider, type OpenAICompatibleOptions } from "./openai/index.js";
