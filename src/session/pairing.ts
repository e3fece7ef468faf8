// Tool-pairing balance: a tool call and its result must never be separated by a surface edit
// (a compaction region or a pruning replace). Pure functions over messages.
import type { Message } from "../messages/index.js";

export interface PairingBalance {
  /** Call ids whose tool-call block has no result among the messages. */
  readonly unansweredCalls: readonly string[];
  /** Call ids whose result has no tool-call block among the messages. */
  readonly orphanResults: readonly string[];
}

/** Computes which calls and results in `messages` lack their partner within `messages`. */
export function toolPairingBalance(messages: readonly Message[]): PairingBalance {
  const calls = new Set<string>();
  const results = new Set<string>();
  for (const message of messages) {
    if (message.role === "assistant") {
      for (const block of message.content) if (block.type === "tool-call") calls.add(block.callId);
    } else if (message.role === "tool") {
      results.add(message.content[0].callId);
    }
  }
  return {
    unansweredCalls: [...calls].filter((id) => !results.has(id)),
    orphanResults: [...results].filter((id) => !calls.has(id)),
  };
}

/** True when every call in `messages` has its result there and every result its call. */
export function isPairingBalanced(messages: readonly Message[]): boolean {
  const b = toolPairingBalance(messages);
  return b.unansweredCalls.length === 0 && b.orphanResults.length === 0;
}
