// Rendering a planned reply as the Responses API does: the output items — a reasoning item
// (summary parts when `reasoning.summary` was asked for; `encrypted_content` sealed when
// `include` asked for it, else null), a message, function_call items — and either the response
// object (non-stream) or its SSE stream: `response.created`, `response.in_progress`, per item
// `output_item.added`, its content events (summary parts and text deltas, content part and
// output_text deltas, function_call_arguments deltas) and `output_item.done`, then
// `response.completed` (or `response.incomplete` with `max_output_tokens`). Every event names
// its type in both the `event:` line and the data, and carries a `sequence_number`; there is no
// `[DONE]`.
import type { JsonObject, JsonValue } from "../json/index.js";
import type { Usage } from "../messages/index.js";
import { type PlannedReply, splitPieces } from "./reply-plan.js";
import { sealReasoning } from "./responses-reasoning.js";
import type { SseEvent } from "./sse.js";

export interface ResponsesRenderContext {
  /** `resp_…`; item ids are derived from it. */
  readonly id: string;
  readonly model: string;
  /** Unix seconds. */
  readonly createdAt: number;
  readonly usage: Usage;
  readonly encryptedReasoning: boolean;
  readonly reasoningSummary: boolean;
  readonly store: boolean;
}

/** `usage` as the Responses API reports it: input includes cached (and written) tokens. */
export function responsesUsage(usage: Usage): JsonObject {
  const input = usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: usage.cacheReadTokens, cache_write_tokens: usage.cacheWriteTokens },
    output_tokens: usage.outputTokens,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
    total_tokens: input + usage.outputTokens,
  };
}

/** The finished output items, in order. */
export function responsesOutput(plan: PlannedReply, ctx: ResponsesRenderContext): JsonObject[] {
  const suffix = ctx.id.replace(/^resp_/, "");
  const items: JsonObject[] = [];
  if (plan.reasoning !== undefined)
    items.push({
      id: `rs_${suffix}`,
      type: "reasoning",
      summary: ctx.reasoningSummary
        ? plan.reasoning.text.split("\n\n").map((text) => ({ type: "summary_text", text }))
        : [],
      encrypted_content: ctx.encryptedReasoning ? sealReasoning(plan.reasoning.text) : null,
    });
  if (plan.text !== undefined && plan.text !== "")
    items.push({
      id: `msg_${suffix}`,
      type: "message",
      status: "completed",
      content: [{ type: "output_text", annotations: [], logprobs: [], text: plan.text }],
      role: "assistant",
    });
  plan.toolCalls.forEach((call, i) => {
    items.push({
      id: `fc_${suffix}_${i}`,
      type: "function_call",
      status: "completed",
      arguments: call.arguments,
      call_id: call.id,
      name: call.name,
    });
  });
  return items;
}

/** The response object, `output` and `usage` included once it is complete. */
export function responsesResponse(plan: PlannedReply, ctx: ResponsesRenderContext): JsonObject {
  return responseObject(ctx, plan.finish === "max-tokens" ? "incomplete" : "completed", responsesOutput(plan, ctx));
}

function responseObject(
  ctx: ResponsesRenderContext,
  status: "in_progress" | "completed" | "incomplete",
  output: readonly JsonObject[],
): JsonObject {
  const done = status !== "in_progress";
  return {
    id: ctx.id,
    object: "response",
    created_at: ctx.createdAt,
    status,
    error: null,
    incomplete_details: status === "incomplete" ? { reason: "max_output_tokens" } : null,
    model: ctx.model,
    output: [...output],
    parallel_tool_calls: true,
    previous_response_id: null,
    store: ctx.store,
    usage: done ? responsesUsage(ctx.usage) : null,
  };
}

/** The full SSE stream. */
export function responsesEvents(plan: PlannedReply, ctx: ResponsesRenderContext): SseEvent[] {
  const events: SseEvent[] = [];
  let sequence = 0;
  const emit = (type: string, fields: JsonObject): void => {
    events.push({ event: type, data: JSON.stringify({ type, sequence_number: sequence++, ...fields }) });
  };
  emit("response.created", { response: responseObject(ctx, "in_progress", []) });
  emit("response.in_progress", { response: responseObject(ctx, "in_progress", []) });
  const output = responsesOutput(plan, ctx);
  output.forEach((item, outputIndex) => {
    const itemId = item.id as string;
    emit("response.output_item.added", { output_index: outputIndex, item: startedItem(item) });
    const at = { item_id: itemId, output_index: outputIndex };
    if (item.type === "reasoning") {
      (item.summary as JsonObject[]).forEach((part, summaryIndex) => {
        const text = part.text as string;
        emit("response.reasoning_summary_part.added", {
          ...at,
          summary_index: summaryIndex,
          part: { type: "summary_text", text: "" },
        });
        for (const delta of splitPieces(text))
          emit("response.reasoning_summary_text.delta", { ...at, summary_index: summaryIndex, delta });
        emit("response.reasoning_summary_text.done", { ...at, summary_index: summaryIndex, text });
        emit("response.reasoning_summary_part.done", { ...at, summary_index: summaryIndex, part });
      });
    } else if (item.type === "message") {
      const part = (item.content as JsonObject[])[0]!;
      const text = part.text as string;
      const content = { ...at, content_index: 0 };
      emit("response.content_part.added", { ...content, part: { ...part, text: "" } });
      for (const delta of splitPieces(text)) emit("response.output_text.delta", { ...content, delta, logprobs: [] });
      emit("response.output_text.done", { ...content, text, logprobs: [] });
      emit("response.content_part.done", { ...content, part });
    } else {
      const args = item.arguments as string;
      for (const delta of splitPieces(args, 16)) emit("response.function_call_arguments.delta", { ...at, delta });
      emit("response.function_call_arguments.done", { ...at, arguments: args });
    }
    emit("response.output_item.done", { output_index: outputIndex, item });
  });
  const final = plan.finish === "max-tokens" ? "incomplete" : "completed";
  emit(`response.${final}`, { response: responseObject(ctx, final, output) });
  return events;
}

/** An item as `output_item.added` shows it: in progress, its content still empty. */
function startedItem(item: JsonObject): JsonObject {
  const started: { [key: string]: JsonValue } = { ...item };
  if (item.type === "reasoning") {
    started.summary = [];
    delete started.encrypted_content;
  } else if (item.type === "message") {
    started.status = "in_progress";
    started.content = [];
  } else {
    started.status = "in_progress";
    started.arguments = "";
  }
  return started;
}
