// The pressure estimate: system + tool schemas + session prefix + derived history. When the
// header is unchanged since the last assistant message that reported usage, and no replace
// happened since, the estimate is anchored on that usage (what the provider counted, plus the
// output it produced) and only the messages appended after it are estimated.
import type { Message } from "../messages/index.js";
import type { SessionEvent } from "../session/index.js";
import type { Pressure } from "./types.js";

export interface PressureInput {
  readonly events: readonly SessionEvent[];
  /** Seqs of the surface nodes, aligned with `history`. */
  readonly surfaceSeqs: readonly number[];
  readonly history: readonly Message[];
  readonly system: string;
  readonly tools: readonly unknown[];
  readonly prefix: readonly Message[];
  readonly measure: (value: unknown) => number;
}

export function measurePressure(input: PressureInput): Pressure {
  const { measure } = input;
  const system = measure(input.system);
  const tools = input.tools.reduce<number>((n, t) => n + measure(t), 0);
  const prefix = input.prefix.reduce<number>((n, m) => n + measure(m), 0);
  const anchor = lastUsageAnchor(input.events);
  if (anchor !== undefined) {
    const later = input.surfaceSeqs.reduce((n, seq, i) => (seq > anchor.seq ? n + measure(input.history[i]) : n), 0);
    const history = Math.max(0, anchor.total - system - tools - prefix) + later;
    return { system, tools, prefix, history, total: anchor.total + later, anchored: true };
  }
  const history = input.history.reduce((n, m) => n + measure(m), 0);
  return { system, tools, prefix, history, total: system + tools + prefix + history, anchored: false };
}

/** The last reported usage, if nothing since then could have changed what it measured. */
function lastUsageAnchor(events: readonly SessionEvent[]): { seq: number; total: number } | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i]!;
    if (e.type === "request/header" || e.type === "request/header-delta") return undefined; // header changed after it
    if (e.surfaceOp !== undefined && e.surfaceOp !== "append") return undefined; // a replace reshaped history
    if (e.type !== "assistant/message") continue;
    const usage = (e as SessionEvent<"assistant/message">).data.usage;
    if (usage === undefined) return undefined;
    const total = usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens + usage.outputTokens;
    return total > 0 ? { seq: e.seq, total } : undefined;
  }
  return undefined;
}
