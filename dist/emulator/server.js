// startEmulator: the HTTP emulator on 127.0.0.1 (node:http, no framework). It serves
// POST /v1/messages (Anthropic) and POST /v1/chat/completions (OpenAI-compatible; also
// /chat/completions for DeepSeek-style base URLs), checks the API key (x-api-key or Bearer),
// records every request (secrets removed), and writes each exchange's outcome with its fault.
import { createServer } from "node:http";
import { AnthropicCacheModel, PrefixCacheModel } from "./cache-model.js";
import { SimulatedClock } from "./clock.js";
import { runExchange } from "./exchange.js";
import { FaultPlan } from "./faults.js";
import { readBody, sendWireError, stall, writeJsonOutcome, writeSseOutcome } from "./http-io.js";
import { resolveModel } from "./models.js";
import { WireError } from "./types.js";
const SECRET_HEADERS = new Set(["authorization", "x-api-key", "api-key", "cookie", "proxy-authorization"]);
export async function startEmulator(options = {}) {
    const clock = options.clock ?? new SimulatedClock();
    const faults = new FaultPlan(options.faults);
    const state = {
        model: resolveModel(options.model),
        clock,
        faults,
        caches: {
            anthropic: new AnthropicCacheModel({
                clock,
                ...(options.cache?.anthropicTtlMs === undefined ? {} : { ttlMs: options.cache.anthropicTtlMs }),
            }),
            openai: new PrefixCacheModel({ style: "openai", clock, ...options.cache?.openai }),
            deepseek: new PrefixCacheModel({ style: "deepseek", clock, ...options.cache?.deepseek }),
        },
        style: options.style ?? "openai",
        minCacheableTokens: options.minCacheableTokens,
        registry: options.registry,
        counters: { message: 0, call: 0 },
    };
    const requests = [];
    const stalls = new Set();
    let requestCounter = 0;
    const server = createServer((req, res) => {
        const requestId = `req_emu_${String(++requestCounter).padStart(6, "0")}`;
        // handle() answers every failure itself; a rejection here is a bug, so drop the connection.
        handle(req, res, requestId).catch(() => res.destroy());
    });
    async function handle(req, res, requestId) {
        const path = (req.url ?? "/").split("?")[0];
        const api = route(req.method ?? "GET", path);
        const record = {
            method: req.method ?? "GET",
            path,
            headers: redact(req.headers),
            auth: authScheme(req.headers),
            body: undefined,
            api,
            request: undefined,
            sessionKey: undefined,
            status: undefined,
            usage: undefined,
            wireUsage: undefined,
            fault: undefined,
        };
        requests.push(record);
        const format = api ?? (path.startsWith("/v1/messages") ? "anthropic" : "openai");
        res.setHeader(format === "anthropic" ? "request-id" : "x-request-id", requestId);
        const facts = {};
        try {
            const text = await readBody(req);
            const json = parseJson(text);
            record.body = json ?? text;
            if (api === undefined)
                throw new WireError("not-found", `Not found: ${req.method} ${path}`);
            const key = apiKey(req.headers);
            if (key === undefined)
                throw new WireError("authentication", api === "anthropic"
                    ? "x-api-key header is required"
                    : "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).");
            if (json === undefined)
                throw new WireError("invalid-request", "There was an error parsing the body of your request: it is not valid JSON.");
            const outcome = await runExchange(state, api, key, record.body, facts);
            copyFacts(record, facts);
            record.status = 200;
            if (outcome.kind === "stall") {
                res.writeHead(200, {
                    "content-type": facts.request?.stream === true ? "text/event-stream; charset=utf-8" : "application/json",
                });
                res.flushHeaders();
                stall(res, stalls);
            }
            else if (outcome.kind === "json")
                record.status = writeJsonOutcome(res, api, outcome.body, facts.fault, stalls);
            else
                writeSseOutcome(res, outcome.events, {
                    api,
                    fault: facts.fault,
                    faultAfter: facts.fault === undefined ? 0 : faults.afterEvents(facts.fault, outcome.events.length),
                    stalls,
                });
        }
        catch (error) {
            copyFacts(record, facts);
            const wire = error instanceof WireError
                ? error
                : new WireError("api", error instanceof Error ? error.message : String(error));
            record.status = wire.status;
            if (res.headersSent)
                res.destroy();
            else
                sendWireError(res, format, wire, requestId);
        }
    }
    await new Promise((resolve, reject) => {
        server.once("error", reject);
        server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
    });
    const { port } = server.address();
    const url = `http://127.0.0.1:${port}`;
    const releaseStalls = () => {
        const count = stalls.size;
        for (const res of [...stalls])
            res.destroy();
        stalls.clear();
        return count;
    };
    return {
        url,
        anthropicBaseURL: url,
        openaiBaseURL: `${url}/v1`,
        requests,
        faults,
        clock,
        model: state.model,
        caches: state.caches,
        releaseStalls,
        close: () => new Promise((resolve, reject) => {
            releaseStalls();
            server.close((error) => (error === undefined ? resolve() : reject(error)));
            server.closeAllConnections();
        }),
    };
}
function route(method, path) {
    if (method !== "POST")
        return undefined;
    if (path === "/v1/messages")
        return "anthropic";
    if (path === "/v1/chat/completions" || path === "/chat/completions")
        return "openai";
    return undefined;
}
function apiKey(headers) {
    const direct = headers["x-api-key"] ?? headers["api-key"];
    if (typeof direct === "string" && direct !== "")
        return direct;
    const bearer = /^Bearer\s+(\S.*)$/i.exec(headers.authorization ?? "");
    return bearer?.[1];
}
function authScheme(headers) {
    if (typeof headers["x-api-key"] === "string")
        return "x-api-key";
    return /^Bearer\s/i.test(headers.authorization ?? "") ? "bearer" : "none";
}
function redact(headers) {
    const out = {};
    for (const [name, value] of Object.entries(headers)) {
        if (value === undefined || SECRET_HEADERS.has(name))
            continue;
        out[name] = Array.isArray(value) ? value.join(", ") : value;
    }
    return out;
}
function parseJson(text) {
    try {
        return JSON.parse(text);
    }
    catch {
        return undefined;
    }
}
function copyFacts(record, facts) {
    record.request = facts.request;
    record.sessionKey = facts.request?.sessionKey;
    record.usage = facts.usage;
    record.wireUsage = facts.wireUsage;
    record.fault = facts.fault?.kind;
}
//# sourceMappingURL=server.js.map