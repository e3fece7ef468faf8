// How a worker's idle slots wait for work without a thundering herd (#20 F21). Before, every
// notification on the queue's channel (queued, running, done — three per turn) woke every idle
// slot of every worker into a claim transaction, so the claims per turn, and the CPU per turn of
// the workers and of PostgreSQL, grew with the number of workers. Now:
// - only an enqueue of a profile this worker serves (or a recovered turn queued again) is news,
//   and it wakes ONE idle slot (`announce`);
// - a slot whose claim found work wakes one more (`wakeOne`): a burst of work fans out one slot
//   at a time, and stops at the first slot that finds nothing;
// - one poll timer per worker (every `pollMs`, jittered ±20% so workers do not poll in step)
//   wakes one idle slot, for work no notification announces (a dead worker's lease lapsing);
// - work announced while no slot waited (all were claiming or running) is not lost: `wait(mark)`
//   returns at once when such an announcement came after the slot's `mark()`.
// Across workers, every worker with an idle slot hears each enqueue; worker.ts staggers them
// (claim-race.ts) so that, as a rule, one of them claims it.

/** Why a waiting slot was let go. */
export type WakeReason = "announced" | "more" | "poll" | "closed";

export class IdleSlots {
  readonly #pollMs: number;
  readonly #waiters: ((reason: WakeReason) => void)[] = [];
  #announced = 0;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(pollMs: number) {
    this.#pollMs = pollMs;
  }

  /** Taken before a claim: `wait` does not sleep through work announced after it. */
  mark(): number {
    return this.#announced;
  }

  /** New work may be claimable: wakes one idle slot. */
  announce(): void {
    const slot = this.#waiters.shift();
    if (slot !== undefined) slot("announced");
    else this.#announced++; // no slot waits: a slot claiming now looks again instead of sleeping
  }

  /** Wakes the slot that has waited longest, if any. */
  wakeOne(reason: WakeReason = "more"): void {
    this.#waiters.shift()?.(reason);
  }

  /** Whether a slot is waiting. */
  get idle(): boolean {
    return this.#waiters.length > 0;
  }

  /** Resolves on a wake, a poll tick, or `close`; at once if work was announced since `mark`. */
  wait(mark: number): Promise<WakeReason> {
    if (this.#closed) return Promise.resolve("closed");
    if (this.#announced !== mark) return Promise.resolve("announced");
    return new Promise((resolve) => {
      this.#waiters.push(resolve);
      this.#arm();
    });
  }

  /** Wakes every slot and keeps them from waiting again (the worker stops). */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    for (const wake of this.#waiters.splice(0)) wake("closed");
  }

  #arm(): void {
    if (this.#timer !== undefined || this.#closed) return;
    const jittered = this.#pollMs * (0.8 + 0.4 * Math.random());
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.wakeOne("poll");
      if (this.#waiters.length > 0) this.#arm();
    }, jittered);
  }
}
