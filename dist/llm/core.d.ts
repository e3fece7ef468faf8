export { BlockAssembler } from "./assembler.js";
export { type ContentReply, controlReplyChunks, isContentReply, ScriptedProvider, type ScriptedProviderOptions, type ScriptedReply, type ScriptedStep, type ScriptedToolCall, } from "./scripted.js";
export type { AssistantResult, BlockStart, FinishReason, Provider, ProviderErrorCode, ProviderFailure, ModelRequest, ProviderRequest, ToolSchema, StreamChunk, } from "./types.js";
export { ProviderError } from "./types.js";
export { httpError, retryAfterMs } from "./http-errors.js";
export { DEFAULT_MODELS, type ModelInfo, type ModelPricing, ModelRegistry, ModelRegistryError, usageCost, } from "./models.js";
export { withStallTimeout } from "./stall.js";
export { estimateTokens, type TokenCounter, valueCounter } from "./token-estimate.js";
