// createAgent and the Agent handle: a thin stateful shell over runTurn. It owns the inbox,
// the turn driver (one turn at a time, turn numbers always re-derived from the log), the
// per-instance state (cached prefix, header writer), store wiring and dispose.
import { errorMessage } from "../errors/index.js";
import { HeaderWriter, type RequestConfig } from "../header/index.js";
import { type Dispose, HookBus, loadPlugin } from "../hooks/index.js";
import type { Provider } from "../llm/core.js";
import type { UserContent } from "../messages/index.js";
import { PromptSections } from "../prompt/index.js";
import { type AnySessionEvent, type PendingApproval, type PendingInput, Session } from "../session/index.js";
import { DEFAULT_MAX_TOOL_RESULT_CHARS, ToolRegistry } from "../tools/index.js";
import { claimAnswers, claimInput, claimItems, notLogged } from "./pause-claims.js";
import { AgentPauseAnswers } from "./pause-answers.js";
import type { AnswerBatch, AnswerStreamOptions, ApprovalDecision, InputAnswer } from "./approval-types.js";
import { DurableLog } from "./durable-log.js";
import { globalHooks, globalPrompt } from "./global.js";
import { type Claim, deferred, Inbox, type Settle, triggerOf } from "./inbox.js";
import { type AbortCause, runTurn, type TurnContext } from "./turn.js";
import {
  type Agent,
  type AgentHooks,
  type AgentOptions,
  type AgentOutput,
  type AgentStatus,
  LoopError,
  type FollowFeed,
  type FollowOptions,
  type SendOptions,
  type StreamOptions,
  type TurnOutcome,
  type TurnStream,
} from "./types.js";
import type { SubagentTurnEvent } from "./turn-events.js";
import { agentPrompt } from "./prompt-content.js";
import { followPositionFault } from "./follow-position.js";
import { checkStreamOptions, type OptionsDoor, sendOptions } from "./stream-options.js";
import { StepSoFar } from "./step-so-far.js";
import { type FeedSource, type LiveSignal, Taps, TurnFeed } from "./turn-feed.js";
import { openTurnStream, type TurnStreamPort } from "./turn-stream.js";
import { type OutputDefaults, outputDefaults, turnOutput } from "./turn-output.js";
import { checkNewSessionId, invariantsDefault, resolveProvider, validateOptions } from "./agent-options.js";

/** How the agent's session came to be: a new one (store file still to create) or an opened one. */
export interface AgentOrigin {
  readonly session: Session;
  /** True when the store already holds this session open for writing (resume, fork). */
  readonly storeOpen: boolean;
}

class LoopAgent implements Agent {
  readonly session: Session;
  readonly provider: Provider;
  readonly model: string;
  readonly hooks: HookBus<AgentHooks>;
  readonly tools = new ToolRegistry();
  readonly prompt = new PromptSections(globalPrompt);
  readonly #options: AgentOptions;
  readonly #provider: Provider;
  readonly #inbox = new Inbox();
  readonly #unloads: Dispose[] = [];
  readonly #persistence: DurableLog | undefined;
  readonly #ready: Promise<void>;
  readonly #context: TurnContext;
  readonly #output: OutputDefaults;
  /** Live chunk listeners of open turn streams. */
  readonly #chunkTaps = new Taps<LiveSignal>();
  /** The step in flight so far, for a feed that joins mid-step (`follow`). */
  readonly #stepSoFar = new StepSoFar();
  /** Listeners of the subagents' forwarded events (open turn streams). */
  readonly #subagentTaps = new Taps<SubagentTurnEvent>();
  /** Listeners of the agent becoming idle (follow feeds waiting for queued input's turn). */
  readonly #idleTaps = new Taps<void>();
  #status: AgentStatus = "idle";
  #controller: AbortController | undefined;
  #driving: Promise<void> | undefined;
  /** A cancel that arrived after work was queued but before its turn's controller existed. */
  #pendingCancel: AbortCause | undefined;
  /** `cancel()` of a paused turn (idle, approvals pending): the next turn closes its waiting calls. */
  #cancelPaused = false;
  #idleWaiters: (() => void)[] = [];
  /** Set when a turn's flush failed: the store is behind the session until a flush succeeds. */
  #unsaved: unknown;
  readonly #pauses: AgentPauseAnswers;

  constructor(options: AgentOptions, origin: AgentOrigin) {
    this.#options = options;
    this.#output = outputDefaults(options);
    this.#provider = resolveProvider(options);
    this.provider = this.#provider;
    this.model = options.model;
    this.session = origin.session;
    this.hooks = new HookBus<AgentHooks>({
      parent: globalHooks,
      report: (error, hook) => {
        if (hook !== "agent/error") this.hooks.emit("agent/error", { agent: this, error, where: hook });
        else process.emitWarning(`agent/error listener failed: ${String(error)}`, "KeelsonHookWarning");
      },
    });
    const { store } = options;
    const persistence = store?.attach(origin.session);
    const created = origin.storeOpen ? undefined : store?.create(origin.session.header, origin.session.events);
    this.#ready = created ?? Promise.resolve();
    this.#persistence = persistence && new DurableLog(persistence, this.session, created);
    this.#ready.catch((error: unknown) => {
      this.#unsaved ??= error; // surfaced by the first turn, and by `saved`
    });
    this.#unloads.push(
      this.session.observe((event) => {
        // Most agents have no listener: no payload to build and freeze per appended event.
        if (this.hooks.count("session/event") > 0)
          this.hooks.emit("session/event", { agent: this, event: event as AnySessionEvent });
      }),
    );
    const system = options.system;
    if (typeof system === "string") this.prompt.set({ name: "system", order: 0, text: system });
    else for (const section of system ?? []) this.prompt.set(section);
    for (const tool of options.tools ?? []) this.tools.register(tool);
    const config: RequestConfig = {
      model: options.model,
      ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
      ...(options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens }),
      ...(options.stop === undefined ? {} : { stop: options.stop }),
    };
    const cwd = options.cwd ?? this.session.header.cwd;
    this.#context = {
      agent: this,
      session: this.session,
      hooks: this.hooks,
      tools: this.tools,
      prompt: this.prompt,
      provider: this.#provider,
      initialConfig: Object.freeze(config),
      promptVars: Object.freeze({
        model: options.model,
        sessionId: this.session.id,
        cwd: cwd ?? "",
        ...options.promptVars,
      }),
      instance: { prefix: undefined, writer: new HeaderWriter(this.session), requestsSent: 0 },
      inbox: this.#inbox,
      maxSteps: options.maxSteps ?? 50,
      toolTimeoutMs: options.toolTimeoutMs,
      maxToolResultChars: options.maxToolResultChars ?? DEFAULT_MAX_TOOL_RESULT_CHARS,
      invariants: options.invariants ?? invariantsDefault(),
      cwd,
      persistence: this.#persistence,
      durability: options.durability ?? "step",
      isDisposed: () => this.#status === "disposed",
      retry: options.retry ?? {},
      compaction: options.compaction,
      prefixOnResume: options.prefixOnResume ?? "recompose",
      onChunk: (chunk) => this.#chunkTaps.emit(this.#stepSoFar.push(chunk, this.session.length)),
      onProgress: (event) => this.#chunkTaps.emit(event),
      ...(this.#output.output === undefined ? {} : { output: this.#output.output }),
      approver: options.approver,
      answerer: options.answerer,
      store,
      clock: options.clock,
      memoryChildren: new Map(),
      onSubagent: (event) => this.#subagentTaps.emit(event),
    };
    const gate = options.compaction;
    if (gate !== undefined) {
      this.#unloads.push(
        this.hooks.on("agent/pre-step", ({ agent, fullSystemPrompt, sessionPrefix, signal }) =>
          gate.compactIfNeeded(agent, fullSystemPrompt, sessionPrefix, signal),
        ),
      );
    }
    for (const plugin of options.plugins ?? [])
      this.#unloads.push(loadPlugin(this.hooks, plugin, { agent: this as Agent }));
    this.#pauses = new AgentPauseAnswers({
      agent: this,
      session: this.session,
      hooks: this.hooks,
      tools: this.tools,
      context: this.#context,
      disposed: () => this.#status === "disposed",
      enqueue: (item) => this.#enqueue(() => this.#inbox.decide(item), item.settle),
      openStream: (enqueue, options) => this.#openStream(enqueue, options, "streamAnswers"),
      admitted: () => this.#wentIdle(),
    });
  }

  get status(): AgentStatus {
    return this.#status;
  }

  get answersQuestions(): boolean {
    return this.#persistence !== undefined || this.#context.answerer !== undefined || this.hooks.count("input/ask") > 0;
  }

  follow(options: FollowOptions = {}): FollowFeed {
    checkStreamOptions(options, undefined, "follow");
    const from = options.from === undefined ? -1 : options.from; // `null` is refused, not "from the start"
    const fault = followPositionFault(from, this.session.length, "follow");
    if (fault !== undefined) throw new LoopError(fault.code, fault.message);
    // Queued input is the turn in flight: the follow waits for it (a turn stream's feed needs neither).
    const source = { ...this.#feedSource(), busy: () => this.#busy, tapIdle: this.#idleTaps.add };
    const bound = options.maxBufferedChars === undefined ? {} : { maxBufferedChars: options.maxBufferedChars };
    const feed = new TurnFeed(source, { kind: "idle" }, bound);
    feed.startAt(from + 1);
    return feed;
  }

  /** Throws (OutputError `invalid-schema`, LoopError `invalid-options`) for an unusable `output` / `repair`. */
  stream(content: string | readonly UserContent[], options?: StreamOptions): TurnStream {
    const prompt = agentPrompt(content, this);
    const output = turnOutput(options ?? {}, this.#output);
    return this.#openStream(
      (settle, onStart) =>
        this.#enqueue(
          () =>
            this.#inbox.prompt({
              content: prompt,
              source: "user",
              settle,
              onStart,
              ...(output === undefined ? {} : { output }),
            }),
          settle,
        ),
      options,
      "stream",
    );
  }

  #openStream(enqueue: TurnStreamPort["enqueue"], options: StreamOptions | undefined, door: OptionsDoor): TurnStream {
    const closeQueued = (settle: Settle<TurnOutcome>): void => this.#inbox.closeAfter(settle);
    const port = { ...this.#feedSource(), enqueue, cancel: this.cancel.bind(this), closeQueued };
    return openTurnStream(port, options, door);
  }

  /** What a feed over this agent reads: the log, the live taps, the step in flight so far. */
  #feedSource(): FeedSource {
    return {
      session: this.session,
      tapChunks: this.#chunkTaps.add,
      tapSubagents: this.#subagentTaps.add,
      stepSoFar: () => this.#stepSoFar.replay(this.session),
      durableThrough: () => this.#persistence?.through ?? this.session.length - 1,
    };
  }

  /** Accepted input not finished: answers being admitted, something queued, or the turn driver running. */
  get #busy(): boolean {
    return this.#driving !== undefined || !this.#inbox.empty || this.#pauses.admitting;
  }

  /** Wakes `whenIdle` callers and idle follow feeds. */
  #wentIdle(): void {
    if (this.#busy && this.#status !== "disposed") return; // answers still being admitted will queue a turn
    for (const waiter of this.#idleWaiters.splice(0)) waiter();
    this.#idleTaps.emit();
  }

  /** Rejects (OutputError `invalid-schema`, LoopError `invalid-options`) for an unusable `output` / `repair`. */
  send(content: string | readonly UserContent[], options?: SendOptions): Promise<TurnOutcome> {
    const { promise, settle } = deferred<TurnOutcome>();
    let output: ReturnType<typeof turnOutput>;
    let prompt: readonly UserContent[];
    try {
      prompt = agentPrompt(content, this);
      output = turnOutput(sendOptions(options), this.#output);
    } catch (error) {
      return Promise.reject(error);
    }
    this.#enqueue(
      () =>
        this.#inbox.prompt({
          content: prompt,
          source: "user",
          settle,
          ...(output === undefined ? {} : { output }),
        }),
      settle,
    );
    return promise;
  }

  /** Rejects (`LoopError('invalid-prompt' | 'prompt-too-large')`) at once for a message no turn should log. */
  async steer(content: string | readonly UserContent[]): Promise<TurnOutcome> {
    const steering = agentPrompt(content, this, "the steering message"); // before anything is queued
    const { promise, settle } = deferred<TurnOutcome>();
    this.#enqueue(() => this.#inbox.steer({ content: steering, settle }), settle);
    return promise;
  }

  compact(): Promise<TurnOutcome> {
    const { promise, settle } = deferred<TurnOutcome>();
    this.#enqueue(() => this.#inbox.compact({ settle }), settle);
    return promise;
  }

  /** Rejects (`LoopError('invalid-prompt' | 'prompt-too-large')`) at once for a message no turn should log. */
  async inject(content: string | readonly UserContent[]): Promise<void> {
    const injected = agentPrompt(content, this, "the injected message"); // before anything is queued
    const { promise, settle } = deferred<void>();
    this.#enqueue(() => this.#inbox.inject({ content: injected, settle }), settle);
    return promise;
  }

  cancel(reason = "cancelled"): void {
    const cause: AbortCause = { kind: "cancel", reason };
    if (this.#controller !== undefined) this.#controller.abort(cause);
    else if (this.#driving !== undefined)
      this.#pendingCancel = cause; // the turn is about to start
    else if (this.#pauses.cancelInFlight(reason)) {
      // Answers running through subagents: their children's turns are cancelled; this pause stays.
    } else if ((this.session.awaitingApproval || this.session.awaitingInput) && this.#status !== "disposed") {
      // The paused turn is cancelled in a turn of its own, which closes every waiting call.
      this.#pendingCancel = cause;
      this.#cancelPaused = true;
      this.#driving = this.#drive();
    }
  }

  /** Reads what the held calls' subagents wait for (agentOverStored). */
  refreshPauses(): Promise<void> {
    return this.#pauses.refresh();
  }

  pendingApprovals(): PendingApproval[] {
    return this.#pauses.pendingApprovals();
  }

  pendingInputs(): PendingInput[] {
    return this.#pauses.pendingInputs();
  }

  respond(id: string, answer: InputAnswer): Promise<TurnOutcome> {
    return this.#pauses.respond(id, answer);
  }

  decide(callId: string, decision: ApprovalDecision): Promise<TurnOutcome> {
    return this.#pauses.decide(callId, decision);
  }

  streamAnswers(answers: AnswerBatch, options?: AnswerStreamOptions): TurnStream {
    return this.#pauses.streamAnswers(answers, options);
  }

  checkAnswers(answers: AnswerBatch): Promise<void> {
    return this.#pauses.checkAnswers(answers);
  }

  async flush(): Promise<void> {
    if (this.#persistence === undefined) return;
    await this.#ready;
    await this.#persistence.flush();
    this.#unsaved = undefined;
  }

  get saved(): boolean | undefined {
    return this.#persistence === undefined ? undefined : this.#unsaved === undefined;
  }

  whenIdle(): Promise<void> {
    if (!this.#busy) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  async dispose(): Promise<void> {
    if (this.#status === "disposed") return this.#driving;
    this.#setStatus("disposed");
    const cause: AbortCause = { kind: "dispose" };
    this.#controller?.abort(cause);
    // Built only when something is queued: an error's stack trace costs more than a step.
    if (!this.#inbox.empty)
      this.#inbox.rejectAll(new LoopError("disposed", "the agent was disposed before this input ran"));
    await this.#driving;
    for (const unload of this.#unloads.splice(0).reverse()) {
      try {
        unload();
      } catch (error) {
        this.hooks.emit("agent/error", { agent: this, error, where: "dispose" });
      }
    }
    const store = this.#options.store;
    // A session the store refused to create (locked, exists) was never opened: nothing to flush or release.
    const opened = await this.#ready.then(
      () => true,
      () => false,
    );
    if (store !== undefined && opened) {
      await this.#persistence?.flush();
      await store.release(this.session.id);
    }
    this.#wentIdle();
  }

  #enqueue(push: () => void, settle: Settle<never>): void {
    if (this.#status === "disposed") {
      settle.reject(new LoopError("disposed", "the agent is disposed"));
      return;
    }
    push();
    this.#driving ??= this.#drive();
  }

  /** Runs turns while the inbox has work; one turn at a time. */
  async #drive(): Promise<void> {
    await Promise.resolve(); // never start a turn inside the caller's frame (e.g. a session observer)
    try {
      await this.#ready;
    } catch (error) {
      this.#inbox.rejectAll(error);
    }
    while ((!this.#inbox.empty || this.#cancelPaused) && this.#status !== "disposed") {
      const claim = this.#nextClaim();
      if (claim === undefined) continue;
      if (this.#unsaved !== undefined && !(await this.#recovered())) {
        const error = new LoopError(
          "not-saved",
          `the session is not saved (the store still fails: ${errorMessage(this.#unsaved)}); this input was not run — call agent.flush() to retry`,
          { cause: this.#unsaved },
        );
        for (const item of claimItems(claim)) item.settle.reject(error);
        continue;
      }
      const trigger = triggerOf(claim);
      this.#controller = new AbortController();
      if (this.#pendingCancel !== undefined) this.#controller.abort(this.#pendingCancel);
      this.#pendingCancel = undefined;
      this.#setStatus("running");
      try {
        const outcome = await runTurn(this.#context, claim, trigger, this.#controller.signal);
        await this.#pauses.refresh(); // what the held calls' subagents wait for, before anyone hears the outcome
        if (outcome.saved === false) this.#unsaved = outcome.storeError;
        for (const item of [...claim.prompts, ...claim.compacts]) item.settle.resolve(outcome);
        for (const item of claim.decisions)
          if (item.logged === true) item.settle.resolve(outcome);
          else item.settle.reject(notLogged(item));
      } catch (error) {
        // runTurn contains every failure; reaching here means the log refused a closer.
        this.hooks.emit("agent/error", { agent: this, error, where: "turn driver" });
        for (const item of claimItems(claim)) item.settle.reject(error);
      } finally {
        this.#controller = undefined;
      }
    }
    this.#driving = undefined;
    this.#pendingCancel = undefined; // nothing is queued: a late cancel has no turn to end
    if (this.#status !== "disposed") this.#setStatus("idle");
    this.#wentIdle();
  }

  /** The next turn's claim: queued decisions (re-checked against the log: a lost race is rejected, nothing logged),
   * else a paused turn's cancel, else everything queued (refused while approvals are pending); undefined if none. */
  #nextClaim(): Claim | undefined {
    if (this.#inbox.hasDecisions) return claimAnswers(this.session, this.#inbox);
    if (this.#cancelPaused) {
      this.#cancelPaused = false;
      if (this.session.awaitingApproval || this.session.awaitingInput) return this.#inbox.claimDecisions(); // empty: a bare turn, aborted at once
      this.#pendingCancel = undefined;
    }
    return claimInput(this.session, this.#inbox);
  }

  /** Retries the flush a failed turn left owed; true when the store has caught up. */
  async #recovered(): Promise<boolean> {
    try {
      await this.#persistence?.flush();
      this.#unsaved = undefined;
      return true;
    } catch (error) {
      this.#unsaved = error;
      return false;
    }
  }

  #setStatus(status: AgentStatus): void {
    if (this.#status === status) return;
    this.#status = status;
    this.hooks.emit("agent/status", { agent: this, status });
  }
}

/** A new agent over a new session; with `output`, `outcome.output` is typed by that schema. */
export function createAgent<O extends AgentOptions>(options: O): Agent<AgentOutput<O>> {
  validateOptions(options);
  checkNewSessionId(options.sessionId);
  if (options.session !== undefined)
    return new LoopAgent(options, { session: options.session, storeOpen: false }) as Agent<AgentOutput<O>>;
  const session = Session.create(
    {
      ...(options.sessionId === undefined ? {} : { id: options.sessionId }),
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    },
    options.clock === undefined ? {} : { clock: options.clock },
  );
  return new LoopAgent(options, { session, storeOpen: false }) as Agent<AgentOutput<O>>;
}

/** An agent (a new loop instance) over an existing session. */
export function agentOver<O extends AgentOptions>(options: O, origin: AgentOrigin): Agent<AgentOutput<O>> {
  validateOptions(options);
  return new LoopAgent(options, origin) as Agent<AgentOutput<O>>;
}
