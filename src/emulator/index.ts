// Public API of the emulator layer (depends on json, messages, llm): an HTTP server speaking the
// Anthropic (also as Bedrock and Vertex serve it), OpenAI (Chat Completions and Responses) and
// Gemini wire formats, an in-process provider, scripted and rule-based models,
// prefix-cache models, a guarded tokenizer, fault injection, and structured output honoured on
// both wires (schema-sample.ts, output-wire.ts).
export { anthropicEvents, anthropicMessage, anthropicUsage } from "./anthropic-render.js";
export { type ParsedAnthropicRequest, parseAnthropicRequest } from "./anthropic-wire.js";
export {
  AnthropicCacheModel,
  type AnthropicCacheOptions,
  type CacheBlock,
  CacheModelError,
  type CacheSegment,
  PrefixCacheModel,
  type PrefixCacheOptions,
  type PrefixCacheResult,
} from "./cache-model.js";
export { DEFAULT_EPOCH_MS, SimulatedClock } from "./clock.js";
export { deepseekThinking, toolSpanAssistants } from "./deepseek-thinking.js";
export {
  DEEPSEEK_TOOL_OVERHEAD_TOKENS,
  DEEPSEEK_TOOLS_TEMPLATE_TOKENS,
  deepseekMessageSegment,
  deepseekToolsSegment,
} from "./deepseek-tokens.js";
export { bedrockChunkFrame, type PlatformRoute, platformBody, platformRoute } from "./anthropic-platforms.js";
export { GEMINI_DEFAULT_MIN_CACHEABLE, type GeminiRoute } from "./exchange.js";
export { type GeminiRenderContext, geminiEvents, geminiResponse, geminiUsage } from "./gemini-render.js";
export {
  CACHE_NOT_FOUND,
  GEMINI_EXPLICIT_MIN_TOKENS,
  type GeminiCachedPrompt,
  type GeminiCacheRoute,
  GeminiCacheStore,
  geminiCacheRoute,
} from "./gemini-caches.js";
export { geminiSignature, geminiSignatureProblem } from "./gemini-signatures.js";
export { geminiCachedTokens, type ParsedGeminiRequest, parseGeminiRequest } from "./gemini-wire.js";
export { FAULT_KINDS, type Fault, type FaultKind, type FaultOptions, FaultPlan, mulberry32 } from "./faults.js";
export { IMAGE_TOKENS, MESSAGE_OVERHEAD_TOKENS, messageSegment } from "./message-tokens.js";
export { EmulatorModelError, type EmulatorStep, RuleBasedModel, ScriptedEmulatorModel } from "./models.js";
export { openaiChunks, openaiCompletion, openaiUsage } from "./openai-render.js";
export { type OpenAIParseOptions, type ParsedOpenAIRequest, parseOpenAIRequest } from "./openai-wire.js";
export { parseAnthropicOutput, parseOpenAIOutput, parseResponsesOutput } from "./output-wire.js";
export {
  type ResponsesRenderContext,
  responsesEvents,
  responsesOutput,
  responsesResponse,
  responsesUsage,
} from "./responses-render.js";
export { openReasoning, sealReasoning } from "./responses-reasoning.js";
export { type ParsedResponsesRequest, parseResponsesRequest } from "./responses-wire.js";
export { type SampleOptions, sampleJson } from "./schema-sample.js";
export { structuredReply } from "./structured-reply.js";
export { anthropicToolPromptTokens } from "./anthropic-tool-prompt.js";
export { anthropicBlocks, EmulatorProvider, type EmulatorProviderOptions } from "./provider.js";
export { type PlannedReply, type PlannedToolCall, planReply, splitPieces } from "./reply-plan.js";
export { type EmulatorOptions, type EmulatorServer, type RecordedRequest, startEmulator } from "./server.js";
export { formatSse, parseSse, type SseEvent } from "./sse.js";
export { countTokens, MAX_ENCODED_PIECE, truncateToTokens } from "./tokenizer.js";
export type {
  CacheUsage,
  Clock,
  ContentReply,
  EmulatorModel,
  EmulatorModelFunction,
  EmulatorModelOption,
  EmulatorOutput,
  EmulatorRequest,
  WireErrorKind,
} from "./types.js";
export { WireError } from "./types.js";
