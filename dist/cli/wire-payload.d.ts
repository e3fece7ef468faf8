import type { ProviderRequest } from "../llm/index.js";
import type { ReconstructedRequest } from "../reconstruct/index.js";
export type Wire = "anthropic" | "openai" | "deepseek";
export declare function providerRequestOf(r: ReconstructedRequest, sessionId: string): ProviderRequest;
export declare function wirePayload(r: ReconstructedRequest, sessionId: string, wire: Wire): unknown;
