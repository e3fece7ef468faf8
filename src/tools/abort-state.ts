// A turn's abort state as the loop's hot paths read it: one object of one shape per turn, kept
// in step with the turn's AbortSignal by the single listener it adds to it. In Node 20 every
// AbortSignal has a hidden class of its own, so code that reads `signal.aborted` or adds a
// listener on each step deoptimizes on every new turn until those sites go megamorphic; reading
// this object instead keeps them monomorphic (docs/benchmarks.md, W2 stream ÷ send). Listeners
// added here are called, in order, when the signal aborts, after `aborted` and `reason` are set.
// Hooks, providers and tools still receive the real signal (`signal`).

export class AbortState {
  /** True once the signal aborted (set before any listener added here runs). */
  aborted = false;
  /** The signal's reason, once aborted. */
  reason: unknown = undefined;
  readonly signal: AbortSignal;
  #listeners: (() => void)[] = [];
  readonly #onAbort = (): void => this.#fire();

  constructor(signal: AbortSignal) {
    this.signal = signal;
    if (signal.aborted) {
      this.aborted = true;
      this.reason = signal.reason;
    } else signal.addEventListener("abort", this.#onAbort, { once: true });
  }

  /** Stops following the signal (a state made for one call over a longer-lived signal). */
  detach(): void {
    this.signal.removeEventListener("abort", this.#onAbort);
  }

  /** Calls `listener` once when the signal aborts (never, if it already has: check `aborted` first). */
  listen(listener: () => void): void {
    if (!this.aborted) this.#listeners.push(listener);
  }

  unlisten(listener: () => void): void {
    const listeners = this.#listeners;
    const at = listeners.lastIndexOf(listener);
    if (at === listeners.length - 1) listeners.pop();
    else if (at >= 0) listeners.splice(at, 1);
  }

  #fire(): void {
    this.aborted = true;
    this.reason = this.signal.reason;
    const listeners = this.#listeners;
    this.#listeners = [];
    for (const listener of listeners) listener();
  }
}
