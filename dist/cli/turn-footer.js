import { isEventOf } from "../session/index.js";
const ZERO = { inputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 0 };
/**
 * Sums what turn `turn` cost over `events` (every logged event, in order): the usage of its
 * assistant messages and of any compaction summary call made inside it, and the steps that
 * reached the provider (a step that ended before dispatch is not counted).
 */
export function tallyTurn(events, turn) {
    let usage = ZERO;
    let steps = 0;
    let inside = false;
    let reason;
    for (const event of events) {
        if (isEventOf(event, "turn/start"))
            inside = event.data.turn === turn;
        if (!inside)
            continue;
        if (isEventOf(event, "step/start"))
            steps++;
        else if (isEventOf(event, "step/end") && event.data.dispatched === false)
            steps--;
        else if (isEventOf(event, "assistant/message") && event.data.usage !== undefined)
            usage = add(usage, event.data.usage);
        else if (isEventOf(event, "compact/summary") && isUsage(event.data.usage))
            usage = add(usage, event.data.usage);
        else if (isEventOf(event, "turn/end")) {
            reason = event.data.reason;
            inside = false;
        }
    }
    return { turn, steps, usage, ...(reason === undefined ? {} : { reason }) };
}
function add(a, b) {
    return {
        inputTokens: a.inputTokens + b.inputTokens,
        cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
        cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
        outputTokens: a.outputTokens + b.outputTokens,
    };
}
/** A compaction summary's usage as logged (the event payload is open JSON, so it is checked). */
function isUsage(value) {
    if (typeof value !== "object" || value === null)
        return false;
    const u = value;
    return ["inputTokens", "cacheReadTokens", "cacheWriteTokens", "outputTokens"].every((k) => typeof u[k] === "number");
}
/** Share of prompt tokens read from the cache (undefined when nothing was billed). */
export function cacheHitShare(usage) {
    const prompt = usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
    return prompt === 0 ? undefined : usage.cacheReadTokens / prompt;
}
const count = (n) => n.toLocaleString("en-US");
/** One line: `── turn 2 · 3 steps · input 120 · cache read 3,400 · … · $0.00123 · completed`. */
export function formatFooter(tally, cost) {
    const u = tally.usage;
    const share = cacheHitShare(u);
    const parts = [
        `turn ${tally.turn}`,
        `${tally.steps} step${tally.steps === 1 ? "" : "s"}`,
        `input ${count(u.inputTokens)}`,
        `cache read ${count(u.cacheReadTokens)}`,
        `cache write ${count(u.cacheWriteTokens)}`,
        `output ${count(u.outputTokens)}`,
        `cache hit ${share === undefined ? "-" : `${(share * 100).toFixed(1)}%`}`,
        cost === undefined ? "cost n/a" : `$${cost.toFixed(5)}`,
    ];
    if (tally.reason !== undefined)
        parts.push(describeReason(tally.reason));
    return `── ${parts.join(" · ")}`;
}
export function describeReason(reason) {
    switch (reason.kind) {
        case "error":
            return `error: ${reason.message}`;
        case "aborted":
        case "rejected":
            return `${reason.kind}: ${reason.reason}`;
        default:
            return reason.kind;
    }
}
//# sourceMappingURL=turn-footer.js.map