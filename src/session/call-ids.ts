// CallIds: the tool-call ids a log has used (each must be unique in its session), shareable with
// sessions over a prefix of the log. A prefix does not copy the set: it keeps a reference to it
// and a bound (the prefix's length), and sees only the ids logged before that bound. The base
// keeps growing as its own session appends; the bound hides that growth.
import type { SessionEvent } from "./types.js";

/** Chains longer than this (a fork of a fork of …) are flattened into one map. */
const MAX_DEPTH = 8;

export class CallIds {
  /** Ids logged by this instance's session, to the seq of the assistant message that logged them. */
  #own = new Map<string, number>();
  /** Inherited: `#base`'s ids logged at a seq below `#bound`. */
  #base: CallIds | undefined;
  #bound = 0;
  #depth = 0;

  /** True when `id` was logged (here, or in the shared prefix). */
  has(id: string): boolean {
    return this.#own.has(id) || (this.#base?.hasBefore(id, this.#bound) ?? false);
  }

  /** Records `id` as logged by the event at `seq`. */
  add(id: string, seq: number): void {
    this.#own.set(id, seq);
  }

  /** The ids logged before `bound` (a seq), sharing this instance's storage. */
  before(bound: number): CallIds {
    const out = new CallIds();
    // A link with nothing of its own adds nothing: point past it (no chain growth for forks of
    // fresh forks).
    const base = this.#own.size === 0 && this.#base !== undefined ? this.#base : this;
    out.#bound = base === this ? bound : Math.min(bound, this.#bound);
    out.#base = base;
    out.#depth = base.#depth + 1;
    if (out.#depth > MAX_DEPTH) out.#flatten();
    return out;
  }

  /** True when `id` is among this instance's ids logged below `bound`. */
  private hasBefore(id: string, bound: number): boolean {
    const seq = this.#own.get(id);
    if (seq !== undefined) return seq < bound;
    return this.#base?.hasBefore(id, Math.min(bound, this.#bound)) ?? false;
  }

  /** Copies every inherited id into `#own` and drops the chain. O(ids). */
  #flatten(): void {
    const own = new Map<string, number>();
    const collect = (level: CallIds | undefined, bound: number): void => {
      if (level === undefined) return;
      collect(level.#base, Math.min(bound, level.#bound));
      for (const [id, seq] of level.#own) if (seq < bound) own.set(id, seq);
    };
    collect(this.#base, this.#bound);
    for (const [id, seq] of this.#own) own.set(id, seq);
    this.#own = own;
    this.#base = undefined;
    this.#bound = 0;
    this.#depth = 0;
  }
}

const NO_IDS: readonly string[] = [];

/** The tool-call ids an event logs (only an appended assistant message logs any). */
export function loggedCallIds(event: SessionEvent): readonly string[] {
  if (event.type !== "assistant/message" || event.surfaceOp !== "append") return NO_IDS;
  const ids: string[] = [];
  for (const block of (event as SessionEvent<"assistant/message">).data.content)
    if (block.type === "tool-call") ids.push(block.callId);
  return ids;
}
