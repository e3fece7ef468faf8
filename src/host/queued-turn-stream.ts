// `host.stream` and `host.streamAnswers`: a TurnStream handed out at once, while its prompt (or
// answers) may still wait behind the session's running turn. Until the turn starts, iteration
// waits and a cancel (closing the iteration, `cancel()`, the signal) drops it — nothing is logged,
// and the iteration and `outcome` fail with `HostError('cancelled')`. Once it starts, it is the
// agent's own stream (`agent.stream`, `agent.streamAnswers`); what the agent refuses at once (an
// answer the log refuses) fails the iteration and `outcome` the same way.
import {
  type Agent,
  type AnswerStreamOptions,
  LoopError,
  signalReason,
  type TurnEvent,
  type TurnOutcome,
  type TurnStream,
} from "../loop/index.js";
import type { QueuedPrompt } from "./queued-prompt.js";
import { HostError, type HostStreamOptions } from "./types.js";

/** Starts the queued turn's stream on the session's agent. */
export type StartStream = (agent: Agent, options: AnswerStreamOptions) => TurnStream;

export class QueuedTurnStream implements TurnStream, QueuedPrompt {
  readonly profile: string | undefined;
  readonly creates: boolean;
  readonly outcome: Promise<TurnOutcome>;
  readonly #start: StartStream;
  readonly #options: HostStreamOptions;
  readonly #onDrop: (prompt: QueuedPrompt) => void;
  #resolve!: (outcome: TurnOutcome) => void;
  #reject!: (error: unknown) => void;
  #state: "waiting" | "running" | "failed" = "waiting";
  #failure: unknown;
  #inner: TurnStream | undefined;
  #events: AsyncIterator<TurnEvent> | undefined;
  #wake: (() => void) | undefined;
  #iterated = false;

  constructor(
    start: StartStream,
    options: HostStreamOptions,
    creates: boolean,
    onDrop: (prompt: QueuedPrompt) => void,
  ) {
    this.#start = start;
    this.#options = options;
    this.profile = options.profile;
    this.creates = creates;
    this.#onDrop = onDrop;
    this.outcome = new Promise((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    this.outcome.catch(() => {}); // the iteration rethrows it to whoever iterates
    options.signal?.addEventListener("abort", this.#onAbort, { once: true });
    if (options.signal?.aborted) this.#onAbort();
  }

  get settled(): boolean {
    return this.#state !== "waiting";
  }

  run(agent: Agent, ended: () => void): Promise<void> {
    if (this.#state !== "waiting") return Promise.resolve();
    const { signal, maxBufferedChars } = this.#options;
    let inner: TurnStream;
    try {
      inner = this.#start(agent, {
        ...(signal === undefined ? {} : { signal }),
        ...(maxBufferedChars === undefined ? {} : { maxBufferedChars }),
      });
    } catch (error) {
      this.fail(error);
      ended();
      return Promise.resolve();
    }
    this.#state = "running";
    signal?.removeEventListener("abort", this.#onAbort); // the agent's stream listens from now on
    this.#inner = inner;
    this.#notify();
    // Registered after the feed's own: the feed has queued its turn-end before `ended` runs, and
    // the consumer sees it after.
    return inner.outcome.then(
      (outcome) => {
        ended();
        this.#resolve(outcome);
      },
      (error: unknown) => {
        ended();
        this.#reject(error);
      },
    );
  }

  fail(error: unknown): void {
    if (this.#state !== "waiting") return;
    this.#state = "failed";
    this.#failure = error;
    this.#options.signal?.removeEventListener("abort", this.#onAbort);
    this.#reject(error);
    this.#onDrop(this);
    this.#notify();
  }

  abandon(error: HostError): void {
    if (this.#state === "running") this.#inner?.cancel(error.message);
    else this.fail(error);
  }

  cancel(reason = "cancelled"): void {
    if (this.#state === "running") this.#inner?.cancel(reason);
    else this.fail(new HostError("cancelled", `the prompt was dropped before its turn started (${reason})`));
  }

  /** The agent's durable position once the turn runs (`TurnStream.durableThrough`); −1 before. */
  durableThrough(): number {
    return this.#inner?.durableThrough?.() ?? -1;
  }

  [Symbol.asyncIterator](): AsyncIterator<TurnEvent> {
    if (this.#iterated)
      throw new LoopError("already-iterated", "a turn stream can be iterated once (host.follow reads it again)");
    this.#iterated = true;
    return { next: () => this.#next(), return: () => this.#return() };
  }

  async #next(): Promise<IteratorResult<TurnEvent>> {
    for (;;) {
      if (this.#inner !== undefined) {
        this.#events ??= this.#inner[Symbol.asyncIterator]();
        return this.#events.next();
      }
      if (this.#state === "failed") throw this.#failure;
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
    }
  }

  /** Breaking the iteration early: drops a waiting prompt, cancels a running turn. */
  async #return(): Promise<IteratorResult<TurnEvent>> {
    if (this.#inner !== undefined) {
      this.#events ??= this.#inner[Symbol.asyncIterator]();
      return (await this.#events.return?.()) ?? { done: true, value: undefined };
    }
    this.cancel("stream closed");
    return { done: true, value: undefined };
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  readonly #onAbort = (): void => this.cancel(signalReason(this.#options.signal!));
}
