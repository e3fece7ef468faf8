// The surface: the ordered list of nodes (surface events) that history is derived from.
// `append` adds a tail node; a replace shadows nodes `start..end` (inclusive, by position) with
// one new node and bumps `generation`. Nothing is deleted from the log; only the surface moves.
import type { Message } from "../messages/index.js";
import { deriveEventMessage } from "./derive.js";
import { SessionError } from "./errors.js";
import { isPairingBalanced } from "./pairing.js";
import type { ReplaceOp, SessionEvent, SurfaceOp } from "./types.js";

export interface SurfaceNode {
  readonly seq: number;
  readonly message: Message;
}

export class Surface {
  #nodes: SurfaceNode[] = [];
  #generation = 0;

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
        fail("replace-splits-tool-pair", `a tool/result may only replace the single result of call ${callId}`);
      }
    } else if (!isPairingBalanced([...regionMessages, replacement])) {
      fail("replace-splits-tool-pair", `replacing nodes ${start}..${end} would separate a tool call from its result`);
    }
    return region.map((n) => n.seq);
  }
}
