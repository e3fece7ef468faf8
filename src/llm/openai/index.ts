// The OpenAI-compatible adapter (Chat Completions, streaming) for OpenAI, DeepSeek and local
// servers (vLLM, llama.cpp, Ollama, LM Studio, any compatible one). Public: the provider and its options; the wire mapping and stream mapper are exported
// for the emulator and tests that check the shapes directly.
export { chatWireOptions, OpenAICompatibleProvider, type OpenAICompatibleOptions } from "./adapter.js";
export { type ChatFlavor, FLAVORS, LOCAL_FLAVORS, type LocalFlavor } from "./flavors.js";
export { type ChatWireOptions, modelId, toChatCompletionsParams } from "./wire.js";
export { ChatChunkMapper, chatUsage, normalizeUsage } from "./stream.js";
export { toProviderError } from "./errors.js";
export { isStrictSchema, type OutputMode, type ResponseFormatParam, responseFormat } from "./response-format.js";
