import { cacheHitShare } from "./turn-footer.js";
const BAR_WIDTH = 20;
/** The report for `session` (src/audit cacheReport with the emulator's cl100k tokenizer and the default ModelRegistry). */
export async function cacheReportOf(session) {
    // Heavy layers (the SDKs behind llm) load only in the commands that need them.
    const [{ cacheReport }, { countTokens }, { ModelRegistry }] = await Promise.all([
        import("../audit/index.js"),
        import("../emulator/index.js"),
        import("../llm/index.js"),
    ]);
    return cacheReport(session.events, { countTokens, models: new ModelRegistry() });
}
export async function renderCacheReport(session) {
    const report = await cacheReportOf(session);
    const out = [
        `cache report for session ${session.id} (${report.requests.length} requests; ≈ = estimated with cl100k)`,
        "",
    ];
    out.push(`${"request".padEnd(8)} ${"prompt≈".padStart(8)} ${"cacheable≈".padStart(10)} ${"read".padStart(7)} ${"write".padStart(7)} ${"input".padStart(7)} ${"output".padStart(7)}  ${"read share".padEnd(BAR_WIDTH + 5)}  first change`);
    for (const line of report.requests) {
        const u = line.usage;
        const share = u === undefined ? undefined : cacheHitShare(u);
        out.push([
            `${line.turn}.${line.step}`.padEnd(8),
            String(line.promptTokens).padStart(8),
            String(line.cacheableTokens).padStart(10),
            num(u?.cacheReadTokens),
            num(u?.cacheWriteTokens),
            num(u?.inputTokens),
            num(u?.outputTokens),
            ` ${shareBar(share)}`,
            ` ${line.firstChange ?? (line === report.requests[0] ? "(first request)" : "(extends previous)")}`,
        ].join(" "));
    }
    const t = report.totals;
    out.push("", `totals: prompt≈${t.promptTokens} cacheable≈${t.cacheableTokens} · read ${t.cacheReadTokens} · write ${t.cacheWriteTokens} · input ${t.inputTokens} · output ${t.outputTokens}`, `cache-hit share ${(t.cacheHitShare * 100).toFixed(1)}% · cost $${t.cost.toFixed(5)}`);
    return out.join("\n");
}
function num(value) {
    return String(value ?? "-").padStart(7);
}
/** A fixed-width bar of a 0..1 share plus its percentage; blank when nothing was reported. */
export function shareBar(share, width = BAR_WIDTH) {
    if (share === undefined)
        return `${"·".repeat(width)}    -`;
    const filled = Math.round(share * width);
    return `${"█".repeat(filled)}${"░".repeat(width - filled)} ${`${Math.round(share * 100)}%`.padStart(4)}`;
}
//# sourceMappingURL=cache-table.js.map