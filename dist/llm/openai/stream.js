import { ProviderError } from "../types.js";
// content_filter: the provider cut the answer; what arrived is kept and the turn ends like a stop.
const FINISH = {
    stop: "stop",
    tool_calls: "tool-calls",
    length: "max-tokens",
    content_filter: "stop",
};
export class ChatChunkMapper {
    #next = 0;
    #text;
    #reasoning;
    /** Wire tool-call index → Keelson block index. */
    #tools = new Map();
    #finish;
    #usage;
    map(chunk) {
        if (chunk.usage)
            this.#usage = normalizeUsage(chunk.usage);
        // Keelson asks for one choice (n = 1); any other index is not part of this answer.
        const choice = chunk.choices?.find((c) => (c.index ?? 0) === 0);
        if (choice === undefined)
            return [];
        const out = [];
        const delta = (choice.delta ?? {});
        const reasoning = delta.reasoning_content ?? delta.reasoning;
        if (typeof reasoning === "string" && reasoning !== "") {
            this.#reasoning ??= this.#start(out, { type: "reasoning" });
            out.push({ type: "reasoning-delta", index: this.#reasoning, text: reasoning });
        }
        // A refusal is the model's answer in another field; Keelson shows it as text.
        for (const text of [delta.content, delta.refusal]) {
            if (typeof text !== "string" || text === "")
                continue;
            this.#text ??= this.#start(out, { type: "text" });
            out.push({ type: "text-delta", index: this.#text, text });
        }
        for (const [position, call] of (delta.tool_calls ?? []).entries())
            this.#toolCall(out, call, position);
        if (choice.finish_reason)
            this.#finish = choice.finish_reason;
        return out;
    }
    /**
     * The closing chunks once the SDK iterator is done: block-ends, usage (when the server sent
     * it), finish. A stream that ended without a `finish_reason` was cut off: a retryable
     * connection failure, since nothing of it may reach history.
     */
    end() {
        if (this.#finish === undefined)
            throw new ProviderError("connection", "the stream ended before the provider sent a finish_reason", {
                retryable: true,
            });
        const out = [];
        for (let index = 0; index < this.#next; index++)
            out.push({ type: "block-end", index });
        if (this.#usage !== undefined)
            out.push({ type: "usage", usage: this.#usage });
        let reason = FINISH[this.#finish] ?? "stop";
        // Some compatible servers say `stop` after tool calls; the content decides.
        if (reason === "stop" && this.#tools.size > 0)
            reason = "tool-calls";
        out.push({ type: "finish", reason });
        return out;
    }
    #start(out, block) {
        const index = this.#next++;
        out.push({ type: "block-start", index, block });
        return index;
    }
    #toolCall(out, call, position) {
        const wire = call.index ?? position;
        let index = this.#tools.get(wire);
        if (index === undefined) {
            const name = call.function?.name;
            if (!call.id || !name) {
                throw new ProviderError("protocol", `tool call ${wire} started without ${call.id ? "a function name" : "an id"}: ${JSON.stringify(call)}`);
            }
            index = this.#start(out, { type: "tool-call", callId: call.id, name });
            this.#tools.set(wire, index);
        }
        const args = call.function?.arguments;
        if (typeof args === "string" && args !== "")
            out.push({ type: "tool-call-delta", index, argumentsDelta: args });
    }
}
/**
 * Provider usage → Keelson's disjoint buckets. DeepSeek: `prompt_cache_hit_tokens` is the cache
 * read and `prompt_cache_miss_tokens` the uncached input (`prompt_tokens` counts both). OpenAI:
 * `prompt_tokens` includes `cached_tokens` and, from GPT-5.6, the `cache_write_tokens` written;
 * both are taken out of the uncached input.
 */
export function normalizeUsage(usage) {
    const prompt = usage.prompt_tokens ?? 0;
    const reasoning = usage.completion_tokens_details?.reasoning_tokens;
    const output = {
        outputTokens: usage.completion_tokens ?? 0,
        ...(typeof reasoning === "number" ? { reasoningTokens: reasoning } : {}),
    };
    if (typeof usage.prompt_cache_hit_tokens === "number") {
        const hit = usage.prompt_cache_hit_tokens;
        const miss = typeof usage.prompt_cache_miss_tokens === "number" ? usage.prompt_cache_miss_tokens : Math.max(0, prompt - hit);
        return { inputTokens: miss, cacheReadTokens: hit, cacheWriteTokens: 0, ...output };
    }
    const cached = usage.prompt_tokens_details?.cached_tokens ?? 0;
    const written = usage.prompt_tokens_details?.cache_write_tokens ?? usage.cache_write_tokens ?? 0;
    return {
        inputTokens: Math.max(0, prompt - cached - written),
        cacheReadTokens: cached,
        cacheWriteTokens: written,
        ...output,
    };
}
//# sourceMappingURL=stream.js.map