// The model registry: model id → provider, context window, max output, pricing per bucket.
// Compaction reads context windows; cost reports read prices. Entries are configurable: a
// registry is a plain value users extend or replace.
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
  readonly provider: "anthropic" | "openai" | "deepseek" | "gemini" | "bedrock" | "vertex" | "emulator" | (string & {});
  readonly contextWindow: number;
  readonly maxOutput: number;
  readonly pricing: ModelPricing;
  /** Minimum prompt length (tokens) the provider caches; below it nothing is cached. */
  readonly minCacheableTokens: number;
}

export class ModelRegistryError extends KeelsonError<"unknown-model"> {}

/** Claude on the first-party API (the Bedrock and Vertex entries reuse these values). */
const DEFAULT_CLAUDE: readonly ModelInfo[] = [
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
];

/** Defaults as published in late 2026; prices change — pass your own entries to override. */
export const DEFAULT_MODELS: readonly ModelInfo[] = [
  ...DEFAULT_CLAUDE,
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
  // OpenAI models serve both Chat Completions (`openai:`) and Responses (`openai-responses:`).
  // Published list prices (late 2026); cached input is a 90% discount. GPT-5.6 writes cost 1.25×
  // input (reported as cache_write_tokens); its context window was not published at preview
  // time, so the GPT-5.5 window stands in for it — override the entry when it is.
  {
    id: "gpt-5.6-sol",
    provider: "openai",
    contextWindow: 1_050_000,
    maxOutput: 128_000,
    minCacheableTokens: 1024,
    pricing: { input: 5, cacheRead: 0.5, cacheWrite: 6.25, output: 30 },
  },
  {
    id: "gpt-5.6-terra",
    provider: "openai",
    contextWindow: 1_050_000,
    maxOutput: 128_000,
    minCacheableTokens: 1024,
    pricing: { input: 2.5, cacheRead: 0.25, cacheWrite: 3.125, output: 15 },
  },
  {
    id: "gpt-5.6-luna",
    provider: "openai",
    contextWindow: 1_050_000,
    maxOutput: 128_000,
    minCacheableTokens: 1024,
    pricing: { input: 1, cacheRead: 0.1, cacheWrite: 1.25, output: 6 },
  },
  {
    id: "gpt-5.5",
    provider: "openai",
    contextWindow: 1_050_000,
    maxOutput: 128_000,
    minCacheableTokens: 1024,
    pricing: { input: 5, cacheRead: 0.5, cacheWrite: 5, output: 30 },
  },
  {
    id: "gpt-5.4",
    provider: "openai",
    contextWindow: 1_050_000,
    maxOutput: 128_000,
    minCacheableTokens: 1024,
    pricing: { input: 2.5, cacheRead: 0.25, cacheWrite: 2.5, output: 15 },
  },
  {
    id: "gpt-5.4-mini",
    provider: "openai",
    contextWindow: 400_000,
    maxOutput: 128_000,
    minCacheableTokens: 1024,
    pricing: { input: 0.75, cacheRead: 0.075, cacheWrite: 0.75, output: 4.5 },
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
  // Gemini: prices of the ≤ 200k-token prompt tier; cached input is billed at 10% and implicit
  // caching has no write fee (explicit caches are billed by storage time, which usage cannot show).
  // Minimum cacheable lengths from the implicit-caching docs (2.5: 2,048; 3.x: 4,096 tokens).
  {
    id: "gemini-2.5-pro",
    provider: "gemini",
    contextWindow: 1_048_576,
    maxOutput: 65_536,
    minCacheableTokens: 2048,
    pricing: { input: 1.25, cacheRead: 0.125, cacheWrite: 1.25, output: 10 },
  },
  {
    id: "gemini-2.5-flash",
    provider: "gemini",
    contextWindow: 1_048_576,
    maxOutput: 65_536,
    minCacheableTokens: 2048,
    pricing: { input: 0.3, cacheRead: 0.03, cacheWrite: 0.3, output: 2.5 },
  },
  {
    id: "gemini-3-pro-preview",
    provider: "gemini",
    contextWindow: 1_048_576,
    maxOutput: 65_536,
    minCacheableTokens: 4096,
    pricing: { input: 2, cacheRead: 0.2, cacheWrite: 2, output: 12 },
  },
  {
    id: "gemini-3-flash-preview",
    provider: "gemini",
    contextWindow: 1_048_576,
    maxOutput: 65_536,
    minCacheableTokens: 4096,
    pricing: { input: 0.5, cacheRead: 0.05, cacheWrite: 0.5, output: 3 },
  },
  // Claude on Amazon Bedrock (model ids; cross-region profiles such as `us.…` / `global.…` are
  // not listed: add them with the same values) and Google Vertex AI (`claude-…@date`): the same
  // models, windows and list prices as the first-party API.
  ...claudeOn("bedrock", {
    sonnet: "anthropic.claude-sonnet-4-5-20250929-v1:0",
    haiku: "anthropic.claude-haiku-4-5-20251001-v1:0",
    opus: "anthropic.claude-opus-4-5-20251101-v1:0",
  }),
  ...claudeOn("vertex", {
    sonnet: "claude-sonnet-4-5@20250929",
    haiku: "claude-haiku-4-5@20251001",
    opus: "claude-opus-4-5@20251101",
  }),
  {
    id: "emulator-anthropic",
    provider: "emulator",
    contextWindow: 200_000,
    maxOutput: 8_192,
    minCacheableTokens: 1024,
    pricing: { input: 3, cacheRead: 0.3, cacheWrite: 3.75, output: 15 },
  },
  {
    id: "emulator-gemini",
    provider: "emulator",
    contextWindow: 1_048_576,
    maxOutput: 65_536,
    minCacheableTokens: 2048,
    pricing: { input: 0.3, cacheRead: 0.03, cacheWrite: 0.3, output: 2.5 },
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

/** The first-party Claude entries under another platform's ids. */
function claudeOn(
  provider: "bedrock" | "vertex",
  ids: { readonly sonnet: string; readonly haiku: string; readonly opus: string },
): ModelInfo[] {
  const first = (id: string): ModelInfo => DEFAULT_CLAUDE.find((m) => m.id === id)!;
  return [
    { ...first("claude-sonnet-4-5"), id: ids.sonnet, provider },
    { ...first("claude-haiku-4-5"), id: ids.haiku, provider },
    { ...first("claude-opus-4-5"), id: ids.opus, provider },
  ];
}

export class ModelRegistry {
  readonly #models = new Map<string, ModelInfo>();

  constructor(models: readonly ModelInfo[] = DEFAULT_MODELS) {
    for (const model of models) this.set(model);
  }

  set(model: ModelInfo): void {
    this.#models.set(model.id, Object.freeze({ ...model, pricing: Object.freeze({ ...model.pricing }) }));
  }

  /** Looks up `id` or `provider:id`. */
  find(id: string): ModelInfo | undefined {
    return this.#models.get(id) ?? this.#models.get(id.slice(id.indexOf(":") + 1));
  }

  get(id: string): ModelInfo {
    const model = this.find(id);
    if (model === undefined)
      throw new ModelRegistryError(
        "unknown-model",
        `unknown model ${JSON.stringify(id)}; known: ${[...this.#models.keys()].join(", ")}`,
      );
    return model;
  }

  list(): ModelInfo[] {
    return [...this.#models.values()];
  }
}

/** Cost in USD of one usage record under `pricing`. */
export function usageCost(
  usage: { inputTokens: number; cacheReadTokens: number; cacheWriteTokens: number; outputTokens: number },
  pricing: ModelPricing,
): number {
  return (
    (usage.inputTokens * pricing.input +
      usage.cacheReadTokens * pricing.cacheRead +
      usage.cacheWriteTokens * pricing.cacheWrite +
      usage.outputTokens * pricing.output) /
    1_000_000
  );
}
