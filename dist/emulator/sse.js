// Server-sent events as both wires frame them: `event: <name>\ndata: <json>\n\n` (Anthropic)
// or `data: <json>\n\n` (OpenAI, ending with `data: [DONE]`).
export function formatSse(event) {
    return `${event.event === undefined ? "" : `event: ${event.event}\n`}data: ${event.data}\n\n`;
}
/** Parses a complete SSE body back into events (used by tests and by golden transcripts). */
export function parseSse(body) {
    const events = [];
    for (const frame of body.replace(/\r\n/g, "\n").split("\n\n")) {
        if (frame.trim() === "")
            continue;
        let name;
        const data = [];
        for (const line of frame.split("\n")) {
            if (line.startsWith("event:"))
                name = line.slice(6).trim();
            else if (line.startsWith("data:"))
                data.push(line.slice(5).replace(/^ /, ""));
        }
        events.push(name === undefined ? { data: data.join("\n") } : { event: name, data: data.join("\n") });
    }
    return events;
}
//# sourceMappingURL=sse.js.map