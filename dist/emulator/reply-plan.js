// planReply: turns a model's content reply into exactly what the wire will send — ids, a
// signature for reasoning, stop-sequence and max-tokens truncation, output token counts — so
// the Anthropic, OpenAI and in-process renderers only format, never decide.
import { createHash } from "node:crypto";
import { countTokens, truncateToTokens } from "./tokenizer.js";
/** The reply as it will be sent, truncated to `maxTokens` (blocks in order: reasoning, text, tool calls). */
export function planReply(reply, options) {
    let budget = options.maxTokens ?? Number.POSITIVE_INFINITY;
    let truncated = false;
    let used = 0;
    const take = (text) => {
        const cost = countTokens(text);
        if (cost <= budget) {
            budget -= cost;
            used += cost;
            return text;
        }
        truncated = true;
        const cut = truncateToTokens(text, budget);
        used += budget;
        budget = 0;
        return cut;
    };
    const reasoningText = reply.reasoning === undefined ? undefined : take(reply.reasoning);
    const reasoningTokens = used;
    let text = reply.text;
    let stopSequence;
    if (text !== undefined) {
        const hit = firstStop(text, options.stop);
        if (hit !== undefined) {
            text = text.slice(0, hit.at);
            stopSequence = hit.sequence;
        }
        if (!truncated)
            text = take(text);
        else
            text = undefined;
    }
    const toolCalls = [];
    if (stopSequence === undefined) {
        for (const call of reply.toolCalls ?? []) {
            const args = typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments ?? {});
            const cost = countTokens(call.name) + countTokens(args);
            if (truncated || cost > budget) {
                truncated = true;
                break;
            }
            budget -= cost;
            used += cost;
            toolCalls.push({ id: options.nextCallId(), name: call.name, arguments: args });
        }
    }
    const finish = truncated
        ? "max-tokens"
        : stopSequence !== undefined
            ? "stop-sequence"
            : reply.finish === "max-tokens"
                ? "max-tokens"
                : toolCalls.length > 0
                    ? "tool-calls"
                    : "stop";
    return {
        reasoning: reasoningText === undefined ? undefined : { text: reasoningText, signature: signatureFor(reasoningText) },
        text,
        toolCalls,
        finish,
        stopSequence,
        outputTokens: truncated ? options.maxTokens : Math.max(1, used),
        reasoningTokens,
        usageOverride: reply.usage ?? {},
    };
}
/** The assistant message a client sends back next time (reasoning omitted: it is not resent). */
export function plannedAssistantMessage(plan) {
    const content = [];
    if (plan.text !== undefined && plan.text !== "")
        content.push({ type: "text", text: plan.text });
    for (const call of plan.toolCalls)
        content.push({ type: "tool-call", callId: call.id, name: call.name, arguments: call.arguments });
    return { role: "assistant", content };
}
/** Normalized usage: the cache outcome plus output, then whatever the script pinned. */
export function plannedUsage(plan, cache) {
    const o = plan.usageOverride;
    const reasoning = o.reasoningTokens ?? plan.reasoningTokens;
    return {
        inputTokens: o.inputTokens ?? cache.inputTokens,
        cacheReadTokens: o.cacheReadTokens ?? cache.cacheReadTokens,
        cacheWriteTokens: o.cacheWriteTokens ?? cache.cacheWriteTokens,
        outputTokens: o.outputTokens ?? plan.outputTokens,
        ...(reasoning > 0 ? { reasoningTokens: reasoning } : {}),
    };
}
/**
 * Splits streamed text into pieces of at most `size` code points, at least two when the text
 * has two or more code points, so every client exercises delta accumulation.
 */
export function splitPieces(text, size = 24) {
    const points = Array.from(text);
    if (points.length < 2)
        return [text];
    const step = Math.max(1, Math.min(size, Math.ceil(points.length / 2)));
    const out = [];
    for (let i = 0; i < points.length; i += step)
        out.push(points.slice(i, i + step).join(""));
    return out;
}
function firstStop(text, stop) {
    let best;
    for (const sequence of stop) {
        if (sequence === "")
            continue;
        const at = text.indexOf(sequence);
        if (at >= 0 && (best === undefined || at < best.at))
            best = { at, sequence };
    }
    return best;
}
/** A deterministic stand-in for Anthropic's opaque thinking signature. */
function signatureFor(text) {
    return `EmuSig${createHash("sha256").update(text).digest("base64")}`;
}
//# sourceMappingURL=reply-plan.js.map