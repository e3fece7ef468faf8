import type { JsonObject } from "../json/index.js";
import type { ModelRegistry } from "../llm/index.js";
import type { Usage } from "../messages/index.js";
import type { AnthropicCacheModel, PrefixCacheModel } from "./cache-model.js";
import type { Fault, FaultPlan } from "./faults.js";
import type { SseEvent } from "./sse.js";
import { type Clock, type EmulatorModel, type EmulatorRequest } from "./types.js";
export type Api = "anthropic" | "openai";
/** Server-wide state an exchange reads and advances (counters, caches). */
export interface ExchangeState {
    readonly model: EmulatorModel;
    readonly clock: Clock;
    readonly faults: FaultPlan;
    readonly caches: {
        readonly anthropic: AnthropicCacheModel;
        readonly openai: PrefixCacheModel;
        readonly deepseek: PrefixCacheModel;
    };
    readonly style: "openai" | "deepseek";
    readonly minCacheableTokens: number | undefined;
    readonly registry: ModelRegistry | undefined;
    readonly counters: {
        message: number;
        call: number;
    };
}
/** What the exchange learned, for the request record. */
export interface ExchangeFacts {
    request?: EmulatorRequest;
    fault?: Fault;
    usage?: Usage;
    wireUsage?: JsonObject;
}
export type Outcome = {
    readonly kind: "json";
    readonly body: JsonObject;
} | {
    readonly kind: "sse";
    readonly events: readonly SseEvent[];
} | {
    readonly kind: "stall";
};
/** Runs the call; validation failures, HTTP faults and scripted errors throw WireError. */
export declare function runExchange(state: ExchangeState, api: Api, apiKey: string, body: unknown, facts: ExchangeFacts): Promise<Outcome>;
