// One emulated API call, independent of sockets: validate the body for its wire, draw the
// fault, ask the model, account the prompt cache, plan the reply and render it — returning
// what to send (JSON, an SSE event list, or a stall). The server only writes the outcome.
import { createHash } from "node:crypto";
import { anthropicEvents, anthropicMessage, anthropicUsage } from "./anthropic-render.js";
import { parseAnthropicRequest } from "./anthropic-wire.js";
import { messageSegment } from "./message-tokens.js";
import { openaiChunks, openaiCompletion, openaiUsage } from "./openai-render.js";
import { parseOpenAIRequest } from "./openai-wire.js";
import { plannedAssistantMessage, plannedUsage, planReply } from "./reply-plan.js";
import { WireError } from "./types.js";
import { failureToWireError } from "./wire-errors.js";
/** Runs the call; validation failures, HTTP faults and scripted errors throw WireError. */
export async function runExchange(state, api, apiKey, body, facts) {
    const parsed = api === "anthropic" ? parseAnthropicRequest(body) : parseOpenAIRequest(body);
    const request = parsed.request;
    facts.request = request;
    const fault = state.faults.take();
    if (fault !== undefined)
        facts.fault = fault;
    const httpFault = fault === undefined ? undefined : state.faults.httpError(fault);
    if (httpFault !== undefined)
        throw httpFault;
    let reply;
    try {
        reply = await state.model.reply(request);
    }
    catch (error) {
        throw new WireError("api", error instanceof Error ? error.message : String(error));
    }
    if (reply === "hang")
        return { kind: "stall" };
    if ("throws" in reply)
        throw new WireError("api", reply.throws.message);
    if ("error" in reply)
        throw failureToWireError(reply.error);
    const prefix = api === "anthropic" ? "toolu_emu_" : "call_emu_";
    const plan = planReply(reply, {
        maxTokens: request.maxTokens,
        stop: request.stop,
        nextCallId: () => `${prefix}${String(++state.counters.call).padStart(6, "0")}`,
    });
    const namespace = `${createHash("sha256").update(apiKey).digest("hex").slice(0, 16)}:${request.model}`;
    const id = ++state.counters.message;
    const deepseek = api === "openai" && (state.style === "deepseek" || request.model.startsWith("deepseek"));
    let cache;
    if ("blocks" in parsed) {
        const min = state.minCacheableTokens ?? state.registry?.find(request.model)?.minCacheableTokens;
        cache = state.caches.anthropic.apply(namespace, parsed.blocks, min === undefined ? {} : { minCacheableTokens: min });
    }
    else {
        const model = deepseek ? state.caches.deepseek : state.caches.openai;
        const { promptTokens, cachedTokens } = model.apply(namespace, parsed.segments, deepseek ? messageSegment(plannedAssistantMessage(plan)) : undefined);
        cache = { inputTokens: promptTokens - cachedTokens, cacheReadTokens: cachedTokens, cacheWriteTokens: 0 };
    }
    const usage = plannedUsage(plan, cache);
    facts.usage = usage;
    if ("blocks" in parsed) {
        facts.wireUsage = anthropicUsage(usage);
        const ctx = { id: `msg_emu_${String(id).padStart(6, "0")}`, model: request.model, usage };
        return request.stream
            ? { kind: "sse", events: anthropicEvents(plan, ctx) }
            : { kind: "json", body: anthropicMessage(plan, ctx) };
    }
    facts.wireUsage = openaiUsage(usage, deepseek);
    const ctx = {
        id: `chatcmpl-emu-${String(id).padStart(6, "0")}`,
        model: request.model,
        created: Math.floor(state.clock.now() / 1000),
        usage,
        deepseek,
    };
    return request.stream
        ? { kind: "sse", events: openaiChunks(plan, ctx, parsed.includeUsage) }
        : { kind: "json", body: openaiCompletion(plan, ctx) };
}
//# sourceMappingURL=exchange.js.map