// Maps the provider's stream chunks of the step in flight to live turn events with the log's
// ids. A delta for a block whose start this mapper did not see (a feed that joined mid-block) is
// dropped: the committed answer carries the whole block when the step ends.
import type { StreamChunk } from "../llm/core.js";
import { type LiveTurnEvent, liveBlockId, loopCallId } from "./turn-events.js";

type BlockKind = "text" | "reasoning" | "tool-call";

export class LiveBlocks {
  #turn = 0;
  #step = 0;
  #blocks = new Map<number, BlockKind>();

  /** A new step (or a retried attempt of it) starts: blocks restart at position 0. */
  reset(turn: number, step: number): void {
    this.#turn = turn;
    this.#step = step;
    this.#blocks.clear();
  }

  /** The live event for `chunk`, or undefined (usage, finish, or a block not seen starting). */
  map(chunk: StreamChunk): LiveTurnEvent | undefined {
    const at = { turn: this.#turn, step: this.#step };
    switch (chunk.type) {
      case "block-start": {
        const { block, index } = chunk;
        this.#blocks.set(index, block.type);
        if (block.type === "tool-call")
          return {
            type: "tool-call-start",
            ...at,
            index,
            callId: loopCallId(at.turn, at.step, index),
            name: block.name,
          };
        return { type: `${block.type}-start`, ...at, index, id: liveBlockId(block.type, at.turn, at.step, index) };
      }
      case "text-delta":
      case "reasoning-delta": {
        const kind = chunk.type === "text-delta" ? "text" : "reasoning";
        if (this.#blocks.get(chunk.index) !== kind || chunk.text === "") return undefined;
        const id = liveBlockId(kind, at.turn, at.step, chunk.index);
        return { type: `${kind}-delta`, ...at, index: chunk.index, id, delta: chunk.text };
      }
      case "tool-call-delta": {
        if (this.#blocks.get(chunk.index) !== "tool-call" || chunk.argumentsDelta === "") return undefined;
        const callId = loopCallId(at.turn, at.step, chunk.index);
        return { type: "tool-call-delta", ...at, index: chunk.index, callId, delta: chunk.argumentsDelta };
      }
      case "block-end": {
        const kind = this.#blocks.get(chunk.index);
        if (kind === undefined) return undefined;
        this.#blocks.delete(chunk.index);
        if (kind === "tool-call")
          return {
            type: "tool-call-end",
            ...at,
            index: chunk.index,
            callId: loopCallId(at.turn, at.step, chunk.index),
          };
        return { type: `${kind}-end`, ...at, index: chunk.index, id: liveBlockId(kind, at.turn, at.step, chunk.index) };
      }
      default:
        return undefined;
    }
  }
}
