// The derived history of a session: one message per surface node, cached so a read derives only
// the nodes appended since the last one and rebuilds after a replace. The cache array is only
// ever appended to or replaced by a new array — never changed below its length — so a captured
// (array, length) pair stays exactly the history of its moment: what `snapshot` relies on.
import type { Message } from "../messages/index.js";
import type { Surface } from "./surface.js";

export class DerivedHistory {
  readonly #surface: Surface;
  #generation = 0;
  #messages: Message[] = [];

  constructor(surface: Surface) {
    this.#surface = surface;
  }

  /** A fresh array over the shared, deep-frozen messages. */
  copy(): Message[] {
    return this.#current().slice();
  }

  /** The history as it is now, copied on first read (one frozen array, the same after). */
  snapshot(): () => readonly Message[] {
    const backing = this.#current();
    const length = backing.length;
    let copy: readonly Message[] | undefined;
    return () => {
      copy ??= Object.freeze(backing.slice(0, length));
      return copy;
    };
  }

  /** The cache brought up to date (never handed out). */
  #current(): Message[] {
    const nodes = this.#surface.nodes;
    if (this.#generation !== this.#surface.generation || this.#messages.length === 0) {
      this.#generation = this.#surface.generation;
      this.#messages = nodes.map((n) => n.message);
    } else {
      for (let i = this.#messages.length; i < nodes.length; i++) this.#messages.push(nodes[i]!.message);
    }
    return this.#messages;
  }
}
