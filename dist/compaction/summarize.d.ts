import { type AssistantResult, type Provider, type ToolSchema } from "../llm/core.js";
import type { Message } from "../messages/index.js";
export declare const CHECKPOINT_OPEN = "<checkpoint>";
export interface SummaryCall {
    readonly provider: Provider;
    readonly model: string;
    readonly system: string;
    readonly tools: readonly ToolSchema[];
    readonly prefix: readonly Message[];
    readonly region: readonly Message[];
    readonly maxTokens: number;
    readonly sessionId: string;
    readonly signal: AbortSignal;
}
export declare function summarize(call: SummaryCall): Promise<{
    text: string;
    result: AssistantResult;
}>;
