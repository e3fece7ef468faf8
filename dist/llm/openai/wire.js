/** The streaming params for one request: `stream: true` with `include_usage`. */
export function toChatCompletionsParams(request, options) {
    const messages = [];
    if (request.system)
        messages.push({ role: options.systemRole, content: request.system });
    messages.push(...toMessageParams(request.messages, options));
    const tools = request.tools?.map((t) => ({
        type: "function",
        function: {
            name: t.name,
            ...(t.description === undefined ? {} : { description: t.description }),
            parameters: t.inputSchema,
        },
    }));
    return {
        model: modelId(request.model),
        messages,
        ...(tools === undefined || tools.length === 0 ? {} : { tools }),
        ...(request.maxTokens === undefined ? {} : { [options.maxTokensField]: request.maxTokens }),
        ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
        ...(request.stop === undefined || request.stop.length === 0 ? {} : { stop: [...request.stop] }),
        ...(options.promptCacheKey ? { prompt_cache_key: request.sessionId } : {}),
        stream: true,
        stream_options: { include_usage: true },
    };
}
/** `provider:model` → `model` (the selector's prefix picks the provider; the rest is the model id). */
export function modelId(model) {
    return model.includes(":") ? model.slice(model.indexOf(":") + 1) : model;
}
function toMessageParams(history, options) {
    const replay = options.reasoningReplay === "tool-turns" ? toolTurnAssistants(history) : new Set();
    return history.map((message, i) => {
        if (message.role === "user")
            return { role: "user", content: userContent(message.content) };
        if (message.role === "assistant")
            return assistantParam(message, replay.has(i));
        const result = message.content[0];
        return { role: "tool", tool_call_id: result.callId, content: toolResultText(result.content) };
    });
}
/** A single text block is sent as a plain string (the common, cheapest shape); anything else as parts. */
function userContent(content) {
    const only = content[0];
    if (content.length === 1 && only?.type === "text")
        return only.text;
    return content.map((part) => part.type === "text"
        ? { type: "text", text: part.text }
        : { type: "image_url", image_url: { url: `data:${part.mediaType};base64,${part.data}` } });
}
function assistantParam(message, withReasoning) {
    const texts = [];
    const reasoning = [];
    const toolCalls = [];
    for (const block of message.content) {
        if (block.type === "text")
            texts.push(block.text);
        else if (block.type === "reasoning")
            reasoning.push(block.text);
        else
            toolCalls.push({
                id: block.callId,
                type: "function",
                function: { name: block.name, arguments: block.arguments },
            });
    }
    // `content` may be null only when there are tool calls; an empty answer is "".
    const content = texts.length > 0 ? texts.join("\n") : toolCalls.length > 0 ? null : "";
    return {
        role: "assistant",
        content,
        ...(withReasoning && reasoning.length > 0 ? { reasoning_content: reasoning.join("\n") } : {}),
        ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
    };
}
/** Chat Completions tool messages carry text only: images become a marker the model can see. */
function toolResultText(parts) {
    return parts.map((p) => (p.type === "text" ? p.text : "[image]")).join("\n");
}
/** Indexes of the assistant messages in user-to-user spans where some assistant message called a tool. */
function toolTurnAssistants(history) {
    const keep = new Set();
    let span = [];
    let called = false;
    const close = () => {
        if (called)
            for (const i of span)
                keep.add(i);
        span = [];
        called = false;
    };
    history.forEach((message, i) => {
        if (message.role === "user")
            close();
        else if (message.role === "assistant") {
            span.push(i);
            called ||= message.content.some((b) => b.type === "tool-call");
        }
    });
    close();
    return keep;
}
//# sourceMappingURL=wire.js.map