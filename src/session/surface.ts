// The surface: the ordered list of nodes (surface events) that history is derived from.
// `append` adds a tail node; a replace shadows nodes `start..end` (inclusive, by position) with
// one new node and bumps `generation`. Nothing is deleted from the log; only the surface moves.
// Nodes are immutable, so a session over a prefix of another's log (`prefixOf`) shares them.
import { previewJson } from "../json/index.js";
import type { Message } from "../messages/index.js";
import { deriveEventMessage } from "./derive.js";
import { SessionError } from "./errors.js";
import { isPairingBalanced } from "./pairing.js";
import type { EventSource } from "./structure.js";
import type { ReplaceOp, SessionEvent, SurfaceOp } from "./types.js";

export interface SurfaceNode {
  readonly seq: number;
  readonly message: Message;
}

export class Surface {
  #nodes: SurfaceNode[] = [];
  #generation = 0;
  /** Seq of the last replace committed (-1: none): nodes after it are seq-ordered tail appends. */
  #lastReplaceSeq = -1;

  /**
   * The surface after `events[0..length)`, given `current`, the surface after all of `events`
   * (a log a session already checked). Without a replace at or after `length`, that surface is
   * `current`'s nodes minus the tail appended from `length` on: the nodes are shared, not
   * derived again. Otherwise the surface events before `length` are replayed.
   */
  static prefixOf(current: Surface, events: EventSource, length: number): Surface {
    const surface = new Surface();
    if (current.#lastReplaceSeq < length) {
      let kept = current.#nodes.length;
      while (kept > 0 && current.#nodes[kept - 1]!.seq >= length) kept--;
      surface.#nodes = current.#nodes.slice(0, kept);
      surface.#generation = current.#generation;
      surface.#lastReplaceSeq = current.#lastReplaceSeq;
      return surface;
    }
    for (let i = 0; i < length; i++) {
      const event = events.at(i)!;
      if (event.surfaceOp !== undefined) surface.commit(event, event.surfaceOp);
    }
    return surface;
  }

  get length(): number {
    return this.#nodes.length;
  }
  /** Bumped by every replace; appends leave it unchanged. */
  get generation(): number {
    return this.#generation;
  }
  get nodes(): readonly SurfaceNode[] {
    return this.#nodes;
  }

  /**
   * Validates a surface op for an event about to be logged and returns the provenance a
   * replace must carry (the seqs it shadows). Never mutates.
   */
  plan(event: SessionEvent, op: SurfaceOp): readonly number[] | undefined {
    if (op === "append") return undefined;
    return this.#planReplace(event, op);
  }

  /** Applies an event whose op `plan` accepted. */
  commit(event: SessionEvent, op: SurfaceOp): void {
    const node: SurfaceNode = { seq: event.seq, message: deriveEventMessage(event)! };
    if (op === "append") {
      this.#nodes.push(node);
      return;
    }
    this.#nodes.splice(op.start, op.end - op.start + 1, node);
    this.#generation++;
    this.#lastReplaceSeq = event.seq;
  }

  #planReplace(event: SessionEvent, op: ReplaceOp): readonly number[] {
    const fail = (code: "replace-out-of-range" | "replace-splits-tool-pair", detail: string): never => {
      throw new SessionError(code, `${event.type} at seq ${event.seq}: ${detail}`, event.seq);
    };
    const { start, end } = op;
    if (
      !Number.isSafeInteger(start) ||
      !Number.isSafeInteger(end) ||
      start < 0 ||
      end < start ||
      end >= this.#nodes.length
    ) {
      fail(
        "replace-out-of-range",
        `replace ${start}..${end} does not name nodes on a surface of ${this.#nodes.length}`,
      );
    }
    const region = this.#nodes.slice(start, end + 1);
    const replacement = deriveEventMessage(event)!;
    const regionMessages = region.map((n) => n.message);
    if (replacement.role === "tool") {
      const callId = replacement.content[0].callId;
      const only = regionMessages.length === 1 ? regionMessages[0] : undefined;
      if (only?.role !== "tool" || only.content[0].callId !== callId) {
        fail(
          "replace-splits-tool-pair",
          `a tool/result may only replace the single result of call ${previewJson(callId, 80)}`,
        );
      }
    } else if (!isPairingBalanced([...regionMessages, replacement])) {
      fail("replace-splits-tool-pair", `replacing nodes ${start}..${end} would separate a tool call from its result`);
    }
    return region.map((n) => n.seq);
  }
}
