import { splitPieces } from "./reply-plan.js";
const STOP_REASONS = {
    stop: "end_turn",
    "tool-calls": "tool_use",
    "max-tokens": "max_tokens",
    "stop-sequence": "stop_sequence",
};
export function anthropicUsage(usage) {
    return {
        input_tokens: usage.inputTokens,
        output_tokens: usage.outputTokens,
        cache_creation_input_tokens: usage.cacheWriteTokens,
        cache_read_input_tokens: usage.cacheReadTokens,
    };
}
/** The non-stream response body. */
export function anthropicMessage(plan, ctx) {
    const content = [];
    if (plan.reasoning !== undefined)
        content.push({ type: "thinking", thinking: plan.reasoning.text, signature: plan.reasoning.signature });
    if (plan.text !== undefined && plan.text !== "")
        content.push({ type: "text", text: plan.text });
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
export function anthropicEvents(plan, ctx) {
    const events = [];
    const emit = (data) => {
        events.push({ event: data.type, data: JSON.stringify(data) });
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
    const block = (start, deltas) => {
        emit({ type: "content_block_start", index, content_block: start });
        for (const delta of deltas)
            emit({ type: "content_block_delta", index, delta });
        emit({ type: "content_block_stop", index });
        index += 1;
    };
    if (plan.reasoning !== undefined) {
        const deltas = splitPieces(plan.reasoning.text).map((thinking) => ({
            type: "thinking_delta",
            thinking,
        }));
        block({ type: "thinking", thinking: "", signature: "" }, [
            ...deltas,
            { type: "signature_delta", signature: plan.reasoning.signature },
        ]);
    }
    if (plan.text !== undefined && plan.text !== "") {
        block({ type: "text", text: "" }, splitPieces(plan.text).map((text) => ({ type: "text_delta", text })));
    }
    for (const call of plan.toolCalls) {
        block({ type: "tool_use", id: call.id, name: call.name, input: {} }, splitPieces(call.arguments, 16).map((partial_json) => ({ type: "input_json_delta", partial_json })));
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
function parseInput(args) {
    try {
        return JSON.parse(args === "" ? "{}" : args);
    }
    catch {
        return args;
    }
}
//# sourceMappingURL=anthropic-render.js.map