import type { JsonObject } from "../json/index.js";
import type { Usage } from "../messages/index.js";
import { type PlannedReply } from "./reply-plan.js";
import type { SseEvent } from "./sse.js";
export interface OpenAIRenderContext {
    readonly id: string;
    readonly model: string;
    /** Unix seconds. */
    readonly created: number;
    readonly usage: Usage;
    readonly deepseek: boolean;
}
export declare function openaiUsage(usage: Usage, deepseek: boolean): JsonObject;
/** The non-stream response body. */
export declare function openaiCompletion(plan: PlannedReply, ctx: OpenAIRenderContext): JsonObject;
/** The full stream, `[DONE]` included. */
export declare function openaiChunks(plan: PlannedReply, ctx: OpenAIRenderContext, includeUsage: boolean): SseEvent[];
