// createAgentHost: many sessions in one process. Admission at the door (id, prompt, profile,
// busy, closed) before anything is queued or the store touched; per-session FIFO slots
// (session-slot.ts) that run one turn at a time; open-or-create on a prompt's turn (open-agent.ts);
// idle agents kept least recently used first and evicted beyond `maxOpen` or after `idleMs`
// (dispose: flushed and released; the next prompt resumes the session); `close` drains.
import { previewJson } from "../json/index.js";
import {
  type Agent,
  type AgentProfile,
  type AnswerBatch,
  type ApprovalDecision,
  type InputAnswer,
  checkStreamOptions,
  promptContent,
  promptOverWindow,
  type TurnEvent,
  type TurnOutcome,
  type TurnStream,
} from "../loop/index.js";
import { isSafeSessionId, type SessionEvent } from "../session/index.js";
import { type SessionStore, sessionPauses, storeReader } from "../store/index.js";
import { systemClock } from "./host-clock.js";
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
/** What `#admit` is given for a decision (which has no prompt to check). */
const DECISION = Symbol("decision");

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
    this.#clock = options.clock ?? systemClock;
    this.#onError = options.onError ?? (() => {});
  }

  send(sessionId: string, prompt: HostPrompt, options: HostPromptOptions = {}): Promise<TurnOutcome> {
    return this.#queue(sessionId, prompt, options, (agent) => agent.send(prompt));
  }

  decide(
    sessionId: string,
    callId: string,
    decision: ApprovalDecision,
    options: HostPromptOptions = {},
  ): Promise<TurnOutcome> {
    return this.#queue(sessionId, DECISION, options, (agent) => agent.decide(callId, decision));
  }

  stream(sessionId: string, prompt: HostPrompt, options: HostStreamOptions = {}): TurnStream {
    return this.#queueStream(sessionId, prompt, options, (agent, o) => agent.stream(prompt, o));
  }

  streamAnswers(sessionId: string, answers: AnswerBatch, options: HostStreamOptions = {}): TurnStream {
    return this.#queueStream(sessionId, DECISION, options, (agent, o) => agent.streamAnswers(answers, o));
  }

  checkAnswers(sessionId: string, answers: AnswerBatch, options: HostPromptOptions = {}): Promise<void> {
    return this.#queue(sessionId, DECISION, options, (agent) => agent.checkAnswers(answers));
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
    checkOptions(options);
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
      slot.agent = await openAgent(this.#store, slot.id, name, this.#profiles.get(name), () => !prompt.settled);
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

  respond(sessionId: string, id: string, answer: InputAnswer, options: HostPromptOptions = {}): Promise<TurnOutcome> {
    return this.#queue(sessionId, DECISION, options, (agent) => agent.respond(id, answer));
  }

  /** Queues a turn that `start`s on the session's agent (a prompt, or `DECISION`: a decision or an answer, or their check). */
  #queue<T>(
    sessionId: string,
    prompt: HostPrompt | typeof DECISION,
    options: HostPromptOptions,
    start: (agent: Agent) => Promise<T>,
  ): Promise<T> {
    let slot: SessionSlot;
    try {
      slot = this.#admit(sessionId, prompt, options);
    } catch (error) {
      return Promise.reject(error);
    }
    const queued = new QueuedSend(start, options.profile, options.signal, (dropped) => slot.remove(dropped));
    slot.enqueue(queued);
    return queued.promise;
  }

  #queueStream(
    sessionId: string,
    prompt: HostPrompt | typeof DECISION,
    options: HostStreamOptions,
    start: StartStream,
  ): TurnStream {
    const slot = this.#admit(sessionId, prompt, options);
    const stream = new QueuedTurnStream(start, options, (dropped) => slot.remove(dropped));
    slot.enqueue(stream);
    return stream;
  }

  /** Checks a queued turn at the door (`DECISION`: a decision, not a prompt) and returns its slot. */
  #admit(sessionId: string, prompt: HostPrompt | typeof DECISION, options: HostPromptOptions): SessionSlot {
    this.#refuseClosed();
    checkSessionId(sessionId);
    checkOptions(options);
    if (options.ifBusy !== undefined && options.ifBusy !== "queue" && options.ifBusy !== "reject")
      throw new HostError("invalid-options", `ifBusy must be "queue" or "reject", got ${previewJson(options.ifBusy)}`);
    this.#profiles.check(options.profile);
    const existing = this.#slots.get(sessionId);
    if (prompt !== DECISION) {
      // The model the turn would run on, where the door knows it: the profile it names, or the one a
      // prompt ahead of it switches to, else the open agent's, else the default profile's.
      const named =
        options.profile ??
        existing?.namedProfile ??
        (existing?.agent === undefined ? this.#profiles.fallback : undefined);
      const open = existing?.agent !== undefined && (named === undefined || named === existing.profile);
      checkPrompt(
        sessionId,
        prompt,
        open ? existing?.agent : named === undefined ? undefined : this.#profiles.get(named),
      );
    }
    if (options.ifBusy === "reject" && existing?.busy === true)
      throw new HostError("busy", `session ${sessionId} has a turn running or waiting`);
    // An open session paused for a person refuses a prompt at the door (the loop would, once queued).
    const waiting = prompt !== DECISION && existing?.busy !== true ? existing?.agent?.session.waitingCalls().length : 0;
    if (waiting !== undefined && waiting > 0)
      throw new HostError(
        "awaiting-approval",
        `session ${sessionId} awaits ${waiting} approval(s) or answer(s): decide or answer them (host.streamAnswers), or cancel, before a new prompt`,
      );
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

  /** Drops a slot that holds nothing (no agent, no prompt, no dispose or release owed). */
  #forget(slot: SessionSlot): void {
    if (slot.busy || slot.agent !== undefined || slot.closing !== undefined || slot.releaseOwed) return;
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

function checkSessionId(sessionId: unknown): asserts sessionId is string {
  if (typeof sessionId !== "string" || !isSafeSessionId(sessionId))
    throw new HostError("invalid-id", `${previewJson(sessionId)} is not a valid session id`);
}

/**
 * The agent's own checks of a prompt (loop/prompt-content.ts), made before the prompt is queued:
 * its shape, and that it could fit the context window of `target`'s model (when the door knows
 * the provider: not a profile's factory — that agent checks when it takes the prompt).
 */
function checkPrompt(
  sessionId: string,
  prompt: unknown,
  target: Pick<AgentProfile, "provider" | "model"> | undefined,
): void {
  const what = `the prompt for session ${sessionId}`;
  const parts = promptContent(prompt, what, (message) => new HostError("invalid-prompt", message));
  if (target === undefined || typeof target.provider === "function") return;
  const tooLarge = promptOverWindow(parts, target.provider, target.model, what);
  if (tooLarge !== undefined) throw new HostError("prompt-too-large", tooLarge);
}

/** The agent's own check of a stream's options (loop/stream-options.ts), made at the host's door. */
const checkOptions = (options: { readonly maxBufferedChars?: unknown; readonly signal?: unknown }): void =>
  checkStreamOptions(options, (message) => new HostError("invalid-options", message));
