// One session in a host: its FIFO of waiting prompts, the agent open on it (if any), and the
// drain that runs the prompts one turn at a time, in order. Opening, switching profiles and
// eviction are the host's (agent-host.ts), reached through `SlotPort`.
import type { Agent } from "../loop/index.js";
import type { QueuedPrompt } from "./queued-prompt.js";
import type { HostError } from "./types.js";

/** What a slot needs from its host. */
export interface SlotPort {
  /** The agent to run `prompt`'s turn on (opened, or reopened under another profile). */
  agentFor(slot: SessionSlot, prompt: QueuedPrompt): Promise<Agent>;
  /**
   * The slot's queue ran dry: its agent (if open) is idle now. Called as a turn ends, before its
   * caller learns the outcome, and again when the drain stops (idempotent).
   */
  idle(slot: SessionSlot): void;
}

export class SessionSlot {
  readonly id: string;
  /** The agent open on this session, and the profile it was built from. */
  agent: Agent | undefined;
  profile: string | undefined;
  /** An eviction's dispose in flight: a new open waits for it. */
  closing: Promise<void> | undefined;
  /** A dispose failed to flush: the store still holds the session, and must release it before it is opened again. */
  releaseOwed = false;
  /** When the agent last went idle (the host clock). */
  idleSince = 0;
  /** `host.cancel` closing the session's pause in a turn of its own, until it has: a second cancel joins it. */
  pauseClose: Promise<void> | undefined;
  readonly #port: SlotPort;
  readonly #queue: QueuedPrompt[] = [];
  /** The prompt taken off the queue: opening its agent, or running its turn. */
  #current: QueuedPrompt | undefined;
  #running = false;
  #drain: Promise<void> | undefined;
  /** Settles the `turnUnderway` calls waiting for the next change (an agent opened, a turn started, the queue ran dry). */
  #changed: (() => void)[] = [];

  constructor(id: string, port: SlotPort) {
    this.id = id;
    this.#port = port;
  }

  /** A turn runs, a prompt waits, or an agent is being opened for one. */
  get busy(): boolean {
    return this.#current !== undefined || this.#queue.length > 0;
  }

  get running(): boolean {
    return this.#running;
  }

  /** The drain runs: it may still be opening an agent, for a prompt dropped meanwhile (the slot is not busy, yet not free). */
  get draining(): boolean {
    return this.#drain !== undefined;
  }

  /** Prompts that have not started: waiting in the queue, or taken off it while their agent opens. */
  get waiting(): number {
    return this.#queue.length + (this.#current !== undefined && !this.#running ? 1 : 0);
  }

  /** The profile named by the latest prompt queued or under way that names one: the one a new unnamed prompt follows. */
  get namedProfile(): string | undefined {
    for (let i = this.#queue.length - 1; i >= 0; i--)
      if (this.#queue[i]!.profile !== undefined) return this.#queue[i]!.profile;
    return this.#current?.profile;
  }

  enqueue(prompt: QueuedPrompt): void {
    this.#queue.push(prompt);
    this.#drain ??= this.#run();
  }

  /**
   * Takes a dropped prompt out of the queue — or out of the way while its agent is still opening:
   * the session is not busy with it any more before its caller learns it was dropped (the open
   * goes on, for the next prompt or for nothing).
   */
  remove(prompt: QueuedPrompt): void {
    const at = this.#queue.indexOf(prompt);
    if (at >= 0) this.#queue.splice(at, 1);
    else if (this.#current === prompt && !this.#running) {
      this.#current = undefined;
      this.#change();
    }
  }

  /**
   * `host.cancel`: the prompt under way — its turn cancelled (`aborted`), or, its agent still
   * opening, the prompt dropped. False when none is under way. The prompts waiting behind stay.
   */
  cancelCurrent(reason: string): boolean {
    // Admitted but not yet taken off the queue (the drain starts on the next tick): the same prompt.
    const current = this.#current ?? this.#queue.find((prompt) => !prompt.settled);
    if (current === undefined) return false;
    current.cancel(reason);
    return true;
  }

  /** Fails every waiting prompt and cancels the running turn (a host closing with `mode: 'cancel'`). */
  abandonAll(error: HostError): void {
    for (const prompt of this.#queue.splice(0)) prompt.abandon(error);
    this.#current?.abandon(error);
  }

  /**
   * Resolves once the turn of an admitted prompt has started on the open agent, or once nothing
   * runs or waits: a follower that comes right after a prompt was admitted (its agent still
   * opening, its turn not yet started) then sees that turn instead of an idle log.
   */
  async turnUnderway(): Promise<void> {
    while (this.busy && (this.agent === undefined || this.agent.session.openTurn === null))
      await new Promise<void>((resolve) => this.#changed.push(resolve));
  }

  #change(): void {
    for (const resolve of this.#changed.splice(0)) resolve();
  }

  /** Resolves once nothing runs or waits. */
  whenIdle(): Promise<void> {
    return this.#drain ?? Promise.resolve();
  }

  async #run(): Promise<void> {
    await Promise.resolve(); // let the caller's frame finish (a stream is returned before its turn is started)
    for (let prompt = this.#queue.shift(); prompt !== undefined; prompt = this.#queue.shift()) {
      if (prompt.settled) continue;
      this.#current = prompt;
      try {
        let agent: Agent;
        try {
          agent = await this.#port.agentFor(this, prompt);
        } catch (error) {
          prompt.fail(error);
          continue;
        }
        this.#running = !prompt.settled;
        const unobserve = agent.session.observe((event) => {
          if (event.type === "turn/start") this.#change();
        });
        this.#change(); // the agent is open
        // Idle again before the prompt's caller learns the outcome: a caller that awaits it and
        // sends again (`ifBusy: 'reject'`) finds the session free.
        await prompt
          .run(agent, () => {
            this.#running = false;
            this.#current = undefined;
            if (this.#queue.length === 0) this.#port.idle(this);
            this.#change();
          })
          .finally(unobserve);
      } finally {
        this.#running = false;
        this.#current = undefined;
      }
    }
    this.#drain = undefined;
    this.#port.idle(this);
    this.#change();
  }
}
