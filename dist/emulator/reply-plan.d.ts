import type { AssistantMessage, Usage } from "../messages/index.js";
import type { ContentReply } from "./types.js";
export interface PlannedToolCall {
    readonly id: string;
    readonly name: string;
    /** Raw JSON text as the model "produced" it (may be invalid if the script says so). */
    readonly arguments: string;
}
export interface PlannedReply {
    readonly reasoning: {
        readonly text: string;
        readonly signature: string;
    } | undefined;
    readonly text: string | undefined;
    readonly toolCalls: readonly PlannedToolCall[];
    readonly finish: "stop" | "tool-calls" | "max-tokens" | "stop-sequence";
    readonly stopSequence: string | undefined;
    readonly outputTokens: number;
    readonly reasoningTokens: number;
    /** Usage fields the script pinned; they override the computed ones. */
    readonly usageOverride: Partial<Usage>;
}
export interface PlanOptions {
    readonly maxTokens: number | undefined;
    readonly stop: readonly string[];
    /** Mints a tool-call id (`toolu_…` or `call_…`), deterministic per server. */
    readonly nextCallId: () => string;
}
/** The reply as it will be sent, truncated to `maxTokens` (blocks in order: reasoning, text, tool calls). */
export declare function planReply(reply: ContentReply, options: PlanOptions): PlannedReply;
/** The assistant message a client sends back next time (reasoning omitted: it is not resent). */
export declare function plannedAssistantMessage(plan: PlannedReply): AssistantMessage;
/** Normalized usage: the cache outcome plus output, then whatever the script pinned. */
export declare function plannedUsage(plan: PlannedReply, cache: Pick<Usage, "inputTokens" | "cacheReadTokens" | "cacheWriteTokens">): Usage;
/**
 * Splits streamed text into pieces of at most `size` code points, at least two when the text
 * has two or more code points, so every client exercises delta accumulation.
 */
export declare function splitPieces(text: string, size?: number): string[];
