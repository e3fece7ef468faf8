export function measurePressure(input) {
    const { measure } = input;
    const system = measure(input.system);
    const tools = input.tools.reduce((n, t) => n + measure(t), 0);
    const prefix = input.prefix.reduce((n, m) => n + measure(m), 0);
    const anchor = lastUsageAnchor(input.events);
    if (anchor !== undefined) {
        const later = input.surfaceSeqs.reduce((n, seq, i) => (seq > anchor.seq ? n + measure(input.history[i]) : n), 0);
        const history = Math.max(0, anchor.total - system - tools - prefix) + later;
        return { system, tools, prefix, history, total: anchor.total + later, anchored: true };
    }
    const history = input.history.reduce((n, m) => n + measure(m), 0);
    return { system, tools, prefix, history, total: system + tools + prefix + history, anchored: false };
}
/** The last reported usage, if nothing since then could have changed what it measured. */
function lastUsageAnchor(events) {
    for (let i = events.length - 1; i >= 0; i--) {
        const e = events[i];
        if (e.type === "request/header" || e.type === "request/header-delta")
            return undefined; // header changed after it
        if (e.surfaceOp !== undefined && e.surfaceOp !== "append")
            return undefined; // a replace reshaped history
        if (e.type !== "assistant/message")
            continue;
        const usage = e.data.usage;
        if (usage === undefined)
            return undefined;
        const total = usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens + usage.outputTokens;
        return total > 0 ? { seq: e.seq, total } : undefined;
    }
    return undefined;
}
//# sourceMappingURL=pressure.js.map