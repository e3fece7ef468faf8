// The provider-neutral core of the llm layer: the request/stream protocol, the block assembler,
// ScriptedProvider, errors, the model registry and token estimates — everything except the
// real adapters. Layers above (loop, compaction) import this, so loading them does not load the
// provider SDKs (~70 MB of RSS); `index.ts` adds the adapters for applications.
export { BlockAssembler } from "./assembler.js";
export { controlReplyChunks, isContentReply, ScriptedProvider, } from "./scripted.js";
export { ProviderError } from "./types.js";
export { httpError, retryAfterMs } from "./http-errors.js";
export { DEFAULT_MODELS, ModelRegistry, ModelRegistryError, usageCost, } from "./models.js";
export { withStallTimeout } from "./stall.js";
export { estimateTokens, valueCounter } from "./token-estimate.js";
//# sourceMappingURL=core.js.map