// The Anthropic adapter (official SDK, streaming Messages API, structural cache breakpoints).
export { AnthropicProvider, type AnthropicProviderOptions, toProviderError as anthropicError } from "./adapter.js";
export { ANTHROPIC_STRING_FORMATS, anthropicOutputSchema } from "./output-schema.js";
export { AnthropicStreamMapper } from "./stream.js";
export {
  ANTHROPIC_DEFAULT_MAX_TOKENS,
  type AnthropicWireOptions,
  anthropicRequestBody,
  toAnthropicParams,
} from "./wire.js";
