import { ProviderError } from "../types.js";
const FINISH = {
    end_turn: "stop",
    stop_sequence: "stop",
    refusal: "stop",
    pause_turn: "stop",
    tool_use: "tool-calls",
    max_tokens: "max-tokens",
    model_context_window_exceeded: "max-tokens",
};
export class AnthropicStreamMapper {
    #usage = {
        input: 0,
        output: 0,
        cacheRead: 0,
        cacheWrite: 0,
    };
    #stopReason = null;
    #stopped = false;
    /** True once message_stop arrived (a stream that ends before it was cut). */
    get stopped() {
        return this.#stopped;
    }
    /** Anthropic block index → Keelson block index. */
    #indexes = new Map();
    map(event) {
        switch (event.type) {
            case "message_start":
                this.#overlay(event.message.usage);
                return [];
            case "content_block_start":
                return this.#start(event.index, event.content_block);
            case "content_block_delta":
                return this.#delta(event.index, event.delta);
            case "content_block_stop":
                return [{ type: "block-end", index: this.#index(event.index) }];
            case "message_delta":
                this.#stopReason = event.delta.stop_reason ?? this.#stopReason;
                this.#overlay(event.usage);
                return [];
            case "message_stop": {
                this.#stopped = true;
                const usage = {
                    inputTokens: this.#usage.input,
                    cacheReadTokens: this.#usage.cacheRead,
                    cacheWriteTokens: this.#usage.cacheWrite,
                    outputTokens: this.#usage.output,
                };
                return [
                    { type: "usage", usage },
                    { type: "finish", reason: FINISH[this.#stopReason ?? "end_turn"] ?? "stop" },
                ];
            }
            default:
                return [];
        }
    }
    #start(index, block) {
        const at = this.#indexes.size;
        this.#indexes.set(index, at);
        switch (block.type) {
            case "text":
                return [
                    { type: "block-start", index: at, block: { type: "text" } },
                    ...(block.text ? [{ type: "text-delta", index: at, text: block.text }] : []),
                ];
            case "thinking":
                return [
                    { type: "block-start", index: at, block: { type: "reasoning" } },
                    ...(block.thinking ? [{ type: "reasoning-delta", index: at, text: block.thinking }] : []),
                ];
            case "redacted_thinking":
                return [
                    { type: "block-start", index: at, block: { type: "reasoning", redacted: true } },
                    { type: "reasoning-delta", index: at, text: block.data },
                ];
            case "tool_use": {
                if (!block.id || !block.name)
                    throw new ProviderError("protocol", `tool_use block ${index} without an id or name`);
                const input = block.input && typeof block.input === "object" && Object.keys(block.input).length > 0
                    ? JSON.stringify(block.input)
                    : "";
                return [
                    { type: "block-start", index: at, block: { type: "tool-call", callId: block.id, name: block.name } },
                    ...(input ? [{ type: "tool-call-delta", index: at, argumentsDelta: input }] : []),
                ];
            }
            default:
                throw new ProviderError("protocol", `unsupported content block type ${JSON.stringify(block.type)}`);
        }
    }
    #delta(index, delta) {
        const at = this.#index(index);
        switch (delta.type) {
            case "text_delta":
                return [{ type: "text-delta", index: at, text: delta.text }];
            case "input_json_delta":
                return [{ type: "tool-call-delta", index: at, argumentsDelta: delta.partial_json }];
            case "thinking_delta":
                return [{ type: "reasoning-delta", index: at, text: delta.thinking }];
            case "signature_delta":
                return [{ type: "reasoning-delta", index: at, text: "", signature: delta.signature }];
            default:
                return []; // citations: not part of Keelson's vocabulary
        }
    }
    #index(index) {
        const at = this.#indexes.get(index);
        if (at === undefined)
            throw new ProviderError("protocol", `a delta or stop for content block ${index}, which never started`);
        return at;
    }
    #overlay(usage) {
        if (!usage)
            return;
        if (typeof usage.input_tokens === "number")
            this.#usage.input = usage.input_tokens;
        if (typeof usage.output_tokens === "number")
            this.#usage.output = usage.output_tokens;
        if (typeof usage.cache_read_input_tokens === "number")
            this.#usage.cacheRead = usage.cache_read_input_tokens;
        if (typeof usage.cache_creation_input_tokens === "number")
            this.#usage.cacheWrite = usage.cache_creation_input_tokens;
    }
}
//# sourceMappingURL=stream.js.map