// ChunkedEvents: a session's append-only event storage, in fixed-size chunks so that sessions
// over a prefix of the same log share storage. A full chunk is never written again (appends
// open a new chunk), so a prefix shares every full chunk by reference and copies at most the
// one partial chunk at its end: O(length / CHUNK + CHUNK) instead of O(length), and no array
// big enough to land in V8's large-object space is allocated per fork.
import type { SessionEvent } from "./types.js";

const SHIFT = 10;
/** Events per chunk: 1024 pointers (8 KB) — small enough to copy, large enough to share. */
const CHUNK = 1 << SHIFT;
const MASK = CHUNK - 1;

export class ChunkedEvents {
  /** Every chunk but the last is full (CHUNK events) and may be shared with other instances. */
  #chunks: SessionEvent[][] = [];
  #length = 0;

  get length(): number {
    return this.#length;
  }

  /** The event at seq `i` (0 <= i < length). */
  at(i: number): SessionEvent {
    return this.#chunks[i >>> SHIFT]![i & MASK]!;
  }

  push(event: SessionEvent): void {
    const index = this.#length & MASK;
    if (index === 0) this.#chunks.push([event]);
    else this.#chunks[this.#chunks.length - 1]!.push(event);
    this.#length++;
  }

  /** The first `length` events as a new instance that shares every full chunk with this one. */
  prefix(length: number): ChunkedEvents {
    const out = new ChunkedEvents();
    const full = length >>> SHIFT;
    out.#chunks = this.#chunks.slice(0, full);
    const rest = length & MASK;
    if (rest > 0) out.#chunks.push(this.#chunks[full]!.slice(0, rest));
    out.#length = length;
    return out;
  }

  /** A fresh array of all events, in order. O(length). */
  toArray(): SessionEvent[] {
    return Array.prototype.concat.apply([], this.#chunks) as SessionEvent[];
  }
}
