// cacheReport: a stored session's prompt-cache economics, from the log alone. For every
// reconstructed request: how many tokens the structure says were cacheable (the part unchanged
// since the previous request: tools, then system, then prefix, then the history messages they
// share), what the provider reported (cache reads / writes, uncached input, output), the first
// segment that changed when a request could not reuse the previous one, and the cost under the
// model's pricing. Pure: a fold over events plus a token counter.
import { canonicalJson, type JsonValue } from "../json/index.js";
import { estimateTokens, ModelRegistry, usageCost, valueCounter } from "../llm/core.js";
import type { Usage } from "../messages/index.js";
import { type ReconstructedRequest, reconstructRequests } from "../reconstruct/index.js";
import type { SessionEvent } from "../session/index.js";

export type Segment = "tools" | "system" | "prefix" | "history";

export interface RequestCacheLine {
  readonly turn: number;
  readonly step: number;
  readonly model: string;
  /** Estimated prompt tokens of the whole request. */
  readonly promptTokens: number;
  /** Estimated tokens shared with the previous request (what a prefix cache could serve). */
  readonly cacheableTokens: number;
  /** The first segment that differs from the previous request; null when this one extends it. */
  readonly firstChange: Segment | null;
  /** What the provider reported for this step's final attempt (absent if no usage was logged). */
  readonly usage?: Usage;
  /** USD under the registry's pricing, when the model is known and usage was logged. */
  readonly cost?: number;
}

export interface CacheReport {
  readonly requests: readonly RequestCacheLine[];
  readonly totals: {
    readonly promptTokens: number;
    readonly cacheableTokens: number;
    readonly inputTokens: number;
    readonly cacheReadTokens: number;
    readonly cacheWriteTokens: number;
    readonly outputTokens: number;
    /** Reported cache reads ÷ reported total input. */
    readonly cacheHitShare: number;
    readonly cost: number;
  };
}

export interface CacheReportOptions {
  /** Token counter for text; default ≈ bytes/4 (pass a real tokenizer for precise numbers). */
  readonly countTokens?: (text: string) => number;
  /** Prices per model; default the built-in table (`DEFAULT_MODELS`, src/llm/models.ts). */
  readonly models?: ModelRegistry;
}

/** The built-in price table, made on first use. */
let builtinModels: ModelRegistry | undefined;
function builtinRegistry(): ModelRegistry {
  builtinModels ??= new ModelRegistry();
  return builtinModels;
}

export function cacheReport(events: readonly SessionEvent[], options: CacheReportOptions = {}): CacheReport {
  const tokensOf = valueCounter(options.countTokens ?? estimateTokens);
  const usageByStep = stepUsage(events);
  const lines: RequestCacheLine[] = [];
  let previous: ReconstructedRequest | undefined;
  for (const r of reconstructRequests(events)) {
    const segments = {
      tools: tokensOf(r.request.tools ?? null),
      system: tokensOf(r.request.system ?? null),
      prefix: (r.header.messagePrefix ?? []).reduce((n, m) => n + tokensOf(m), 0),
    };
    const historyTokens = r.history.map((m) => tokensOf(m));
    const promptTokens = segments.tools + segments.system + segments.prefix + historyTokens.reduce((a, b) => a + b, 0);
    const { cacheable, firstChange } =
      previous === undefined ? { cacheable: 0, firstChange: null } : shared(previous, r, segments, historyTokens);
    const usage = usageByStep.get(`${r.turn}.${r.step}`);
    const model = (options.models ?? builtinRegistry()).find(r.request.model);
    lines.push({
      turn: r.turn,
      step: r.step,
      model: r.request.model,
      promptTokens,
      cacheableTokens: cacheable,
      firstChange,
      ...(usage === undefined ? {} : { usage }),
      ...(usage !== undefined && model !== undefined ? { cost: usageCost(usage, model.pricing) } : {}),
    });
    previous = r;
  }
  return { requests: lines, totals: totals(lines) };
}

/** Tokens the two requests share from the start, and the first segment that differs. */
function shared(
  a: ReconstructedRequest,
  b: ReconstructedRequest,
  segments: Record<"tools" | "system" | "prefix", number>,
  historyTokens: number[],
): { cacheable: number; firstChange: Segment | null } {
  const same = (x: unknown, y: unknown): boolean =>
    canonicalJson((x ?? null) as JsonValue) === canonicalJson((y ?? null) as JsonValue);
  if (!same(a.request.tools, b.request.tools)) return { cacheable: 0, firstChange: "tools" };
  if (!same(a.request.system, b.request.system)) return { cacheable: segments.tools, firstChange: "system" };
  if (!same(a.header.messagePrefix, b.header.messagePrefix))
    return { cacheable: segments.tools + segments.system, firstChange: "prefix" };
  let cacheable = segments.tools + segments.system + segments.prefix;
  const n = Math.min(a.history.length, b.history.length);
  let i = 0;
  while (i < n && (a.history[i] === b.history[i] || same(a.history[i], b.history[i]))) cacheable += historyTokens[i++]!;
  return { cacheable, firstChange: i < a.history.length ? "history" : null };
}

/** The usage of each step's assistant message, keyed "turn.step". */
function stepUsage(events: readonly SessionEvent[]): Map<string, Usage> {
  const out = new Map<string, Usage>();
  for (const e of events) {
    if (e.type !== "assistant/message") continue;
    const data = (e as SessionEvent<"assistant/message">).data;
    if (data.usage !== undefined) out.set(`${data.turn}.${data.step}`, data.usage);
  }
  return out;
}

function totals(lines: readonly RequestCacheLine[]): CacheReport["totals"] {
  const sum = (f: (l: RequestCacheLine) => number): number => lines.reduce((n, l) => n + f(l), 0);
  const inputTokens = sum((l) => l.usage?.inputTokens ?? 0);
  const cacheReadTokens = sum((l) => l.usage?.cacheReadTokens ?? 0);
  const cacheWriteTokens = sum((l) => l.usage?.cacheWriteTokens ?? 0);
  const allInput = inputTokens + cacheReadTokens + cacheWriteTokens;
  return {
    promptTokens: sum((l) => l.promptTokens),
    cacheableTokens: sum((l) => l.cacheableTokens),
    inputTokens,
    cacheReadTokens,
    cacheWriteTokens,
    outputTokens: sum((l) => l.usage?.outputTokens ?? 0),
    cacheHitShare: allInput === 0 ? 0 : cacheReadTokens / allInput,
    cost: sum((l) => l.cost ?? 0),
  };
}
