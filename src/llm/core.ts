// The provider-neutral core of the llm layer: the request/stream protocol, the block assembler,
// ScriptedProvider, errors, the model registry, token estimates and the context-window check —
// everything except the real adapters. Layers above (loop, compaction) import this, so loading
// them does not load the provider SDKs (~70 MB of RSS); `index.ts` adds the adapters for applications.
export { BlockAssembler } from "./assembler.js";
export {
  type ContentReply,
  controlReplyChunks,
  isContentReply,
  ScriptedProvider,
  type ScriptedProviderOptions,
  type ScriptedReply,
  type ScriptedStep,
  type ScriptedToolCall,
} from "./scripted.js";
export type {
  AssistantResult,
  BlockStart,
  FinishReason,
  Provider,
  ProviderErrorCode,
  ProviderFailure,
  ModelRequest,
  OutputFormat,
  ProviderRequest,
  ToolSchema,
  StreamChunk,
} from "./types.js";
export { ProviderError } from "./types.js";
export { httpError, retryAfterMs } from "./http-errors.js";
export {
  DEFAULT_MODELS,
  type ModelInfo,
  type ModelPricing,
  ModelRegistry,
  ModelRegistryError,
  usageCost,
} from "./models.js";
export {
  API_KEY_ENV,
  apiKeyFor,
  BASE_URL_ENV,
  chooseModelFromEnv,
  DEFAULT_MODEL_OF,
  GEMINI_KEY_FALLBACK_ENV,
  VERTEX_ENV,
  LOCAL_KEY_ENV,
  type ModelChoice,
  ModelChoiceError,
  PROVIDER_NAMES,
  type ProviderName,
  parseModelSelector,
} from "./model-choice.js";
export { withStallTimeout } from "./stall.js";
export { untilAborted } from "./until-aborted.js";
export {
  ANTHROPIC_API,
  foreignReasoning,
  type NoticeSink,
  opaqueOwner,
  ownProviderData,
  type ProviderNotice,
  ReasoningCarryover,
  warnNotice,
} from "./reasoning-carryover.js";
export { jsonModeInstruction, schemaInJsonModeInstruction, withJsonModeInstruction } from "./json-mode.js";
export {
  CONTEXT_OVERFLOW_MARGIN,
  contextWindowProblem,
  estimateRequestTokens,
  overWindow,
  requestOverWindow,
} from "./context-window.js";
export { estimateTokens, type TokenCounter, valueCounter } from "./token-estimate.js";
