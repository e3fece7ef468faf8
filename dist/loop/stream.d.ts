import { type AssistantResult, type Provider, type ProviderRequest, type StreamChunk } from "../llm/core.js";
export declare function streamProvider(provider: Provider, request: ProviderRequest, onChunk: (chunk: StreamChunk) => void): Promise<AssistantResult>;
