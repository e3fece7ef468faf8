export * from "./core.js";
export { AnthropicProvider, type AnthropicProviderOptions, toAnthropicParams } from "./anthropic/index.js";
export { OpenAICompatibleProvider, type OpenAICompatibleOptions } from "./openai/index.js";
