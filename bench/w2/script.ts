// The one script every W2 harness's mock model plays, whatever its wire format: a turn of
// `steps` model calls — `steps - 1` replies of text "step" plus one call to the no-op tool,
// then a final text "finished". Each mock asks `next()` per model call; `done()` asserts the
// harness ran the whole loop (no early stop, no call past the end).

export const TOOL = "noop";
export const STEP_TEXT = "step";
export const FINAL_TEXT = "finished";
export const SYSTEM = "You are a benchmark.";

export type ScriptReply =
  | { readonly kind: "tool"; readonly n: number; readonly callId: string }
  | { readonly kind: "final" };

export class LoopScript {
  #left = 0;
  #calls = 0;
  #total = 0;

  /** Starts a turn of `steps` model calls. */
  arm(steps: number): void {
    if (this.#left !== 0) throw new Error(`script armed with ${this.#left} calls still owed`);
    this.#left = steps;
    this.#calls = 0;
  }

  next(): ScriptReply {
    if (this.#left <= 0) throw new Error("the model was called past the end of the script");
    this.#left--;
    this.#calls++;
    this.#total++;
    return this.#left === 0 ? { kind: "final" } : { kind: "tool", n: this.#calls, callId: `call_${this.#total}` };
  }

  /** Throws unless the armed turn made exactly its model calls; returns how many. */
  done(): number {
    if (this.#left !== 0)
      throw new Error(`the loop stopped after ${this.#calls} model calls, ${this.#left} short of the script`);
    return this.#calls;
  }
}

/** Text streamed as two deltas, as the Keelson ScriptedProvider does. */
export const halves = (text: string): [string, string] => [
  text.slice(0, Math.ceil(text.length / 2)),
  text.slice(Math.ceil(text.length / 2)),
];
