// createAgentHost: many sessions in one process. Admission at the door (id, prompt, profile,
// busy, closed) before anything is queued or the store touched; per-session FIFO slots
// (session-slot.ts) that run one turn at a time; open-or-create on a prompt's turn (open-agent.ts);
// idle agents kept least recently used first and evicted beyond `maxOpen` or after `idleMs`
// (dispose: flushed and released; the next prompt resumes the session); `close` drains.
import { previewJson } from "../json/index.js";
import type {
  Agent,
  AnswerBatch,
  ApprovalDecision,
  InputAnswer,
  TurnEvent,
  TurnOutcome,
  TurnStream,
} from "../loop/index.js";
import type { SessionEvent } from "../session/index.js";
import { type SessionStore, sessionPauses, storeReader } from "../store/index.js";
import {
  type AnswerShape,
  awaitingPerson,
  checkAnswerShape,
  checkOptions,
  checkPrompt,
  checkSessionId,
} from "./door-checks.js";
import { checkClock, systemClock } from "./host-clock.js";
import { HostProfiles } from "./host-profiles.js";
import { openAgent } from "./open-agent.js";
import { type QueuedPrompt, QueuedSend } from "./queued-prompt.js";
import { QueuedTurnStream, type StartStream } from "./queued-turn-stream.js";
import { SessionSlot, type SlotPort } from "./session-slot.js";
import { followSlot } from "./slot-follow.js";
import { checkPosition, followStored, loadStored } from "./stored-follow.js";
import {
  type AgentHost,
  type AgentHostOptions,
  type HostClock,
  type HostCloseOptions,
  HostError,
  type HostFollowOptions,
  type HostPending,
  type HostPrompt,
  type HostPromptOptions,
  type HostStats,
  type HostStreamOptions,
} from "./types.js";

const DEFAULT_MAX_OPEN = 100;
const DEFAULT_IDLE_MS = 300_000;

/** A host over `options.store` serving `options.profile` / `options.profiles` (see AgentHost). */
/** What a door queues: a prompt, or an answer (checked for its shape at the door). */
type Admitted = { readonly kind: "prompt"; readonly prompt: HostPrompt } | AnswerShape;

export function createAgentHost(options: AgentHostOptions): AgentHost {
  return new SessionHost(options);
}

class SessionHost implements AgentHost, SlotPort {
  readonly #store: SessionStore;
  readonly #profiles: HostProfiles;
  readonly #maxOpen: number;
  readonly #idleMs: number;
  readonly #clock: HostClock;
  readonly #onError: (error: unknown, where: string) => void;
  /** Every session with an open agent, a prompt, or an eviction in flight. */
  readonly #slots = new Map<string, SessionSlot>();
  /** Slots whose agent is open and idle, least recently used first. */
  readonly #idle = new Set<SessionSlot>();
  /** Agents open or being opened. */
  #open = 0;
  #cancelTimer: (() => void) | undefined;
  #closed = false;
  #closing: Promise<void> | undefined;

  constructor(options: AgentHostOptions) {
    if (typeof options !== "object" || options === null || typeof options.store?.load !== "function")
      throw new HostError("invalid-options", "createAgentHost needs a `store` (a SessionStore)");
    this.#store = options.store;
    this.#profiles = new HostProfiles(options.profile, options.profiles);
    this.#maxOpen = options.maxOpen ?? DEFAULT_MAX_OPEN;
    if (!Number.isSafeInteger(this.#maxOpen) || this.#maxOpen < 1)
      throw new HostError("invalid-options", `maxOpen must be an integer ≥ 1, got ${previewJson(options.maxOpen)}`);
    this.#idleMs = options.idleMs ?? DEFAULT_IDLE_MS;
    if (typeof this.#idleMs !== "number" || !(this.#idleMs > 0))
      throw new HostError("invalid-options", `idleMs must be a number > 0, got ${previewJson(options.idleMs)}`);
    this.#clock = checkClock(options.clock ?? systemClock);
    if (options.onError !== undefined && typeof options.onError !== "function")
      throw new HostError("invalid-options", `onError must be a function, got ${previewJson(options.onError, 80)}`);
    this.#onError = options.onError ?? (() => {});
  }

  send(sessionId: string, prompt: HostPrompt, options: HostPromptOptions = {}): Promise<TurnOutcome> {
    return this.#queue(sessionId, { kind: "prompt", prompt }, options, (agent) => agent.send(prompt));
  }

  decide(
    sessionId: string,
    callId: string,
    decision: ApprovalDecision,
    options: HostPromptOptions = {},
  ): Promise<TurnOutcome> {
    const shape = { kind: "decision", callId, decision } as const;
    return this.#queue(sessionId, shape, options, (agent) => agent.decide(callId, decision));
  }

  respond(sessionId: string, id: string, answer: InputAnswer, options: HostPromptOptions = {}): Promise<TurnOutcome> {
    const shape = { kind: "response", id, answer } as const;
    return this.#queue(sessionId, shape, options, (agent) => agent.respond(id, answer));
  }

  stream(sessionId: string, prompt: HostPrompt, options: HostStreamOptions = {}): TurnStream {
    return this.#queueStream(sessionId, { kind: "prompt", prompt }, options, (agent, o) => agent.stream(prompt, o));
  }

  streamAnswers(sessionId: string, answers: AnswerBatch, options: HostStreamOptions = {}): TurnStream {
    const shape = { kind: "batch", batch: answers } as const;
    return this.#queueStream(sessionId, shape, options, (agent, o) => agent.streamAnswers(answers, o));
  }

  checkAnswers(sessionId: string, answers: AnswerBatch, options: HostPromptOptions = {}): Promise<void> {
    const shape = { kind: "batch", batch: answers } as const;
    return this.#queue(sessionId, shape, options, (agent) => agent.checkAnswers(answers));
  }

  cancel(sessionId: string, reason = "cancelled"): Promise<void> {
    try {
      checkSessionId(sessionId);
      checkAnswerShape({ kind: "cancel", reason });
    } catch (error) {
      return Promise.reject(error);
    }
    const slot = this.#slots.get(sessionId);
    // A close of the pause under way (a second click on Stop): joined — dropped as a prompt whose
    // agent still opens, it would leave the session paused (found from outside).
    if (slot?.pauseClose !== undefined) return slot.pauseClose;
    // The prompt under way (also while its agent opens, also while the host drains): cancelled
    // through its own stream or send, so an answer running through a subagent stops there too.
    if (slot?.cancelCurrent(reason) === true) return Promise.resolve();
    // Idle: a paused turn is closed in a turn of its own (the session opened if it is not, never created).
    const closing = this.#queue(sessionId, { kind: "cancel", reason }, {}, async (agent) => {
      if (agent.session.waitingCalls().length === 0) return;
      agent.cancel(reason);
      await agent.whenIdle();
    });
    const queued = this.#slots.get(sessionId);
    if (queued !== undefined) {
      queued.pauseClose = closing;
      const done = (): void => {
        if (queued.pauseClose === closing) queued.pauseClose = undefined;
      };
      closing.then(done, done);
    }
    return closing;
  }

  async pending(sessionId: string): Promise<HostPending> {
    this.#refuseClosed();
    checkSessionId(sessionId);
    const agent = this.#slots.get(sessionId)?.agent;
    if (agent !== undefined) return { approvals: agent.pendingApprovals(), inputs: agent.pendingInputs() };
    const session = await loadStored(this.#store, sessionId);
    if (session === undefined) return { approvals: [], inputs: [] };
    // Its subagents' requests too (each child read-only), as the open agent lists them.
    return sessionPauses(session, storeReader(this.#store));
  }

  async log(sessionId: string): Promise<readonly SessionEvent[]> {
    this.#refuseClosed();
    checkSessionId(sessionId);
    const agent = this.#slots.get(sessionId)?.agent;
    if (agent !== undefined) return agent.session.events; // frozen: later appends do not change it
    const session = await loadStored(this.#store, sessionId);
    if (session === undefined) throw new HostError("not-found", `no session ${sessionId} in the store`);
    return session.events;
  }

  async follow(sessionId: string, options: HostFollowOptions = {}): Promise<AsyncIterableIterator<TurnEvent>> {
    this.#refuseClosed();
    checkSessionId(sessionId);
    checkOptions(options, "follow");
    const slot = this.#slots.get(sessionId);
    await slot?.turnUnderway(); // an admitted prompt's turn is followed, even while its agent opens
    const agent = slot?.agent;
    if (slot === undefined || agent === undefined) return followStored(this.#store, sessionId, options.from);
    const from = checkPosition(options.from, agent.session.length, sessionId);
    const { maxBufferedChars } = options;
    const feed = agent.follow({ from, ...(maxBufferedChars === undefined ? {} : { maxBufferedChars }) });
    return followSlot(slot, feed, from, maxBufferedChars); // and the turns of the prompts still waiting
  }

  stats(): HostStats {
    let open = 0;
    let running = 0;
    let queued = 0;
    for (const slot of this.#slots.values()) {
      if (slot.agent !== undefined) open++;
      if (slot.running) running++;
      queued += slot.waiting;
    }
    return { open, running, queued };
  }

  close(options: HostCloseOptions = {}): Promise<void> {
    try {
      checkOptions(options, "close");
      if (options.mode !== undefined && options.mode !== "drain" && options.mode !== "cancel")
        throw new HostError("invalid-options", `mode must be "drain" or "cancel", got ${previewJson(options.mode)}`);
    } catch (error) {
      return Promise.reject(error);
    }
    const mode = options.mode ?? "drain";
    // A drain under way escalates to a cancel (a server whose graceful stop takes too long).
    if (this.#closing !== undefined && mode === "cancel") this.#abandonAll();
    this.#closing ??= this.#close(mode);
    return this.#closing;
  }

  // SlotPort

  async agentFor(slot: SessionSlot, prompt: QueuedPrompt): Promise<Agent> {
    const name = this.#profiles.choose(prompt.profile, slot.agent === undefined ? undefined : slot.profile, slot.id);
    if (slot.agent !== undefined && slot.profile === name) return slot.agent;
    if (slot.agent !== undefined) this.#evict(slot); // another profile: a new loop instance over the session
    if (slot.closing !== undefined) await slot.closing;
    if (slot.releaseOwed) {
      await this.#store.release(slot.id); // throws while the store still cannot flush it: the prompt fails
      slot.releaseOwed = false;
    }
    this.#makeRoom(1);
    this.#open++;
    try {
      const profile = this.#profiles.get(name);
      slot.agent = await openAgent(this.#store, slot.id, name, profile, () => !prompt.settled, prompt.creates);
      slot.profile = name;
      return slot.agent;
    } catch (error) {
      this.#open--;
      throw error;
    }
  }

  idle(slot: SessionSlot): void {
    if (slot.agent === undefined) {
      this.#forget(slot);
      return;
    }
    slot.idleSince = this.#clock.now();
    this.#idle.delete(slot);
    this.#idle.add(slot);
    this.#makeRoom(0);
    this.#schedule();
  }

  // Internals

  /** Queues a turn that `start`s on the session's agent: a prompt's, or an answer's (`AnswerShape`: decisions, answers, their check, a cancel). */
  #queue<T>(
    sessionId: string,
    what: Admitted,
    options: HostPromptOptions,
    start: (agent: Agent) => Promise<T>,
  ): Promise<T> {
    let slot: SessionSlot;
    try {
      slot = this.#admit(sessionId, what, options, "prompt");
    } catch (error) {
      return Promise.reject(error);
    }
    const creates = what.kind === "prompt";
    const queued = new QueuedSend(start, options.profile, options.signal, creates, (dropped) => slot.remove(dropped));
    slot.enqueue(queued);
    return queued.promise;
  }

  #queueStream(sessionId: string, what: Admitted, options: HostStreamOptions, start: StartStream): TurnStream {
    const slot = this.#admit(sessionId, what, options, "stream");
    const stream = new QueuedTurnStream(start, options, what.kind === "prompt", (dropped) => slot.remove(dropped));
    slot.enqueue(stream);
    return stream;
  }

  /** Checks a queued turn at the door and returns its slot. */
  #admit(sessionId: string, what: Admitted, options: HostPromptOptions, door: "prompt" | "stream"): SessionSlot {
    this.#refuseClosed();
    checkSessionId(sessionId);
    checkOptions(options, door);
    this.#profiles.check(options.profile);
    const existing = this.#slots.get(sessionId);
    if (what.kind !== "prompt") checkAnswerShape(what);
    else {
      // The model the turn would run on, where the door knows it: the profile it names, or the one a
      // prompt ahead of it switches to, else the open agent's, else the default profile's.
      const named =
        options.profile ??
        existing?.namedProfile ??
        (existing?.agent === undefined ? this.#profiles.fallback : undefined);
      const open = existing?.agent !== undefined && (named === undefined || named === existing.profile);
      checkPrompt(
        sessionId,
        what.prompt,
        open ? existing?.agent : named === undefined ? undefined : this.#profiles.get(named),
      );
    }
    if (options.ifBusy === "reject" && existing?.busy === true)
      throw new HostError("busy", `session ${sessionId} has a turn running or waiting`);
    // An open session paused for a person refuses a prompt at the door (the loop would, once queued).
    const paused =
      what.kind === "prompt" && existing?.busy !== true ? awaitingPerson(sessionId, existing?.agent) : undefined;
    if (paused !== undefined) throw paused;
    if (options.profile === undefined && existing?.agent === undefined && existing?.busy !== true)
      this.#profiles.choose(undefined, undefined, sessionId); // throws when no profile would apply
    const slot = existing ?? new SessionSlot(sessionId, this);
    if (existing === undefined) this.#slots.set(sessionId, slot);
    this.#idle.delete(slot); // busy from now on: never evicted
    return slot;
  }

  #refuseClosed(): void {
    if (this.#closed) throw new HostError("closed", "the agent host is closed (host.close() was called)");
  }

  /** Evicts least recently used idle agents until `extra` more fit under `maxOpen`. */
  #makeRoom(extra: number): void {
    for (const slot of this.#idle) {
      if (this.#open + extra <= this.#maxOpen) return;
      this.#evict(slot);
    }
  }

  /** Disposes the slot's agent (flushed, released); the next prompt for the session opens it again. */
  #evict(slot: SessionSlot): void {
    const agent = slot.agent;
    if (agent === undefined) return;
    slot.agent = undefined;
    this.#open--;
    this.#idle.delete(slot);
    const closing: Promise<void> = agent
      .dispose()
      .catch((error: unknown) => {
        slot.releaseOwed = true; // the store kept the session and its buffer: released before the next open
        this.#onError(error, `evicting session ${slot.id}`);
      })
      .finally(() => {
        if (slot.closing === closing) slot.closing = undefined;
        if (!slot.busy && slot.agent === undefined) this.#forget(slot);
      });
    slot.closing = closing;
  }

  /** Drops a slot that holds nothing (no agent, no prompt, no drain still opening one, no dispose or release owed). */
  #forget(slot: SessionSlot): void {
    if (slot.busy || slot.draining || slot.agent !== undefined || slot.closing !== undefined || slot.releaseOwed)
      return;
    if (this.#slots.get(slot.id) === slot) this.#slots.delete(slot.id);
  }

  /** One timer for the least recently used idle agent's deadline (unref'd by the default clock). */
  #schedule(): void {
    if (this.#cancelTimer !== undefined || this.#closed || this.#idleMs === Number.POSITIVE_INFINITY) return;
    const first = this.#idle.values().next();
    if (first.done === true) return;
    const wait = Math.max(0, first.value.idleSince + this.#idleMs - this.#clock.now());
    this.#cancelTimer = this.#clock.setTimer(() => {
      this.#cancelTimer = undefined;
      this.#sweep();
    }, wait);
  }

  #sweep(): void {
    const now = this.#clock.now();
    for (const slot of this.#idle) {
      if (now - slot.idleSince < this.#idleMs) break;
      this.#evict(slot);
    }
    this.#schedule();
  }

  /** Cancels the running turns and fails the waiting prompts (`closed`). */
  #abandonAll(): void {
    const error = new HostError("closed", "the agent host is closing");
    for (const slot of this.#slots.values()) slot.abandonAll(error);
  }

  async #close(mode: "drain" | "cancel"): Promise<void> {
    this.#closed = true;
    if (mode === "cancel") this.#abandonAll();
    await Promise.all([...this.#slots.values()].map((slot) => slot.whenIdle()));
    this.#cancelTimer?.();
    this.#cancelTimer = undefined;
    const slots = [...this.#slots.values()];
    for (const slot of slots) this.#evict(slot);
    await Promise.all(slots.map((slot) => slot.closing));
    for (const slot of slots) {
      if (!slot.releaseOwed) continue;
      try {
        await this.#store.release(slot.id);
        slot.releaseOwed = false;
      } catch (error) {
        this.#onError(error, `releasing session ${slot.id} at close`);
      }
    }
  }
}
