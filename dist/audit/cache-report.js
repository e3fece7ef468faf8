// cacheReport: a stored session's prompt-cache economics, from the log alone. For every
// reconstructed request: how many tokens the structure says were cacheable (the part unchanged
// since the previous request: tools, then system, then prefix, then the history messages they
// share), what the provider reported (cache reads / writes, uncached input, output), the first
// segment that changed when a request could not reuse the previous one, and the cost under the
// model's pricing. Pure: a fold over events plus a token counter.
import { canonicalJson } from "../json/index.js";
import { estimateTokens, usageCost, valueCounter } from "../llm/core.js";
import { reconstructRequests } from "../reconstruct/index.js";
export function cacheReport(events, options = {}) {
    const tokensOf = valueCounter(options.countTokens ?? estimateTokens);
    const usageByStep = stepUsage(events);
    const lines = [];
    let previous;
    for (const r of reconstructRequests(events)) {
        const segments = {
            tools: tokensOf(r.request.tools ?? null),
            system: tokensOf(r.request.system ?? null),
            prefix: (r.header.messagePrefix ?? []).reduce((n, m) => n + tokensOf(m), 0),
        };
        const historyTokens = r.history.map((m) => tokensOf(m));
        const promptTokens = segments.tools + segments.system + segments.prefix + historyTokens.reduce((a, b) => a + b, 0);
        const { cacheable, firstChange } = previous === undefined ? { cacheable: 0, firstChange: null } : shared(previous, r, segments, historyTokens);
        const usage = usageByStep.get(`${r.turn}.${r.step}`);
        const model = options.models?.find(r.request.model);
        lines.push({
            turn: r.turn,
            step: r.step,
            model: r.request.model,
            promptTokens,
            cacheableTokens: cacheable,
            firstChange,
            ...(usage === undefined ? {} : { usage }),
            ...(usage !== undefined && model !== undefined ? { cost: usageCost(usage, model.pricing) } : {}),
        });
        previous = r;
    }
    return { requests: lines, totals: totals(lines) };
}
/** Tokens the two requests share from the start, and the first segment that differs. */
function shared(a, b, segments, historyTokens) {
    const same = (x, y) => canonicalJson((x ?? null)) === canonicalJson((y ?? null));
    if (!same(a.request.tools, b.request.tools))
        return { cacheable: 0, firstChange: "tools" };
    if (!same(a.request.system, b.request.system))
        return { cacheable: segments.tools, firstChange: "system" };
    if (!same(a.header.messagePrefix, b.header.messagePrefix))
        return { cacheable: segments.tools + segments.system, firstChange: "prefix" };
    let cacheable = segments.tools + segments.system + segments.prefix;
    const n = Math.min(a.history.length, b.history.length);
    let i = 0;
    while (i < n && (a.history[i] === b.history[i] || same(a.history[i], b.history[i])))
        cacheable += historyTokens[i++];
    return { cacheable, firstChange: i < a.history.length ? "history" : null };
}
/** The usage of each step's assistant message, keyed "turn.step". */
function stepUsage(events) {
    const out = new Map();
    for (const e of events) {
        if (e.type !== "assistant/message")
            continue;
        const data = e.data;
        if (data.usage !== undefined)
            out.set(`${data.turn}.${data.step}`, data.usage);
    }
    return out;
}
function totals(lines) {
    const sum = (f) => lines.reduce((n, l) => n + f(l), 0);
    const inputTokens = sum((l) => l.usage?.inputTokens ?? 0);
    const cacheReadTokens = sum((l) => l.usage?.cacheReadTokens ?? 0);
    const cacheWriteTokens = sum((l) => l.usage?.cacheWriteTokens ?? 0);
    const allInput = inputTokens + cacheReadTokens + cacheWriteTokens;
    return {
        promptTokens: sum((l) => l.promptTokens),
        cacheableTokens: sum((l) => l.cacheableTokens),
        inputTokens,
        cacheReadTokens,
        cacheWriteTokens,
        outputTokens: sum((l) => l.usage?.outputTokens ?? 0),
        cacheHitShare: allInput === 0 ? 0 : cacheReadTokens / allInput,
        cost: sum((l) => l.cost ?? 0),
    };
}
//# sourceMappingURL=cache-report.js.map