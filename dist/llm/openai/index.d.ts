export { chatWireOptions, OpenAICompatibleProvider, type OpenAICompatibleOptions } from "./adapter.js";
export { type ChatWireOptions, modelId, toChatCompletionsParams } from "./wire.js";
export { ChatChunkMapper, normalizeUsage } from "./stream.js";
export { toProviderError } from "./errors.js";
