import { splitPieces } from "./reply-plan.js";
const FINISH_REASONS = {
    stop: "stop",
    "stop-sequence": "stop",
    "tool-calls": "tool_calls",
    "max-tokens": "length",
};
export function openaiUsage(usage, deepseek) {
    const prompt = usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
    return {
        prompt_tokens: prompt,
        completion_tokens: usage.outputTokens,
        total_tokens: prompt + usage.outputTokens,
        prompt_tokens_details: { cached_tokens: usage.cacheReadTokens },
        ...(usage.reasoningTokens === undefined
            ? {}
            : { completion_tokens_details: { reasoning_tokens: usage.reasoningTokens } }),
        ...(deepseek
            ? { prompt_cache_hit_tokens: usage.cacheReadTokens, prompt_cache_miss_tokens: prompt - usage.cacheReadTokens }
            : {}),
    };
}
/** The non-stream response body. */
export function openaiCompletion(plan, ctx) {
    const message = {
        role: "assistant",
        content: plan.text ?? (plan.toolCalls.length > 0 ? null : ""),
    };
    if (ctx.deepseek && plan.reasoning !== undefined)
        message.reasoning_content = plan.reasoning.text;
    if (plan.toolCalls.length > 0)
        message.tool_calls = plan.toolCalls.map((c) => ({
            id: c.id,
            type: "function",
            function: { name: c.name, arguments: c.arguments },
        }));
    if (!ctx.deepseek)
        message.refusal = null;
    return {
        id: ctx.id,
        object: "chat.completion",
        created: ctx.created,
        model: ctx.model,
        choices: [{ index: 0, message, logprobs: null, finish_reason: FINISH_REASONS[plan.finish] }],
        usage: openaiUsage(ctx.usage, ctx.deepseek),
    };
}
/** The full stream, `[DONE]` included. */
export function openaiChunks(plan, ctx, includeUsage) {
    const events = [];
    const head = { id: ctx.id, object: "chat.completion.chunk", created: ctx.created, model: ctx.model };
    const chunk = (delta, finish = null) => {
        events.push({ data: JSON.stringify({ ...head, choices: [{ index: 0, delta, finish_reason: finish }] }) });
    };
    chunk({ role: "assistant", content: "" });
    if (ctx.deepseek && plan.reasoning !== undefined)
        for (const piece of splitPieces(plan.reasoning.text))
            chunk({ reasoning_content: piece });
    if (plan.text !== undefined && plan.text !== "")
        for (const piece of splitPieces(plan.text))
            chunk({ content: piece });
    plan.toolCalls.forEach((call, index) => {
        chunk({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] });
        for (const piece of splitPieces(call.arguments, 16))
            chunk({ tool_calls: [{ index, function: { arguments: piece } }] });
    });
    chunk({}, FINISH_REASONS[plan.finish]);
    if (includeUsage)
        events.push({ data: JSON.stringify({ ...head, choices: [], usage: openaiUsage(ctx.usage, ctx.deepseek) }) });
    events.push({ data: "[DONE]" });
    return events;
}
//# sourceMappingURL=openai-render.js.map