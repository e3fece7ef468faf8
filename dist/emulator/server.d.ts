import type { JsonObject } from "../json/index.js";
import type { ModelRegistry } from "../llm/index.js";
import type { Usage } from "../messages/index.js";
import { SimulatedClock } from "./clock.js";
import { type Api, type ExchangeState } from "./exchange.js";
import { FaultPlan, type FaultKind, type FaultOptions } from "./faults.js";
import { type EmulatorModel, type EmulatorModelOption, type EmulatorRequest } from "./types.js";
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
        readonly openai?: {
            readonly minTokens?: number;
            readonly blockTokens?: number;
            readonly ttlMs?: number;
        };
        readonly deepseek?: {
            readonly minTokens?: number;
            readonly blockTokens?: number;
            readonly ttlMs?: number;
        };
    };
    readonly faults?: FaultOptions;
    readonly clock?: SimulatedClock;
}
/** One request as received, with what the emulator made of it. Never holds the API key. */
export interface RecordedRequest {
    readonly method: string;
    readonly path: string;
    /** Request headers without authorization, x-api-key, api-key, cookie. */
    readonly headers: Readonly<Record<string, string>>;
    /** How the key was sent (its value is never kept). */
    readonly auth: "bearer" | "x-api-key" | "none";
    /** Parsed JSON body (the raw text when it was not JSON). */
    readonly body: unknown;
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
    readonly requests: readonly RecordedRequest[];
    readonly faults: FaultPlan;
    readonly clock: SimulatedClock;
    readonly model: EmulatorModel;
    readonly caches: ExchangeState["caches"];
    /** Ends every stalled response by destroying its socket; returns how many there were. */
    releaseStalls(): number;
    close(): Promise<void>;
}
export declare function startEmulator(options?: EmulatorOptions): Promise<EmulatorServer>;
