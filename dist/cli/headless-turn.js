export const EXIT_CODES = {
    completed: 0,
    error: 1,
    "max-tokens": 3,
    aborted: 4,
    rejected: 5,
    disposed: 6,
    interrupted: 6,
};
export const SYSTEM_PROMPT = "You are Keelson, a careful coding and operations agent working in {{cwd}}. Answer concisely.";
/** Runs the turn and returns the process exit code. */
export async function runHeadlessTurn({ agent, store, handle, prompt, json }) {
    let endedWithNewline = true;
    if (json) {
        agent.hooks.on("session/event", (_agent, event) => {
            process.stdout.write(`${JSON.stringify(event)}\n`);
        });
    }
    else {
        agent.hooks.on("session/event", (_agent, event) => {
            // Each step's text on its own line (a tool step's text, then the answer).
            if (event.type === "step/start" && !endedWithNewline) {
                process.stdout.write("\n");
                endedWithNewline = true;
            }
        });
        agent.hooks.on("llm/chunk", (_agent, chunk) => {
            if (chunk.type !== "text-delta" || chunk.text === "")
                return;
            process.stdout.write(chunk.text);
            endedWithNewline = chunk.text.endsWith("\n");
        });
    }
    const cancel = (signal) => () => agent.cancel(`${signal} received`);
    const onInt = cancel("SIGINT");
    const onTerm = cancel("SIGTERM");
    process.once("SIGINT", onInt);
    process.once("SIGTERM", onTerm);
    try {
        const outcome = await agent.send(prompt);
        if (!json && !endedWithNewline)
            process.stdout.write("\n");
        const reason = outcome.reason;
        const detail = reason.kind === "error"
            ? `: ${reason.message}`
            : reason.kind === "aborted" || reason.kind === "rejected"
                ? `: ${reason.reason}`
                : "";
        process.stderr.write(`keelson: session ${agent.session.id} turn ${outcome.turn} ${reason.kind}${detail}\n`);
        return EXIT_CODES[reason.kind];
    }
    finally {
        process.off("SIGINT", onInt);
        process.off("SIGTERM", onTerm);
        await agent.dispose();
        await store.close();
        await handle.close();
    }
}
//# sourceMappingURL=headless-turn.js.map