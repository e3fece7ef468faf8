import { KeelsonError } from "../errors/index.js";
/** USD per million tokens, per usage bucket. */
export interface ModelPricing {
    readonly input: number;
    readonly cacheRead: number;
    readonly cacheWrite: number;
    readonly output: number;
}
export interface ModelInfo {
    /** The id as sent to the provider (without the `provider:` prefix). */
    readonly id: string;
    readonly provider: "anthropic" | "openai" | "deepseek" | "emulator" | (string & {});
    readonly contextWindow: number;
    readonly maxOutput: number;
    readonly pricing: ModelPricing;
    /** Minimum prompt length (tokens) the provider caches; below it nothing is cached. */
    readonly minCacheableTokens: number;
}
export declare class ModelRegistryError extends KeelsonError<"unknown-model"> {
}
/** Defaults as published in late 2026; prices change — pass your own entries to override. */
export declare const DEFAULT_MODELS: readonly ModelInfo[];
export declare class ModelRegistry {
    #private;
    constructor(models?: readonly ModelInfo[]);
    set(model: ModelInfo): void;
    /** Looks up `id` or `provider:id`. */
    find(id: string): ModelInfo | undefined;
    get(id: string): ModelInfo;
    list(): ModelInfo[];
}
/** Cost in USD of one usage record under `pricing`. */
export declare function usageCost(usage: {
    inputTokens: number;
    cacheReadTokens: number;
    cacheWriteTokens: number;
    outputTokens: number;
}, pricing: ModelPricing): number;
