export { AnthropicProvider, type AnthropicProviderOptions, toProviderError as anthropicError } from "./adapter.js";
export { AnthropicStreamMapper } from "./stream.js";
export { type AnthropicWireOptions, toAnthropicParams } from "./wire.js";
