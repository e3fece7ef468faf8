// Choosing what to compact: the oldest head of the surface, [0, end], that keeps a recent tail
// of at least `keepRecentTokens`, whose edges are tool-pairing-balanced (no tool call separated
// from its result), and that holds at least two messages.
import type { Message } from "../messages/index.js";
import { isPairingBalanced } from "../session/index.js";

export interface Region {
  readonly start: number;
  readonly end: number;
  readonly tokens: number;
}

export function chooseRegion(
  history: readonly Message[],
  sizes: readonly number[],
  keepRecentTokens: number,
): Region | undefined {
  let tail = 0;
  let end = history.length - 1;
  // Walk back from the newest message until the kept tail is large enough.
  while (end >= 0 && tail < keepRecentTokens) tail += sizes[end--]!;
  for (; end >= 1; end--) {
    if (isPairingBalanced(history.slice(0, end + 1))) {
      const tokens = sizes.slice(0, end + 1).reduce((a, b) => a + b, 0);
      return { start: 0, end, tokens };
    }
  }
  return undefined;
}
