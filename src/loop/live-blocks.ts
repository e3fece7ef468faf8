// Maps the provider's stream chunks of the step in flight to live turn events with the log's
// ids. A delta for a block whose start this mapper did not see is dropped (a feed that joins
// mid-step is first handed the step so far, step-so-far.ts, so it sees every start).
import type { StreamChunk } from "../llm/core.js";
import { type LiveTurnEvent, liveBlockId, loopCallId } from "./turn-events.js";

type BlockKind = "text" | "reasoning" | "tool-call";

// Event types as constants, never built per chunk (`${kind}-delta`): a built string is a fresh,
// uninternalized one that every later `type ===` check compares character by character.
const START = { text: "text-start", reasoning: "reasoning-start" } as const;
const DELTA = { text: "text-delta", reasoning: "reasoning-delta" } as const;
const END = { text: "text-end", reasoning: "reasoning-end" } as const;

/** A block seen starting: its kind and its id (`callId` for a tool call), made once per block, not per delta. */
interface OpenBlock {
  readonly kind: BlockKind;
  readonly id: string;
}

export class LiveBlocks {
  #turn = 0;
  #step = 0;
  /** Open blocks by position: an array, emptied per step without reallocating a map (the assembler has
   * already refused a block-start out of order, so positions are 0, 1, 2, … — a delta at any other
   * reads undefined and is dropped). */
  readonly #blocks: (OpenBlock | undefined)[] = [];

  /** A new step (or a retried attempt of it) starts: blocks restart at position 0. */
  reset(turn: number, step: number): void {
    this.#turn = turn;
    this.#step = step;
    // A plain loop: `length = 0` and `fill` are each a runtime call per step (~3× the loop).
    const blocks = this.#blocks;
    for (let i = 0; i < blocks.length; i++) blocks[i] = undefined;
  }

  /** The live event for `chunk`, or undefined (usage, finish, or a block not seen starting). */
  map(chunk: StreamChunk): LiveTurnEvent | undefined {
    const turn = this.#turn;
    const step = this.#step;
    switch (chunk.type) {
      case "block-start": {
        const { block, index } = chunk;
        if (block.type === "tool-call") {
          const callId = loopCallId(turn, step, index);
          this.#blocks[index] = { kind: "tool-call", id: callId };
          return { type: "tool-call-start", turn, step, index, callId, name: block.name };
        }
        const id = liveBlockId(block.type, turn, step, index);
        this.#blocks[index] = { kind: block.type, id };
        return { type: START[block.type], turn, step, index, id };
      }
      case "text-delta":
      case "reasoning-delta": {
        const kind = chunk.type === "text-delta" ? "text" : "reasoning";
        const open = this.#blocks[chunk.index];
        if (open?.kind !== kind || chunk.text === "") return undefined;
        return { type: DELTA[kind], turn, step, index: chunk.index, id: open.id, delta: chunk.text };
      }
      case "tool-call-delta": {
        const open = this.#blocks[chunk.index];
        if (open?.kind !== "tool-call" || chunk.argumentsDelta === "") return undefined;
        return {
          type: "tool-call-delta",
          turn,
          step,
          index: chunk.index,
          callId: open.id,
          delta: chunk.argumentsDelta,
        };
      }
      case "block-end": {
        const open = this.#blocks[chunk.index];
        if (open === undefined) return undefined;
        this.#blocks[chunk.index] = undefined;
        if (open.kind === "tool-call")
          return { type: "tool-call-end", turn, step, index: chunk.index, callId: open.id };
        return { type: END[open.kind], turn, step, index: chunk.index, id: open.id };
      }
      default:
        return undefined;
    }
  }
}
