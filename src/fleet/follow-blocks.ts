// What a follower has received of each live block (text, reasoning, tool call) of the step in
// flight, so that what it delivers reads as `agent.stream()` does: a delta or an end only for a
// block whose start it has, each block's text once. A worker's restart message (follow-wire.ts)
// repeats the step so far — each open block's start and its text until then as one delta —, so a
// follower that joined later gets the blocks it lacks, and one that has them takes only the text
// beyond what it received. A follower that missed messages (a gap in their numbers: its LISTEN
// connection was lost meanwhile) cannot know what its open blocks lack: they stream no more deltas (their end
// still comes), and the step's committed answer carries their content, as for any lagging
// consumer. Only the latest step's blocks are kept.
import type { LiveTurnEvent, SubagentTurnEvent } from "../loop/index.js";

type Live = LiveTurnEvent | SubagentTurnEvent;
type BlockEvent = Extract<LiveTurnEvent, { index: number }>;

interface Block {
  /** The committed seq its start followed: a start after a later one is a new attempt's block. */
  readonly afterSeq: number;
  /** Characters of its deltas received. */
  chars: number;
  /** Messages were missed while it was open: its text has a hole, it streams no more deltas. */
  broken: boolean;
  ended: boolean;
}

const STARTS = new Set<string>(["text-start", "reasoning-start", "tool-call-start"]);
const ENDS = new Set<string>(["text-end", "reasoning-end", "tool-call-end"]);
const isBlockEvent = (event: Live): event is BlockEvent => "index" in event && "step" in event;

export class FollowBlocks {
  #turn = -1;
  #step = -1;
  /** The step's blocks by position. */
  readonly #blocks = new Map<number, Block>();

  /**
   * `event`, received after committed seq `afterSeq`, as it is to be queued: undefined to drop it
   * (a block not seen starting, a start or an end received already, a delta of a broken block, a
   * delta a restart repeats), a delta trimmed to what was not received yet, or the event itself.
   */
  admit(afterSeq: number, event: Live): Live | undefined {
    if (!isBlockEvent(event)) return event;
    const { turn, step, index } = event;
    if (turn < this.#turn || (turn === this.#turn && step < this.#step)) return undefined; // an earlier step's: overtaken
    if (turn !== this.#turn || step !== this.#step) {
      this.#turn = turn;
      this.#step = step;
      this.#blocks.clear();
    }
    const block = this.#blocks.get(index);
    if (STARTS.has(event.type)) {
      // The same start again (a restart repeats it) is dropped; a start after a later commit is the block of a retried attempt.
      if (block !== undefined && block.afterSeq >= afterSeq) return undefined;
      this.#blocks.set(index, { afterSeq, chars: 0, broken: false, ended: false });
      return event;
    }
    if (block === undefined) return undefined; // its start was not received: its content comes with the step's answer
    if (ENDS.has(event.type)) {
      if (block.ended) return undefined;
      block.ended = true;
      return block.broken ? undefined : event; // a block that lost text never ends live: the answer ends it
    }
    if (!("delta" in event) || block.broken || block.ended) return undefined;
    return this.#newText(block, event);
  }

  /** Messages were missed: every open block may lack text. */
  missed(): void {
    for (const block of this.#blocks.values()) if (!block.ended) block.broken = true;
  }

  /** A new attempt of the turn (its blocks are another run's). */
  clear(): void {
    this.#turn = -1;
    this.#step = -1;
    this.#blocks.clear();
  }

  /**
   * The items of one message follow (`restart`: the worker's restart, whose first delta of each
   * block is that block's text so far — the later ones, and every other message's, are the next
   * piece).
   */
  message(restart: boolean): void {
    this.#restart = restart;
    this.#whole.clear();
  }

  #restart = false;
  /** Blocks whose delta of the current restart message was admitted (their text so far). */
  readonly #whole = new Set<number>();

  /** The part of `event`'s delta past what `block` received. */
  #newText(block: Block, event: Extract<LiveTurnEvent, { delta: string }>): Live | undefined {
    if (!this.#restart || this.#whole.has(event.index)) {
      block.chars += event.delta.length;
      return event;
    }
    this.#whole.add(event.index);
    if (event.delta.length <= block.chars) return undefined;
    const delta = event.delta.slice(block.chars);
    block.chars = event.delta.length;
    return { ...event, delta };
  }
}
