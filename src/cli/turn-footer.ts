// The per-turn footer chat prints after each turn: the turn's summed usage (input, cache read,
// cache write, output tokens), its cache-hit share, its cost under the model registry's pricing,
// and how the turn ended. Pure: a fold over the turn's session events.
import type { Usage } from "../messages/index.js";
import { isEventOf, type SessionEvent, type TurnEndReason } from "../session/index.js";

export interface TurnTally {
  readonly turn: number;
  readonly steps: number;
  readonly usage: Usage;
  readonly reason?: TurnEndReason;
}

const ZERO: Usage = { inputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 0 };

/** Sums the usage of turn `turn` over `events` (every logged event, in order). */
export function tallyTurn(events: readonly SessionEvent[], turn: number): TurnTally {
  let usage = ZERO;
  let steps = 0;
  let reason: TurnEndReason | undefined;
  for (const event of events) {
    if (isEventOf(event, "step/start") && event.data.turn === turn) steps++;
    else if (isEventOf(event, "assistant/message") && event.data.turn === turn && event.data.usage !== undefined) {
      const u = event.data.usage;
      usage = {
        inputTokens: usage.inputTokens + u.inputTokens,
        cacheReadTokens: usage.cacheReadTokens + u.cacheReadTokens,
        cacheWriteTokens: usage.cacheWriteTokens + u.cacheWriteTokens,
        outputTokens: usage.outputTokens + u.outputTokens,
      };
    } else if (isEventOf(event, "turn/end") && event.data.turn === turn) reason = event.data.reason;
  }
  return { turn, steps, usage, ...(reason === undefined ? {} : { reason }) };
}

/** Share of prompt tokens read from the cache (undefined when nothing was billed). */
export function cacheHitShare(usage: Usage): number | undefined {
  const prompt = usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
  return prompt === 0 ? undefined : usage.cacheReadTokens / prompt;
}

const count = (n: number): string => n.toLocaleString("en-US");

/** One line: `── turn 2 · 3 steps · input 120 · cache read 3,400 · … · $0.00123 · completed`. */
export function formatFooter(tally: TurnTally, cost: number | undefined): string {
  const u = tally.usage;
  const share = cacheHitShare(u);
  const parts = [
    `turn ${tally.turn}`,
    `${tally.steps} step${tally.steps === 1 ? "" : "s"}`,
    `input ${count(u.inputTokens)}`,
    `cache read ${count(u.cacheReadTokens)}`,
    `cache write ${count(u.cacheWriteTokens)}`,
    `output ${count(u.outputTokens)}`,
    `cache hit ${share === undefined ? "-" : `${(share * 100).toFixed(1)}%`}`,
    cost === undefined ? "cost n/a" : `$${cost.toFixed(5)}`,
  ];
  if (tally.reason !== undefined) parts.push(describeReason(tally.reason));
  return `── ${parts.join(" · ")}`;
}

export function describeReason(reason: TurnEndReason): string {
  switch (reason.kind) {
    case "error":
      return `error: ${reason.message}`;
    case "aborted":
    case "rejected":
      return `${reason.kind}: ${reason.reason}`;
    default:
      return reason.kind;
  }
}
