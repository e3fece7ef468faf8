import type { JsonObject } from "../json/index.js";
import type { Usage } from "../messages/index.js";
import { type PlannedReply } from "./reply-plan.js";
import type { SseEvent } from "./sse.js";
export interface AnthropicRenderContext {
    readonly id: string;
    readonly model: string;
    readonly usage: Usage;
}
export declare function anthropicUsage(usage: Usage): JsonObject;
/** The non-stream response body. */
export declare function anthropicMessage(plan: PlannedReply, ctx: AnthropicRenderContext): JsonObject;
/** The full SSE event sequence of a successful stream. */
export declare function anthropicEvents(plan: PlannedReply, ctx: AnthropicRenderContext): SseEvent[];
