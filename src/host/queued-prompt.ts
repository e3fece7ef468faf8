// A prompt waiting in its session's FIFO, and the `send` form of it. The host hands a prompt to
// its agent only once the previous turn of the session has ended, so the agent's inbox never
// holds two prompts and each prompt is a turn of its own (the loop merges prompts that wait
// together: Agent.send).
import { type Agent, signalReason, type TurnOutcome } from "../loop/index.js";
import { HostError } from "./types.js";

/** One queued prompt, as its session's queue drives it. */
export interface QueuedPrompt {
  /** The profile the prompt asked for (undefined: the session's, or the default). */
  readonly profile: string | undefined;
  /** Whether its turn may create the session when the store has none (a prompt); an answer or a cancel may not. */
  readonly creates: boolean;
  /** True once it can no longer run (dropped, failed, or already run): the queue skips it. */
  readonly settled: boolean;
  /**
   * Runs its turn on `agent` (the session's agent, idle); calls `ended` once the turn has ended,
   * just before its caller learns the outcome; resolves after that. Never rejects.
   */
  run(agent: Agent, ended: () => void): Promise<void>;
  /** Ends it without running: its caller gets `error` (a failed open, a closing host). */
  fail(error: unknown): void;
  /** Waiting: fails it with `error`. Running: cancels its turn (it ends `aborted`, `error.message` the reason). */
  abandon(error: HostError): void;
  /** Running: cancels its turn (`aborted`, with `reason`). Not started: drops it (`HostError('cancelled')`). */
  cancel(reason: string): void;
}

/**
 * `host.send` (and `host.decide`): the outcome promise of one queued turn — or, for
 * `host.checkAnswers`, of a check that runs in the turn's place and logs nothing.
 */
export class QueuedSend<T = TurnOutcome> implements QueuedPrompt {
  readonly profile: string | undefined;
  readonly creates: boolean;
  readonly promise: Promise<T>;
  /** Starts the turn on the session's agent: `agent.send(prompt)`, or `agent.decide(…)`. */
  readonly #start: (agent: Agent) => Promise<T>;
  readonly #signal: AbortSignal | undefined;
  readonly #onDrop: (prompt: QueuedPrompt) => void;
  #resolve!: (outcome: T) => void;
  #reject!: (error: unknown) => void;
  #state: "waiting" | "running" | "settled" = "waiting";
  #agent: Agent | undefined;

  constructor(
    start: (agent: Agent) => Promise<T>,
    profile: string | undefined,
    signal: AbortSignal | undefined,
    creates: boolean,
    onDrop: (prompt: QueuedPrompt) => void,
  ) {
    this.#start = start;
    this.profile = profile;
    this.creates = creates;
    this.#signal = signal;
    this.#onDrop = onDrop;
    this.promise = new Promise((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    signal?.addEventListener("abort", this.#onAbort, { once: true });
    if (signal?.aborted) this.#onAbort();
  }

  get settled(): boolean {
    return this.#state !== "waiting";
  }

  async run(agent: Agent, ended: () => void): Promise<void> {
    if (this.#state !== "waiting") return;
    this.#state = "running";
    this.#agent = agent;
    let result: { outcome: T } | { error: unknown };
    try {
      result = { outcome: await this.#start(agent) };
    } catch (error) {
      result = { error };
    }
    this.#state = "settled";
    this.#agent = undefined;
    this.#signal?.removeEventListener("abort", this.#onAbort);
    ended();
    if ("outcome" in result) this.#resolve(result.outcome);
    else this.#reject(result.error);
  }

  fail(error: unknown): void {
    if (this.#state !== "waiting") return;
    this.#state = "settled";
    this.#signal?.removeEventListener("abort", this.#onAbort);
    this.#reject(error);
    this.#onDrop(this);
  }

  abandon(error: HostError): void {
    if (this.#state === "running") this.#agent?.cancel(error.message);
    else this.fail(error);
  }

  cancel(reason: string): void {
    if (this.#state === "running") this.#agent?.cancel(reason);
    else this.fail(new HostError("cancelled", `the prompt was dropped before its turn started (${reason})`));
  }

  readonly #onAbort = (): void => this.cancel(signalReason(this.#signal!));
}
