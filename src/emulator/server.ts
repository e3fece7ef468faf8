// startEmulator: the HTTP emulator on 127.0.0.1 (node:http, no framework). It serves
// POST /v1/messages (Anthropic), POST /v1/chat/completions (OpenAI-compatible; also
// /chat/completions for DeepSeek-style base URLs), POST /v1/responses (OpenAI Responses) and
// POST /v1beta/models/<model>:streamGenerateContent?alt=sse / :generateContent (Gemini) and
// Gemini's explicit caches (POST /v1beta/cachedContents, GET/PATCH/DELETE …/<id>), checks
// the API key (x-api-key, x-goog-api-key, Bearer, or an AWS SigV4 signature), and Claude on
// Bedrock (/model/<id>/invoke-with-response-stream) and Vertex (…/publishers/anthropic/models/
// <model>:streamRawPredict) — the Anthropic wire behind the platforms' routes (anthropic-platforms.ts),
// records every request (secrets removed), and writes each exchange's outcome with its fault.
import { errorMessage } from "../errors/index.js";
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { JsonObject } from "../json/index.js";
import type { ModelRegistry } from "../llm/index.js";
import type { Usage } from "../messages/index.js";
import { AnthropicCacheModel, PrefixCacheModel } from "./cache-model.js";
import { SimulatedClock } from "./clock.js";
import {
  type Api,
  type ExchangeFacts,
  type ExchangeState,
  GEMINI_DEFAULT_MIN_CACHEABLE,
  type GeminiRoute,
  type Outcome,
  keyNamespace,
  runExchange,
} from "./exchange.js";
import { type PlatformRoute, platformBody, platformRoute } from "./anthropic-platforms.js";
import { GeminiCacheStore, geminiCacheRoute } from "./gemini-caches.js";
import { geminiCachedTokens } from "./gemini-wire.js";
import { FaultPlan, type FaultKind, type FaultOptions } from "./faults.js";
import { loadTokenizer } from "./tokenizer.js";
import {
  readBody,
  sendJson,
  sendWireError,
  type StallSet,
  stall,
  writeJsonOutcome,
  writeSseOutcome,
} from "./http-io.js";
import { resolveModel } from "./models.js";
import { type EmulatorModel, type EmulatorModelOption, type EmulatorRequest, WireError } from "./types.js";

export interface EmulatorOptions {
  /** Only loopback is served; the option exists to make that explicit. */
  readonly host?: "127.0.0.1";
  /** 0 (default) picks a free port. */
  readonly port?: number;
  readonly model?: EmulatorModelOption;
  /** Usage style of the OpenAI endpoint (model names starting with `deepseek` are always DeepSeek style). */
  readonly style?: "openai" | "deepseek";
  /** Anthropic minimum cacheable prefix; default: the registry's value for the model, else 1024. */
  readonly minCacheableTokens?: number;
  /** Looked up for per-model minimum cacheable lengths when `minCacheableTokens` is not set. */
  readonly registry?: ModelRegistry;
  readonly cache?: {
    readonly anthropicTtlMs?: number;
    readonly openai?: { readonly minTokens?: number; readonly blockTokens?: number; readonly ttlMs?: number };
    readonly deepseek?: { readonly minTokens?: number; readonly blockTokens?: number; readonly ttlMs?: number };
    /** Gemini implicit caching; the minimum is per model (registry), `minTokens` the fallback. */
    readonly gemini?: { readonly minTokens?: number; readonly blockTokens?: number; readonly ttlMs?: number };
    /** Gemini explicit caches (`cachedContents`): the smallest prompt a cache may hold (default 1024). */
    readonly geminiExplicit?: { readonly minTokens?: number };
  };
  readonly faults?: FaultOptions;
  readonly clock?: SimulatedClock;
  /** Keep each request body's raw text (`RecordedRequest.rawBody`), for byte-exact comparisons. Default false. */
  readonly keepRawBodies?: boolean;
  /**
   * How many of the latest requests `requests` keeps (default: every one — what a test reads). A
   * long-running emulator (a demo server) sets a bound: each record holds its whole body.
   */
  readonly keepRequests?: number;
}

/** One request as received, with what the emulator made of it. Never holds the API key. */
export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  /** Request headers without authorization, x-api-key, api-key, cookie. */
  readonly headers: Readonly<Record<string, string>>;
  /** How the key was sent (its value is never kept). */
  readonly auth: "bearer" | "x-api-key" | "x-goog-api-key" | "sigv4" | "none";
  /** Parsed JSON body (the raw text when it was not JSON). */
  readonly body: unknown;
  /** The body exactly as received (UTF-8 text), when the server keeps raw bodies. */
  readonly rawBody: string | undefined;
  readonly api: Api | undefined;
  readonly request: EmulatorRequest | undefined;
  readonly sessionKey: string | undefined;
  readonly status: number | undefined;
  /** Normalized usage returned, and the wire usage object as sent. */
  readonly usage: Usage | undefined;
  readonly wireUsage: JsonObject | undefined;
  readonly fault: FaultKind | undefined;
}

export interface EmulatorServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** For `new Anthropic({ baseURL })` — without `/v1`. */
  readonly anthropicBaseURL: string;
  /** For `new OpenAI({ baseURL })` — with `/v1`. */
  readonly openaiBaseURL: string;
  /** For `new GoogleGenAI({ httpOptions: { baseUrl } })` — the root (the SDK adds `/v1beta`). */
  readonly geminiBaseURL: string;
  /** For `AnthropicProvider({ platform: "bedrock", baseURL })` — the root (routes `/model/<id>/…`). */
  readonly bedrockBaseURL: string;
  /** For `AnthropicProvider({ platform: "vertex", baseURL })` — with `/v1`. */
  readonly vertexBaseURL: string;
  readonly requests: readonly RecordedRequest[];
  readonly faults: FaultPlan;
  readonly clock: SimulatedClock;
  readonly model: EmulatorModel;
  readonly caches: ExchangeState["caches"];
  /** Ends every stalled response by destroying its socket; returns how many there were. */
  releaseStalls(): number;
  close(): Promise<void>;
}

type MutableRecord = { -readonly [K in keyof RecordedRequest]: RecordedRequest[K] };

const SECRET_HEADERS = new Set([
  "authorization",
  "x-api-key",
  "x-goog-api-key",
  "api-key",
  "cookie",
  "proxy-authorization",
]);

/** One running emulator: what every exchange reads and updates, what it recorded, its stalled responses. */
interface EmulatorState {
  readonly clock: SimulatedClock;
  readonly exchange: ExchangeState;
  readonly keepRawBodies: boolean;
  readonly keepRequests: number;
  readonly requests: RecordedRequest[];
  readonly stalls: StallSet;
  /** Requests answered so far (each gets `req_emu_<n>`). */
  requestCount: number;
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<EmulatorServer> {
  loadTokenizer(); // a missing js-tiktoken fails here, not as a 500 to the first request
  const keepRequests = options.keepRequests ?? Number.POSITIVE_INFINITY;
  if (!(keepRequests === Number.POSITIVE_INFINITY || (Number.isSafeInteger(keepRequests) && keepRequests >= 0)))
    throw new RangeError(`startEmulator: keepRequests must be an integer ≥ 0, got ${String(options.keepRequests)}`);
  const clock = options.clock ?? new SimulatedClock();
  const emulator: EmulatorState = {
    clock,
    exchange: exchangeState(options, clock),
    keepRawBodies: options.keepRawBodies === true,
    keepRequests,
    requests: [],
    stalls: new Set(),
    requestCount: 0,
  };
  const server = createServer((req, res) => {
    const requestId = `req_emu_${String(++emulator.requestCount).padStart(6, "0")}`;
    // handle() answers every failure itself; a rejection here is a bug, so drop the connection.
    handle(emulator, req, res, requestId).catch(() => res.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  const { exchange } = emulator;
  return {
    url,
    anthropicBaseURL: url,
    openaiBaseURL: `${url}/v1`,
    geminiBaseURL: url,
    bedrockBaseURL: url,
    vertexBaseURL: `${url}/v1`,
    requests: emulator.requests,
    faults: exchange.faults,
    clock: emulator.clock,
    model: exchange.model,
    caches: exchange.caches,
    releaseStalls: () => releaseStalls(emulator.stalls),
    close: () =>
      new Promise<void>((resolve, reject) => {
        releaseStalls(emulator.stalls);
        server.close((error) => (error === undefined ? resolve() : reject(error)));
        server.closeAllConnections();
      }),
  };
}

/** The state every exchange shares: the model, the clock, the fault plan, the cache models, the counters. */
function exchangeState(options: EmulatorOptions, clock: SimulatedClock): ExchangeState {
  const faults = new FaultPlan(options.faults);
  return {
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
      gemini: new PrefixCacheModel({
        style: "openai",
        clock,
        minTokens: GEMINI_DEFAULT_MIN_CACHEABLE,
        blockTokens: 1,
        ...options.cache?.gemini,
      }),
      geminiExplicit: new GeminiCacheStore({
        clock,
        count: geminiCachedTokens,
        ...(options.cache?.geminiExplicit?.minTokens === undefined
          ? {}
          : { minTokens: options.cache.geminiExplicit.minTokens }),
      }),
    },
    style: options.style ?? "openai",
    minCacheableTokens: options.minCacheableTokens,
    registry: options.registry,
    counters: { message: 0, call: 0 },
  };
}

/** Ends every stalled response by destroying its socket; returns how many there were. */
function releaseStalls(stalls: StallSet): number {
  const count = stalls.size;
  for (const res of [...stalls]) res.destroy();
  stalls.clear();
  return count;
}

/** One request: recorded, checked (route, key, JSON body), then answered as the exchange decides; every failure is a wire error. */
async function handle(
  emulator: EmulatorState,
  req: IncomingMessage,
  res: ServerResponse,
  requestId: string,
): Promise<void> {
  const path = (req.url ?? "/").split("?")[0]!;
  const gemini = geminiRoute(req.method ?? "GET", path);
  const cacheRoute = geminiCacheRoute(req.method ?? "GET", path);
  const platform = platformRoute(req.method ?? "GET", path);
  const api =
    gemini !== undefined || cacheRoute !== undefined
      ? "gemini"
      : platform !== undefined
        ? "anthropic"
        : route(req.method ?? "GET", path);
  const record = recordOf(req, path, api);
  emulator.requests.push(record);
  if (emulator.requests.length > emulator.keepRequests)
    emulator.requests.splice(0, emulator.requests.length - emulator.keepRequests);
  const format: Api =
    api ?? (path.startsWith("/v1/messages") ? "anthropic" : path.startsWith("/v1beta/") ? "gemini" : "openai");
  res.setHeader(format === "anthropic" ? "request-id" : "x-request-id", requestId);
  const facts: ExchangeFacts = {};
  try {
    const text = await readBody(req);
    const json = parseJson(text);
    record.body = json ?? text;
    if (emulator.keepRawBodies) record.rawBody = text;
    if (api === undefined) throw new WireError("not-found", `Not found: ${req.method} ${path}`);
    const key = apiKey(req.headers);
    if (key === undefined)
      throw new WireError(
        "authentication",
        api === "anthropic"
          ? "x-api-key header is required"
          : api === "gemini"
            ? "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API."
            : "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
      );
    if (cacheRoute !== undefined) {
      // ai.caches.* — create / get / update / delete (GET and DELETE have no body)
      const answerBody = emulator.exchange.caches.geminiExplicit.handle(cacheRoute, keyNamespace(key), json);
      record.status = 200;
      sendJson(res, 200, answerBody);
      return;
    }
    if (json === undefined)
      throw new WireError(
        "invalid-request",
        "There was an error parsing the body of your request: it is not valid JSON.",
      );
    const body = platform === undefined ? record.body : platformBody(record.body, platform);
    const outcome = await runExchange(emulator.exchange, api, key, body, facts, gemini);
    copyFacts(record, facts);
    record.status = 200;
    answer(emulator, res, api, outcome, facts, record, platform);
  } catch (error) {
    copyFacts(record, facts);
    const wire = error instanceof WireError ? error : new WireError("api", errorMessage(error));
    record.status = wire.status;
    if (res.headersSent) res.destroy();
    else sendWireError(res, format, wire, requestId);
  }
}

/** A request as received, before its body is read (headers without secrets, how the key was sent). */
function recordOf(req: IncomingMessage, path: string, api: Api | undefined): MutableRecord {
  return {
    method: req.method ?? "GET",
    path,
    headers: redact(req.headers),
    auth: authScheme(req.headers),
    body: undefined,
    rawBody: undefined,
    api,
    request: undefined,
    sessionKey: undefined,
    status: undefined,
    usage: undefined,
    wireUsage: undefined,
    fault: undefined,
  };
}

/** Writes an exchange's outcome: a stall (headers only), a JSON body, or an SSE stream, each with its fault. */
function answer(
  emulator: EmulatorState,
  res: ServerResponse,
  api: Api,
  outcome: Outcome,
  facts: ExchangeFacts,
  record: MutableRecord,
  platform?: PlatformRoute,
): void {
  const { stalls } = emulator;
  if (outcome.kind === "stall") {
    res.writeHead(200, {
      "content-type": facts.request?.stream === true ? "text/event-stream; charset=utf-8" : "application/json",
    });
    res.flushHeaders();
    stall(res, stalls);
  } else if (outcome.kind === "json") record.status = writeJsonOutcome(res, api, outcome.body, facts.fault, stalls);
  else
    writeSseOutcome(res, outcome.events, {
      api,
      fault: facts.fault,
      faultAfter:
        facts.fault === undefined ? 0 : emulator.exchange.faults.afterEvents(facts.fault, outcome.events.length),
      stalls,
      framing: platform?.platform === "bedrock" ? "aws-eventstream" : "sse",
    });
}

function route(method: string, path: string): Api | undefined {
  if (method !== "POST") return undefined;
  if (path === "/v1/messages") return "anthropic";
  if (path === "/v1/chat/completions" || path === "/chat/completions") return "openai";
  if (path === "/v1/responses" || path === "/responses") return "responses";
  return undefined;
}

/** `/v1beta/models/<model>:streamGenerateContent` or `:generateContent` (also `/v1/…`), POST only. */
function geminiRoute(method: string, path: string): GeminiRoute | undefined {
  if (method !== "POST") return undefined;
  const match = /^\/v1(?:beta)?\/models\/([^/:]+):(streamGenerateContent|generateContent)$/.exec(path);
  if (match === null) return undefined;
  return { model: decodeURIComponent(match[1]!), stream: match[2] === "streamGenerateContent" };
}

function apiKey(headers: IncomingHttpHeaders): string | undefined {
  const direct = headers["x-api-key"] ?? headers["x-goog-api-key"] ?? headers["api-key"];
  if (typeof direct === "string" && direct !== "") return direct;
  const bearer = /^Bearer\s+(\S.*)$/i.exec(headers.authorization ?? "");
  if (bearer !== null) return bearer[1];
  // AWS SigV4 (Bedrock): the access key id names the caller; the signature is not checked.
  return /^AWS4-HMAC-SHA256\s+Credential=([^/,\s]+)\//.exec(headers.authorization ?? "")?.[1];
}

function authScheme(headers: IncomingHttpHeaders): RecordedRequest["auth"] {
  if (typeof headers["x-api-key"] === "string") return "x-api-key";
  if (typeof headers["x-goog-api-key"] === "string") return "x-goog-api-key";
  if (/^AWS4-HMAC-SHA256\s/.test(headers.authorization ?? "")) return "sigv4";
  return /^Bearer\s/i.test(headers.authorization ?? "") ? "bearer" : "none";
}

function redact(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || SECRET_HEADERS.has(name)) continue;
    out[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function copyFacts(record: MutableRecord, facts: ExchangeFacts): void {
  record.request = facts.request;
  record.sessionKey = facts.request?.sessionKey;
  record.usage = facts.usage;
  record.wireUsage = facts.wireUsage;
  record.fault = facts.fault?.kind;
}
