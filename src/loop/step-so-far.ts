// What the provider has streamed so far of the step in flight (its final attempt), kept so a feed
// that joins mid-step — `agent.follow()`, a fleet follower announcing itself after the claim —
// starts from the step so far instead of from nothing: it is handed each block's start, the text
// (or arguments) streamed until then as one delta, and the end of each block already ended, then
// the live chunks. One string append per delta; reset when the next attempt's first block starts.
import type { StreamChunk } from "../llm/core.js";
import type { Session } from "../session/index.js";

interface RecordedBlock {
  readonly start: Extract<StreamChunk, { type: "block-start" }>;
  text: string;
  open: boolean;
}

export class StepSoFar {
  /** The log's length when the recorded attempt's first block started. */
  #since = 0;
  #blocks: RecordedBlock[] = [];

  /** Records one chunk of the step in flight (`length`: the session's length now); returns it. */
  push(chunk: StreamChunk, length: number): StreamChunk {
    switch (chunk.type) {
      case "block-start":
        if (chunk.index === 0) {
          this.#blocks = [];
          this.#since = length;
        }
        this.#blocks[chunk.index] = { start: chunk, text: "", open: true };
        return chunk;
      case "text-delta":
      case "reasoning-delta": {
        const block = this.#blocks[chunk.index];
        if (block !== undefined) block.text += chunk.text;
        return chunk;
      }
      case "tool-call-delta": {
        const block = this.#blocks[chunk.index];
        if (block !== undefined) block.text += chunk.argumentsDelta;
        return chunk;
      }
      case "block-end": {
        const block = this.#blocks[chunk.index];
        if (block !== undefined) block.open = false;
        return chunk;
      }
      default:
        return chunk;
    }
  }

  /**
   * The chunks that bring a mapper joining now to where the step in flight stands — none when no
   * step is in flight, when its answer is logged already (the committed message carries it), or
   * when what is recorded is an earlier step's or attempt's (a `step/start` or `llm/retry` was
   * logged since its first block started).
   */
  replay(session: Session): StreamChunk[] {
    if (session.openStep === null || this.#blocks.length === 0) return [];
    for (let seq = this.#since; seq < session.length; seq++) {
      const type = session.eventAt(seq)?.type;
      if (type === "step/start" || type === "llm/retry" || type === "assistant/message") return [];
    }
    const chunks: StreamChunk[] = [];
    for (const block of this.#blocks) {
      if (block === undefined) return chunks; // positions are contiguous from 0 (the assembler checks)
      const { index } = block.start;
      chunks.push(block.start);
      if (block.text !== "") chunks.push(deltaOf(block.start, block.text));
      if (!block.open) chunks.push({ type: "block-end", index });
    }
    return chunks;
  }
}

function deltaOf(start: RecordedBlock["start"], text: string): StreamChunk {
  const { index } = start;
  switch (start.block.type) {
    case "tool-call":
      return { type: "tool-call-delta", index, argumentsDelta: text };
    case "reasoning":
      return { type: "reasoning-delta", index, text };
    default:
      return { type: "text-delta", index, text };
  }
}
