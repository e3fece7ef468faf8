// The model registry: model id → provider, context window, max output, pricing per bucket.
// Compaction reads context windows; cost reports read prices. Entries are configurable: a
// registry is a plain value users extend or replace.
import { KeelsonError } from "../errors/index.js";
export class ModelRegistryError extends KeelsonError {
}
/** Defaults as published in late 2026; prices change — pass your own entries to override. */
export const DEFAULT_MODELS = [
    {
        id: "claude-sonnet-4-5",
        provider: "anthropic",
        contextWindow: 200_000,
        maxOutput: 64_000,
        minCacheableTokens: 1024,
        pricing: { input: 3, cacheRead: 0.3, cacheWrite: 3.75, output: 15 },
    },
    {
        id: "claude-haiku-4-5",
        provider: "anthropic",
        contextWindow: 200_000,
        maxOutput: 64_000,
        minCacheableTokens: 4096,
        pricing: { input: 1, cacheRead: 0.1, cacheWrite: 1.25, output: 5 },
    },
    {
        id: "claude-opus-4-5",
        provider: "anthropic",
        contextWindow: 200_000,
        maxOutput: 64_000,
        minCacheableTokens: 4096,
        pricing: { input: 5, cacheRead: 0.5, cacheWrite: 6.25, output: 25 },
    },
    {
        id: "gpt-5.1",
        provider: "openai",
        contextWindow: 400_000,
        maxOutput: 128_000,
        minCacheableTokens: 1024,
        pricing: { input: 1.25, cacheRead: 0.125, cacheWrite: 1.25, output: 10 },
    },
    {
        id: "gpt-5-mini",
        provider: "openai",
        contextWindow: 400_000,
        maxOutput: 128_000,
        minCacheableTokens: 1024,
        pricing: { input: 0.25, cacheRead: 0.025, cacheWrite: 0.25, output: 2 },
    },
    {
        id: "deepseek-chat",
        provider: "deepseek",
        contextWindow: 128_000,
        maxOutput: 8_000,
        minCacheableTokens: 64,
        pricing: { input: 0.28, cacheRead: 0.028, cacheWrite: 0.28, output: 0.42 },
    },
    {
        id: "deepseek-reasoner",
        provider: "deepseek",
        contextWindow: 128_000,
        maxOutput: 64_000,
        minCacheableTokens: 64,
        pricing: { input: 0.28, cacheRead: 0.028, cacheWrite: 0.28, output: 0.42 },
    },
    {
        id: "emulator-anthropic",
        provider: "emulator",
        contextWindow: 200_000,
        maxOutput: 8_192,
        minCacheableTokens: 1024,
        pricing: { input: 3, cacheRead: 0.3, cacheWrite: 3.75, output: 15 },
    },
    {
        id: "emulator-openai",
        provider: "emulator",
        contextWindow: 128_000,
        maxOutput: 8_192,
        minCacheableTokens: 1024,
        pricing: { input: 1.25, cacheRead: 0.125, cacheWrite: 1.25, output: 10 },
    },
];
export class ModelRegistry {
    #models = new Map();
    constructor(models = DEFAULT_MODELS) {
        for (const model of models)
            this.set(model);
    }
    set(model) {
        this.#models.set(model.id, Object.freeze({ ...model, pricing: Object.freeze({ ...model.pricing }) }));
    }
    /** Looks up `id` or `provider:id`. */
    find(id) {
        return this.#models.get(id) ?? this.#models.get(id.slice(id.indexOf(":") + 1));
    }
    get(id) {
        const model = this.find(id);
        if (model === undefined)
            throw new ModelRegistryError("unknown-model", `unknown model ${JSON.stringify(id)}; known: ${[...this.#models.keys()].join(", ")}`);
        return model;
    }
    list() {
        return [...this.#models.values()];
    }
}
/** Cost in USD of one usage record under `pricing`. */
export function usageCost(usage, pricing) {
    return ((usage.inputTokens * pricing.input +
        usage.cacheReadTokens * pricing.cacheRead +
        usage.cacheWriteTokens * pricing.cacheWrite +
        usage.outputTokens * pricing.output) /
        1_000_000);
}
//# sourceMappingURL=models.js.map