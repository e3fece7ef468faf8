// Tool-result pruning, the cheaper first pass: an oversized tool result outside the kept tail is
// replaced (a single-node replace, same call id) by its head and tail with a marker between —
// and one inside the tail too, when without that the request could not fit the window at all.
import type { Message, ToolResultPart } from "../messages/index.js";

export interface PruneCandidate {
  readonly index: number;
  readonly callId: string;
  readonly content: readonly ToolResultPart[];
  readonly isError: boolean;
  readonly tokens: number;
}

/** Oversized tool results in `history[from..limit)`, largest first. */
export function pruneCandidates(
  history: readonly Message[],
  sizes: readonly number[],
  limit: number,
  aboveTokens: number,
  from = 0,
): PruneCandidate[] {
  const out: PruneCandidate[] = [];
  for (let i = from; i < limit; i++) {
    const m = history[i]!;
    if (m.role !== "tool" || sizes[i]! <= aboveTokens) continue;
    const r = m.content[0];
    out.push({ index: i, callId: r.callId, content: r.content, isError: r.isError, tokens: sizes[i]! });
  }
  return out.sort((a, b) => b.tokens - a.tokens);
}

/** Head and tail of the text (≈ keepTokens each, at 4 bytes per token), with a marker naming what was cut. */
export function prunedContent(content: readonly ToolResultPart[], keepTokens: number): ToolResultPart[] {
  const text = content.map((p) => (p.type === "text" ? p.text : "[image]")).join("\n");
  const keep = keepTokens * 4;
  if (text.length <= keep * 2) return [{ type: "text", text }];
  const cut = text.length - keep * 2;
  return [
    {
      type: "text",
      text: `${text.slice(0, keep)}\n[… ${cut} characters pruned by compaction …]\n${text.slice(-keep)}`,
    },
  ];
}
