/** Computes which calls and results in `messages` lack their partner within `messages`. */
export function toolPairingBalance(messages) {
    const calls = new Set();
    const results = new Set();
    for (const message of messages) {
        if (message.role === "assistant") {
            for (const block of message.content)
                if (block.type === "tool-call")
                    calls.add(block.callId);
        }
        else if (message.role === "tool") {
            results.add(message.content[0].callId);
        }
    }
    return {
        unansweredCalls: [...calls].filter((id) => !results.has(id)),
        orphanResults: [...results].filter((id) => !calls.has(id)),
    };
}
/** True when every call in `messages` has its result there and every result its call. */
export function isPairingBalanced(messages) {
    const b = toolPairingBalance(messages);
    return b.unansweredCalls.length === 0 && b.orphanResults.length === 0;
}
//# sourceMappingURL=pairing.js.map