// The Anthropic adapter (official SDK, streaming Messages API, structural cache breakpoints).
export { AnthropicProvider, type AnthropicProviderOptions, toProviderError as anthropicError } from "./adapter.js";
export { ANTHROPIC_STRING_FORMATS, anthropicOutputSchema } from "./output-schema.js";
export { AnthropicStreamMapper } from "./stream.js";
export { type AnthropicPlatform, anthropicClient, platformBaseURL } from "./platform-client.js";
export {
  ANTHROPIC_DEFAULT_MAX_TOKENS,
  ANTHROPIC_SDK_VERSION_HEADER,
  anthropicPlatformBody,
  type AnthropicWireOptions,
  anthropicRequestBody,
  toAnthropicParams,
} from "./wire.js";
