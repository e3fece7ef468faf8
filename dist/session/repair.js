const INTERRUPTED = "interrupted: the session ended before this tool call returned";
/**
 * Closers for the open turn tracked by `structure`, in append order; empty if none is open.
 * Crash repair uses the defaults; the loop, ending a turn early, closes only the open step
 * with its own wording (`closeTurn: false`).
 */
export function crashRepairClosers(structure, options = {}) {
    const turn = structure.openTurn;
    if (turn === null)
        return [];
    const out = [];
    const text = options.resultText ?? INTERRUPTED;
    const error = options.error ?? "interrupted";
    if (structure.compactionOpen) {
        out.push({ type: "compact/end", data: { turn, error: "interrupted" } });
    }
    const byModelOrder = (a, b) => a.order - b.order;
    for (const call of [...structure.unloggedCalls.values()].sort(byModelOrder)) {
        out.push({
            type: "tool/call",
            data: { turn: call.turn, step: call.step, callId: call.callId, name: call.name, arguments: call.arguments },
        });
    }
    for (const call of [...structure.unansweredCalls.values(), ...structure.unloggedCalls.values()].sort(byModelOrder)) {
        out.push({
            type: "tool/result",
            data: {
                turn: call.turn,
                step: call.step,
                callId: call.callId,
                content: [{ type: "text", text }],
                isError: true,
                error,
            },
            surfaceOp: "append",
        });
    }
    if (structure.openStep !== null)
        out.push({ type: "step/end", data: { turn, step: structure.openStep } });
    if (options.closeTurn !== false)
        out.push({ type: "turn/end", data: { turn, reason: { kind: "interrupted" } } });
    return out;
}
//# sourceMappingURL=repair.js.map