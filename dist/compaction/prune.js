/** Oversized tool results in `history[0..limit)`, largest first. */
export function pruneCandidates(history, sizes, limit, aboveTokens) {
    const out = [];
    for (let i = 0; i < limit; i++) {
        const m = history[i];
        if (m.role !== "tool" || sizes[i] <= aboveTokens)
            continue;
        const r = m.content[0];
        out.push({ index: i, callId: r.callId, content: r.content, isError: r.isError, tokens: sizes[i] });
    }
    return out.sort((a, b) => b.tokens - a.tokens);
}
/** Head and tail of the text (≈ keepTokens each, at 4 bytes per token), with a marker naming what was cut. */
export function prunedContent(content, keepTokens) {
    const text = content.map((p) => (p.type === "text" ? p.text : "[image]")).join("\n");
    const keep = keepTokens * 4;
    if (text.length <= keep * 2)
        return [{ type: "text", text }];
    const cut = text.length - keep * 2;
    return [
        {
            type: "text",
            text: `${text.slice(0, keep)}\n[… ${cut} characters pruned by compaction …]\n${text.slice(-keep)}`,
        },
    ];
}
//# sourceMappingURL=prune.js.map