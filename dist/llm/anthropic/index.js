// The Anthropic adapter (official SDK, streaming Messages API, structural cache breakpoints).
export { AnthropicProvider, toProviderError as anthropicError } from "./adapter.js";
export { AnthropicStreamMapper } from "./stream.js";
export { toAnthropicParams } from "./wire.js";
//# sourceMappingURL=index.js.map