import { formatSse } from "./sse.js";
import { WireError } from "./types.js";
import { anthropicErrorBody, openaiErrorBody } from "./wire-errors.js";
export const MAX_BODY_BYTES = 32 * 1024 * 1024;
export async function readBody(req) {
    const chunks = [];
    let size = 0;
    for await (const chunk of req) {
        size += chunk.length;
        if (size > MAX_BODY_BYTES)
            throw new WireError("too-large", `Request exceeds the maximum allowed number of bytes (${MAX_BODY_BYTES}).`);
        chunks.push(chunk);
    }
    return Buffer.concat(chunks).toString("utf8");
}
export function sendJson(res, status, body, headers = {}) {
    const text = JSON.stringify(body);
    res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
    res.end(text);
}
export function sendWireError(res, api, error, requestId) {
    const body = api === "anthropic"
        ? anthropicErrorBody(error.code, error.message, requestId)
        : openaiErrorBody(error.code, error.message, error.param);
    sendJson(res, error.status, body, error.headers);
}
export function stall(res, stalls) {
    stalls.add(res);
    res.on("close", () => stalls.delete(res));
}
/** A non-stream response, with the faults that make sense for one; returns the status sent. */
export function writeJsonOutcome(res, api, body, fault, stalls) {
    const text = JSON.stringify(body);
    switch (fault?.kind) {
        case "stream-error": {
            const error = api === "anthropic"
                ? new WireError("overloaded", "Overloaded")
                : new WireError("api", "The server had an error while processing your request. Sorry about that!");
            sendWireError(res, api, error);
            return error.status;
        }
        case "reset":
            res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
            res.write(text.slice(0, Math.floor(text.length / 2)), () => res.destroy());
            return 200;
        case "stall":
            res.writeHead(200, { "content-type": "application/json" });
            res.flushHeaders();
            stall(res, stalls);
            return 200;
        case "malformed-sse":
            sendRaw(res, text.slice(0, Math.floor(text.length / 2)));
            return 200;
        default:
            sendRaw(res, text);
            return 200;
    }
}
function sendRaw(res, text) {
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
    res.end(text);
}
export function writeSseOutcome(res, events, options) {
    res.writeHead(200, {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-cache",
        connection: "keep-alive",
    });
    res.flushHeaders();
    const kind = options.fault?.kind;
    const strike = kind === "stream-error" || kind === "reset" || kind === "stall" || kind === "malformed-sse"
        ? options.faultAfter
        : Number.POSITIVE_INFINITY;
    for (let i = 0; i < events.length; i += 1) {
        if (i === strike) {
            strikeFault(res, events[i], options);
            return;
        }
        const event = events[i];
        if (kind === "missing-done" &&
            i === events.length - 1 &&
            (event.data === "[DONE]" || event.event === "message_stop"))
            break;
        res.write(formatSse(event));
    }
    res.end();
}
function strikeFault(res, next, options) {
    switch (options.fault?.kind) {
        case "stream-error": {
            const error = options.api === "anthropic"
                ? { type: "error", error: { type: "overloaded_error", message: "Overloaded" } }
                : openaiErrorBody("api", "The server had an error while processing your request. Sorry about that!");
            res.end(formatSse(options.api === "anthropic"
                ? { event: "error", data: JSON.stringify(error) }
                : { data: JSON.stringify(error) }));
            return;
        }
        case "reset": {
            const text = formatSse(next);
            res.write(text.slice(0, Math.max(1, Math.floor(text.length / 2))), () => res.destroy());
            return;
        }
        case "stall":
            stall(res, options.stalls);
            return;
        case "malformed-sse":
            res.write(formatSse(options.api === "anthropic"
                ? {
                    event: next.event === undefined || next.event === "ping" ? "content_block_delta" : next.event,
                    data: "{malformed json]]",
                }
                : { data: "{malformed json]]" }));
            res.end();
            return;
        default:
            res.end();
    }
}
//# sourceMappingURL=http-io.js.map