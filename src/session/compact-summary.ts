// The facts a `compact/summary` event logs, read without a cast. The compactor writes
// `{ turn, model, start, end, regionTokens, summaryTokens, usage? }` (src/compaction), but the
// payload is open JSON that no load validates, so each fact is taken only when it has its type.
import type { Usage } from "../messages/index.js";
import type { CompactSummaryFacts, SessionEvent } from "./types.js";

const USAGE_KEYS = ["inputTokens", "cacheReadTokens", "cacheWriteTokens", "outputTokens"] as const;

const numberOrUndefined = (v: unknown): number | undefined => (typeof v === "number" ? v : undefined);

/** A usage object as logged: its four token counts are numbers. */
function isUsage(value: unknown): value is Usage {
  if (typeof value !== "object" || value === null) return false;
  const u = value as Record<string, unknown>;
  return USAGE_KEYS.every((k) => typeof u[k] === "number");
}

/** What a compaction summary says; a fact missing or logged with another type is `undefined`. */
export function compactSummaryOf(event: SessionEvent<"compact/summary">): CompactSummaryFacts {
  const d = event.data;
  return {
    model: typeof d.model === "string" ? d.model : undefined,
    start: numberOrUndefined(d.start),
    end: numberOrUndefined(d.end),
    regionTokens: numberOrUndefined(d.regionTokens),
    summaryTokens: numberOrUndefined(d.summaryTokens),
    usage: isUsage(d.usage) ? d.usage : undefined,
  };
}
