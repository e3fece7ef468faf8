// Public API of the emulator layer (depends on json, messages, llm): an HTTP server speaking the
// Anthropic and OpenAI wire formats, an in-process provider, scripted and rule-based models,
// prefix-cache models, a guarded tokenizer and fault injection.
export { anthropicEvents, anthropicMessage, anthropicUsage } from "./anthropic-render.js";
export { parseAnthropicRequest } from "./anthropic-wire.js";
export { AnthropicCacheModel, CacheModelError, PrefixCacheModel, } from "./cache-model.js";
export { DEFAULT_EPOCH_MS, SimulatedClock } from "./clock.js";
export { FAULT_KINDS, FaultPlan, mulberry32 } from "./faults.js";
export { IMAGE_TOKENS, MESSAGE_OVERHEAD_TOKENS, messageSegment } from "./message-tokens.js";
export { EmulatorModelError, RuleBasedModel, ScriptedEmulatorModel } from "./models.js";
export { openaiChunks, openaiCompletion, openaiUsage } from "./openai-render.js";
export { parseOpenAIRequest } from "./openai-wire.js";
export { anthropicBlocks, EmulatorProvider } from "./provider.js";
export { planReply, splitPieces } from "./reply-plan.js";
export { startEmulator } from "./server.js";
export { formatSse, parseSse } from "./sse.js";
export { countTokens, MAX_ENCODED_PIECE, truncateToTokens } from "./tokenizer.js";
export { WireError } from "./types.js";
//# sourceMappingURL=index.js.map