// The per-turn footer chat prints after each turn: the turn's summed usage (input, cache read,
// cache write, output tokens), its cache-hit share, its cost under the model registry's pricing,
// and how the turn ended — for a compaction turn (`/compact`) whose compaction failed, that it
// failed, never "completed". Pure: a fold over the turn's session events.
import type { Usage } from "../messages/index.js";
import { compactSummaryOf, isEventOf, type SessionEvent, type TurnEndReason } from "../session/index.js";

export interface TurnTally {
  readonly turn: number;
  readonly steps: number;
  readonly usage: Usage;
  readonly reason?: TurnEndReason;
  /**
   * A compaction turn (trigger `compact`) whose compaction failed: the error its `compact/end`
   * logged. The turn itself ends `completed` (compaction failures do not fail turns), but
   * nothing was compacted, which is what the footer says.
   */
  readonly compactionError?: string;
}

const ZERO: Usage = { inputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 0 };

/**
 * Sums what turn `turn` cost over `events` (every logged event, in order): the usage of its
 * assistant messages and of any compaction summary call made inside it, and the steps that
 * reached the provider (a step that ended before dispatch is not counted).
 */
export function tallyTurn(events: readonly SessionEvent[], turn: number): TurnTally {
  let usage = ZERO;
  let steps = 0;
  let inside = false;
  let reason: TurnEndReason | undefined;
  let compacting = false;
  let compactionError: string | undefined;
  for (const event of events) {
    if (isEventOf(event, "turn/start")) {
      inside = event.data.turn === turn;
      if (inside) compacting = event.data.trigger === "compact";
    }
    if (!inside) continue;
    if (isEventOf(event, "step/start")) steps++;
    else if (isEventOf(event, "step/end") && event.data.dispatched === false) steps--;
    else if (isEventOf(event, "assistant/message") && event.data.usage !== undefined)
      usage = add(usage, event.data.usage);
    else if (isEventOf(event, "compact/summary")) {
      const spent = compactSummaryOf(event).usage;
      if (spent !== undefined) usage = add(usage, spent);
    } else if (isEventOf(event, "compact/end") && compacting) compactionError = event.data.error;
    else if (isEventOf(event, "turn/end")) {
      reason = event.data.reason;
      inside = false;
    }
  }
  return {
    turn,
    steps,
    usage,
    ...(reason === undefined ? {} : { reason }),
    ...(compactionError === undefined ? {} : { compactionError }),
  };
}

function add(a: Usage, b: Usage): Usage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
    cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
    outputTokens: a.outputTokens + b.outputTokens,
  };
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
  if (tally.reason !== undefined)
    parts.push(
      tally.reason.kind === "completed" && tally.compactionError !== undefined
        ? `compaction failed: ${tally.compactionError}`
        : describeReason(tally.reason),
    );
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
