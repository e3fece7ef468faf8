const EPHEMERAL = { type: "ephemeral" };
/** The params for `client.messages.create` (without `stream`). */
export function toAnthropicParams(request, options) {
    const system = request.system
        ? [{ type: "text", text: request.system }]
        : undefined;
    const tools = request.tools?.map((t) => ({
        name: t.name,
        ...(t.description === undefined ? {} : { description: t.description }),
        input_schema: t.inputSchema,
    }));
    const { params: messages, lastIndexOf } = toMessageParams(request.messages);
    // 1. tools + system
    if (system !== undefined)
        system[system.length - 1].cache_control = EPHEMERAL;
    else if (tools !== undefined && tools.length > 0)
        tools[tools.length - 1].cache_control = EPHEMERAL;
    // 2–4 on message blocks, by Keelson message index.
    const marks = new Set();
    const prefixLength = request.prefixLength ?? 0;
    if (prefixLength > 0)
        marks.add(prefixLength - 1);
    const lastAssistant = findLastIndex(request.messages, (m) => m.role === "assistant");
    if (lastAssistant > 0 && lastAssistant - 1 >= prefixLength)
        marks.add(lastAssistant - 1);
    if (request.messages.length > 0)
        marks.add(request.messages.length - 1);
    for (const index of marks)
        markBlock(messages, lastIndexOf(index));
    return {
        model: request.model.includes(":") ? request.model.slice(request.model.indexOf(":") + 1) : request.model,
        max_tokens: request.maxTokens ?? options.defaultMaxTokens,
        messages,
        ...(system === undefined ? {} : { system }),
        ...(tools === undefined || tools.length === 0 ? {} : { tools }),
        ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
        ...(request.stop === undefined ? {} : { stop_sequences: [...request.stop] }),
        metadata: { user_id: request.sessionId },
    };
}
/**
 * Keelson messages → Anthropic turns. Consecutive tool messages become one user turn of
 * tool_result blocks (the API wants every result of an assistant turn right after it); other
 * consecutive user messages stay separate turns, which the API combines. `lastIndexOf(i)` gives
 * the position (turn, block) of Keelson message i's last block.
 */
function toMessageParams(messages) {
    const params = [];
    const positions = [];
    for (const message of messages) {
        if (message.role === "tool") {
            const result = message.content[0];
            const block = {
                type: "tool_result",
                tool_use_id: result.callId,
                content: result.content.map((p) => p.type === "text" ? { type: "text", text: p.text || " " } : imageParam(p.mediaType, p.data)),
                ...(result.isError ? { is_error: true } : {}),
            };
            const previous = params.at(-1);
            if (previous !== undefined &&
                previous.role === "user" &&
                Array.isArray(previous.content) &&
                previous.content.every((b) => b.type === "tool_result")) {
                previous.content.push(block);
            }
            else {
                params.push({ role: "user", content: [block] });
            }
            const last = params.at(-1);
            positions.push({ turn: params.length - 1, block: last.content.length - 1 });
            continue;
        }
        const content = message.role === "user" ? userBlocks(message.content) : assistantBlocks(message.content);
        if (content.length === 0) {
            positions.push(undefined); // nothing the API would accept (e.g. an empty text): skipped
            continue;
        }
        params.push({ role: message.role, content });
        positions.push({ turn: params.length - 1, block: content.length - 1 });
    }
    return { params, lastIndexOf: (i) => positions[i] };
}
function userBlocks(content) {
    return content.flatMap((b) => b.type === "text" ? (b.text === "" ? [] : [{ type: "text", text: b.text }]) : [imageParam(b.mediaType, b.data)]);
}
function assistantBlocks(content) {
    return content.flatMap((b) => {
        switch (b.type) {
            case "text":
                return b.text === "" ? [] : [{ type: "text", text: b.text }];
            case "reasoning":
                // Only signed (or redacted) thinking can be replayed; unsigned reasoning from another provider is dropped.
                if (b.redacted === true)
                    return [{ type: "redacted_thinking", data: b.text }];
                return b.signature === undefined ? [] : [{ type: "thinking", thinking: b.text, signature: b.signature }];
            case "tool-call":
                return [{ type: "tool_use", id: b.callId, name: b.name, input: parseInput(b.arguments) }];
            default:
                return [];
        }
    });
}
/** tool_use.input must be an object: arguments that are not a JSON object are sent as {} (the tool result already told the model). */
function parseInput(raw) {
    try {
        const value = JSON.parse(raw);
        return typeof value === "object" && value !== null && !Array.isArray(value)
            ? value
            : {};
    }
    catch {
        return {};
    }
}
function imageParam(mediaType, data) {
    return {
        type: "image",
        source: { type: "base64", media_type: mediaType, data },
    };
}
function markBlock(params, at) {
    if (at === undefined)
        return;
    const content = params[at.turn]?.content;
    if (!Array.isArray(content))
        return;
    for (let i = at.block; i >= 0; i--) {
        const block = content[i];
        if (block.type === "thinking" || block.type === "redacted_thinking")
            continue;
        block.cache_control = EPHEMERAL;
        return;
    }
}
function findLastIndex(items, test) {
    for (let i = items.length - 1; i >= 0; i--)
        if (test(items[i]))
            return i;
    return -1;
}
//# sourceMappingURL=wire.js.map