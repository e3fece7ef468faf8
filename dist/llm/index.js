// Public API of the llm layer (depends on json, messages): the provider-neutral core (core.ts)
// plus the real adapters, which load the official SDKs.
export * from "./core.js";
export { AnthropicProvider, toAnthropicParams } from "./anthropic/index.js";
export { OpenAICompatibleProvider } from "./openai/index.js";
//# sourceMappingURL=index.js.map