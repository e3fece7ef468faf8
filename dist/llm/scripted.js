import { ProviderError, } from "./types.js";
export class ScriptedProvider {
    id;
    requests = [];
    #script;
    #fallback;
    #record;
    #callCounter = 0;
    constructor(script = [], options = {}) {
        this.id = options.id ?? "scripted";
        this.#script = [...script];
        this.#fallback = options.fallback;
        this.#record = options.record ?? true;
    }
    /** Appends steps to the script. */
    push(...steps) {
        this.#script.push(...steps);
        return this;
    }
    /** Steps not consumed yet. */
    get remaining() {
        return this.#script.length;
    }
    async *stream(request) {
        if (this.#record)
            this.requests.push(request);
        const step = this.#script.shift() ?? this.#fallback;
        if (step === undefined)
            throw new ProviderError("script-exhausted", `ScriptedProvider has no reply for request ${this.requests.length}`);
        const reply = typeof step === "function" ? await step(request) : step;
        if (!isContentReply(reply)) {
            yield* controlReplyChunks(reply, request.signal);
            return;
        }
        let index = 0;
        const chunks = [];
        if (reply.reasoning !== undefined)
            chunks.push(...textBlock(index++, "reasoning", reply.reasoning));
        if (reply.text !== undefined)
            chunks.push(...textBlock(index++, "text", reply.text));
        for (const call of reply.toolCalls ?? []) {
            const args = typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments ?? {});
            const at = index++;
            chunks.push({
                type: "block-start",
                index: at,
                block: { type: "tool-call", callId: `toolu_${++this.#callCounter}`, name: call.name },
            });
            chunks.push({ type: "tool-call-delta", index: at, argumentsDelta: args });
            chunks.push({ type: "block-end", index: at });
        }
        const u = reply.usage ?? {};
        chunks.push({
            type: "usage",
            usage: {
                inputTokens: u.inputTokens ?? 0,
                cacheReadTokens: u.cacheReadTokens ?? 0,
                cacheWriteTokens: u.cacheWriteTokens ?? 0,
                outputTokens: u.outputTokens ?? 0,
                ...(u.reasoningTokens === undefined ? {} : { reasoningTokens: u.reasoningTokens }),
            },
        });
        chunks.push({
            type: "finish",
            reason: reply.finish ?? ((reply.toolCalls?.length ?? 0) > 0 ? "tool-calls" : "stop"),
        });
        for (const chunk of chunks) {
            if (request.signal.aborted) {
                yield { type: "finish", reason: "aborted" };
                return;
            }
            yield chunk;
        }
    }
}
function textBlock(index, type, text) {
    const half = Math.ceil(text.length / 2);
    const delta = (t) => type === "text" ? { type: "text-delta", index, text: t } : { type: "reasoning-delta", index, text: t };
    return [
        { type: "block-start", index, block: { type } },
        delta(text.slice(0, half)),
        delta(text.slice(half)),
        { type: "block-end", index },
    ];
}
export function isContentReply(reply) {
    return reply !== "hang" && !("throws" in reply) && !("error" in reply);
}
/**
 * The stream for a control reply, shared by every scripted model (this provider, the emulator):
 * `'hang'` waits for the abort and finishes `aborted`; `{error}` finishes `error`; `{throws}` throws.
 */
export async function* controlReplyChunks(reply, signal) {
    if (reply === "hang") {
        await untilAborted(signal);
        yield { type: "finish", reason: "aborted" };
        return;
    }
    if ("throws" in reply)
        throw reply.throws;
    yield { type: "finish", reason: "error", error: reply.error };
}
function untilAborted(signal) {
    if (signal.aborted)
        return Promise.resolve();
    return new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}
//# sourceMappingURL=scripted.js.map