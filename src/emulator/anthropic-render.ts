// Rendering a planned reply as the Messages API does: a non-stream Message object, or the SSE
// event sequence of TOOLCHAIN.md §5 — message_start (usage with output_tokens 1), ping,
// content_block_start/delta/stop per block (text_delta; thinking_delta then signature_delta;
// input_json_delta in two or more partial_json pieces), message_delta, message_stop.
import type { JsonObject, JsonValue } from "../json/index.js";
import type { Usage } from "../messages/index.js";
import { type PlannedReply, splitPieces } from "./reply-plan.js";
import type { SseEvent } from "./sse.js";

export interface AnthropicRenderContext {
  readonly id: string;
  readonly model: string;
  readonly usage: Usage;
}

const STOP_REASONS = {
  stop: "end_turn",
  "tool-calls": "tool_use",
  "max-tokens": "max_tokens",
  "stop-sequence": "stop_sequence",
} as const;

export function anthropicUsage(usage: Usage): JsonObject {
  return {
    input_tokens: usage.inputTokens,
    output_tokens: usage.outputTokens,
    cache_creation_input_tokens: usage.cacheWriteTokens,
    cache_read_input_tokens: usage.cacheReadTokens,
  };
}

/** The non-stream response body. */
export function anthropicMessage(plan: PlannedReply, ctx: AnthropicRenderContext): JsonObject {
  const content: JsonObject[] = [];
  if (plan.reasoning !== undefined)
    content.push({ type: "thinking", thinking: plan.reasoning.text, signature: plan.reasoning.signature });
  if (plan.text !== undefined && plan.text !== "") content.push({ type: "text", text: plan.text });
  for (const call of plan.toolCalls)
    content.push({ type: "tool_use", id: call.id, name: call.name, input: parseInput(call.arguments) });
  return {
    id: ctx.id,
    type: "message",
    role: "assistant",
    model: ctx.model,
    content,
    stop_reason: STOP_REASONS[plan.finish],
    stop_sequence: plan.stopSequence ?? null,
    usage: anthropicUsage(ctx.usage),
  };
}

/** The full SSE event sequence of a successful stream. */
export function anthropicEvents(plan: PlannedReply, ctx: AnthropicRenderContext): SseEvent[] {
  const events: SseEvent[] = [];
  const emit = (data: JsonObject): void => {
    events.push({ event: data.type as string, data: JSON.stringify(data) });
  };
  const startUsage = { ...anthropicUsage(ctx.usage), output_tokens: 1 };
  emit({
    type: "message_start",
    message: {
      id: ctx.id,
      type: "message",
      role: "assistant",
      model: ctx.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: startUsage,
    },
  });
  emit({ type: "ping" });
  let index = 0;
  const block = (start: JsonObject, deltas: readonly JsonObject[]): void => {
    emit({ type: "content_block_start", index, content_block: start });
    for (const delta of deltas) emit({ type: "content_block_delta", index, delta });
    emit({ type: "content_block_stop", index });
    index += 1;
  };
  if (plan.reasoning !== undefined) {
    const deltas: JsonObject[] = splitPieces(plan.reasoning.text).map((thinking) => ({
      type: "thinking_delta",
      thinking,
    }));
    block({ type: "thinking", thinking: "", signature: "" }, [
      ...deltas,
      { type: "signature_delta", signature: plan.reasoning.signature },
    ]);
  }
  if (plan.text !== undefined && plan.text !== "") {
    block(
      { type: "text", text: "" },
      splitPieces(plan.text).map((text) => ({ type: "text_delta", text })),
    );
  }
  for (const call of plan.toolCalls) {
    block(
      { type: "tool_use", id: call.id, name: call.name, input: {} },
      splitPieces(call.arguments, 16).map((partial_json) => ({ type: "input_json_delta", partial_json })),
    );
  }
  emit({
    type: "message_delta",
    delta: { stop_reason: STOP_REASONS[plan.finish], stop_sequence: plan.stopSequence ?? null },
    usage: { output_tokens: ctx.usage.outputTokens },
  });
  emit({ type: "message_stop" });
  return events;
}

/** Tool input as an object; arguments a script made invalid are passed through as a string. */
function parseInput(args: string): JsonValue {
  try {
    return JSON.parse(args === "" ? "{}" : args) as JsonValue;
  } catch {
    return args;
  }
}
