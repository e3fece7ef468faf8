// The log's structural grammar as an incremental state machine: turns and steps nest and are
// numbered contiguously, every event sits inside a turn, tool calls pair with results inside
// their step, compactions open and close. `Session.append` runs it per event (O(1)), `verifyLog`
// and loaders run it over whole logs, and crash repair reads its open state.
//
// Approvals (ARCHITECTURE.md §10, "Pauses are events"): a step may end with tool-call blocks
// still unlogged when one of them has an undecided `approval/request`. Those calls are *held*:
// they outlive the step and its turn (which ends `awaiting-approval`, or is interrupted, disposed
// or failed), nothing may join the history or start a step until each has its result, and a
// later turn logs the `approval/decision`s and then, outside any step, each held call's
// `tool/call` and `tool/result` in model order (naming the step that made the call).
//
// Questions asked *during* a call (an MCP server's elicitation: `input/request` with `callId`):
// while one is unanswered its call is *suspended* — its `tool/call` is logged, it has no result,
// and like a held call it outlives its step and turn (which ends `awaiting-input`, or interrupted,
// disposed, failed); the calls after it are held behind it. Answered, it stays suspended while
// another request waits; then a later turn runs it again outside any step (its `tool/call` is
// not repeated) and logs its `tool/result`.
//
// `check` validates without mutating; `commit` applies an event `check` accepted. Splitting the
// two is what lets a rejected append leave the log and this state untouched. `prefixOf` derives
// the state at a point of an already-checked log from the state at its end (a fork, a second
// session over shared events) without checking anything again.
import { previewName } from "../json/index.js";
import { CallIds, loggedCallIds } from "./call-ids.js";
import { SessionError } from "./errors.js";
import type { AnySessionEvent, EventDataMap, SessionEvent } from "./types.js";

export interface OpenCall {
  readonly callId: string;
  readonly name: string;
  readonly arguments: string;
  readonly turn: number;
  readonly step: number;
  /** Position among all tool-call blocks of the session: model order. */
  readonly order: number;
}

/** An `approval/request` whose call has no `tool/result` yet, and its decision once logged. */
export interface ApprovalState {
  readonly request: EventDataMap["approval/request"];
  readonly requestSeq: number;
  /** The call's model order (as `OpenCall.order`). */
  readonly order: number;
  readonly decision?: EventDataMap["approval/decision"];
  readonly decisionSeq?: number;
}

/** An `input/request` whose call has no `tool/result` yet, and its response once logged. */
export interface InputState {
  readonly request: EventDataMap["input/request"];
  readonly requestSeq: number;
  /** The asking call's model order. */
  readonly order: number;
  readonly response?: EventDataMap["input/response"];
}

/** Turn-end kinds a turn may end with while tool calls are held (awaiting a person). */
const HOLDING_KINDS: ReadonlySet<string> = new Set([
  "awaiting-approval",
  "awaiting-input",
  "interrupted",
  "disposed",
  "error",
]);

/** Turn-end kinds after which nothing is held: a structure at such an end is empty but for counters. */
const CLEAN_KINDS: ReadonlySet<string> = new Set(["completed", "max-tokens", "rejected", "aborted"]);

export class LogStructure {
  /** Highest turn number started so far (0 before the first turn). */
  lastTurn = 0;
  openTurn: number | null = null;
  /** Highest step number started in the open turn. */
  lastStep = 0;
  openStep: number | null = null;
  /** Tool-call blocks of the open step's assistant messages not yet logged as `tool/call`. */
  readonly unloggedCalls = new Map<string, OpenCall>();
  /** Logged `tool/call`s that have no `tool/result` yet. */
  readonly unansweredCalls = new Map<string, OpenCall>();
  /** Tool-call blocks left unlogged by a step that ended awaiting approval (see the file header). */
  readonly heldCalls = new Map<string, OpenCall>();
  /** Approval requests whose call has no result yet, by call id. */
  readonly approvals = new Map<string, ApprovalState>();
  /** Input requests (questions to a person) whose call has no result yet, by call id. */
  readonly inputs = new Map<string, InputState>();
  /** Every tool-call block id logged so far (shared with structures over a prefix of the log). */
  #callIds = new CallIds();
  /** Tool-call blocks logged so far: the next block's model order. */
  #callOrder = 0;
  compactionOpen = false;

  /**
   * The state after `events[0..length)`, given `current`, the state after all of `events` (a
   * log a session already checked and committed). Nothing is checked again. At the last clean
   * `turn/end` before `length` (one that cannot leave calls held for approval: completed,
   * max-tokens, rejected, aborted) no turn, step, call or compaction is open, so that state is the
   * turn number, the call ids logged before it (shared with `current`, not copied) and their
   * count; the open tail after it, if any, is replayed. Costs O(events after that `turn/end`);
   * when those outnumber the events before it, a replay from the start is cheaper and is used.
   */
  static prefixOf(current: LogStructure, events: EventSource, length: number): LogStructure {
    const state = new LogStructure();
    let boundary = length - 1;
    while (boundary >= 0 && !isCleanEnd(events.at(boundary)!)) boundary--;
    if (boundary < 0 || events.length - boundary > boundary) {
      for (let i = 0; i < length; i++) state.commit(events.at(i) as AnySessionEvent);
      return state;
    }
    const end = events.at(boundary) as SessionEvent<"turn/end">;
    state.lastTurn = end.data.turn;
    state.lastStep = lastStepOfTurn(events, boundary);
    state.#callIds = current.#callIds.before(boundary + 1);
    let later = 0;
    for (let i = boundary + 1; i < events.length; i++) later += loggedCallIds(events.at(i)!).length;
    state.#callOrder = current.#callOrder - later;
    for (let i = boundary + 1; i < length; i++) state.commit(events.at(i) as AnySessionEvent);
    return state;
  }

  /** True when some approval request has no decision yet: its call (and every later one) waits. */
  get awaitingApproval(): boolean {
    for (const approval of this.approvals.values()) if (approval.decision === undefined) return true;
    return false;
  }

  /** True when some `input/request` has no response yet: its call (and every later one) waits. */
  get awaitingInput(): boolean {
    for (const input of this.inputs.values()) if (input.response === undefined) return true;
    return false;
  }

  /** Throws `SessionError('structure')` if `event` may not come next. Never mutates. */
  check(event: AnySessionEvent): void {
    const problem = this.#problem(event);
    if (problem !== undefined)
      throw new SessionError("structure", `${event.type} at seq ${event.seq}: ${problem}`, event.seq);
  }

  // Returns what is wrong with `event` coming next, or undefined. (No per-call closures: this
  // runs once per event on every append and load.)
  #problem(event: AnySessionEvent): string | undefined {
    if (event.type === "turn/start") {
      if (this.openTurn !== null) return `turn ${this.openTurn} is still open`;
      if (event.data.turn !== this.lastTurn + 1) return `expected turn ${this.lastTurn + 1}, got ${event.data.turn}`;
      return undefined;
    }
    if (this.openTurn === null) return "every event must lie inside a turn, and no turn is open";
    switch (event.type) {
      case "turn/end":
        return (
          this.#inTurn(event.data.turn) ??
          (this.openStep !== null
            ? `step ${this.openStep} is still open`
            : this.compactionOpen
              ? "a compaction is still open"
              : this.#heldAtEnd(event.data.reason.kind))
        );
      case "step/start":
        return (
          this.#inTurn(event.data.turn) ??
          (this.openStep !== null
            ? `step ${this.openStep} is still open`
            : this.compactionOpen
              ? "a compaction is still open"
              : event.data.step !== this.lastStep + 1
                ? `expected step ${this.lastStep + 1}, got ${event.data.step}`
                : this.#held())
        );
      case "step/end": {
        const wrong = this.#inStep(event.data.turn, event.data.step);
        if (wrong !== undefined) return wrong;
        if (this.unloggedCalls.size + this.unansweredCalls.size === 0) return undefined;
        // Calls still unlogged when one of them awaits a decision are held past the step; a
        // suspended call (a question asked during it, unanswered) holds every call after it too.
        if (this.unansweredCalls.size === 0 && this.#awaits(this.unloggedCalls)) return undefined;
        if (this.unansweredCalls.size > 0 && this.#allSuspended()) return undefined;
        return `tool calls without a result: ${idList([...this.unloggedCalls.keys(), ...this.unansweredCalls.keys()])}`;
      }
      case "assistant/message": {
        const wrong = this.#inStep(event.data.turn, event.data.step);
        if (wrong !== undefined || event.surfaceOp !== "append") return wrong;
        let ids: Set<string> | undefined;
        for (const block of event.data.content) {
          if (block.type !== "tool-call") continue;
          ids ??= new Set();
          if (this.#callIds.has(block.callId) || ids.has(block.callId))
            return `duplicate tool call id ${previewName(block.callId)}`;
          ids.add(block.callId);
        }
        return undefined;
      }
      case "tool/call": {
        const { callId } = event.data;
        if (this.openStep === null && this.heldCalls.has(callId)) return this.#heldCallProblem(event);
        const wrong = this.#inStep(event.data.turn, event.data.step);
        if (wrong !== undefined) return wrong;
        const block = this.unloggedCalls.get(callId);
        if (!block) return `call id ${previewName(callId)} is not an unlogged tool-call block of this step`;
        if (block.name !== event.data.name)
          return `name ${previewName(event.data.name)} differs from the block's ${previewName(block.name)}`;
        return this.#editedArguments(callId, event.data.arguments);
      }
      case "tool/result": {
        if (event.surfaceOp !== "append") return undefined; // a replace rewrites an answered result; the surface checks it
        const held = this.openStep === null ? this.unansweredCalls.get(event.data.callId) : undefined;
        if (held !== undefined)
          return held.turn === event.data.turn && held.step === event.data.step
            ? undefined
            : `names turn ${event.data.turn} step ${event.data.step}, but call ${previewName(held.callId)} belongs to turn ${held.turn} step ${held.step}`;
        const wrong = this.#inStep(event.data.turn, event.data.step);
        if (wrong !== undefined) return wrong;
        return this.unansweredCalls.has(event.data.callId)
          ? undefined
          : `call id ${previewName(event.data.callId)} has no unanswered tool/call`;
      }
      case "approval/request": {
        const { callId } = event.data;
        // A held call never asked about (it waited behind another) is asked about before it runs.
        const held = this.openStep === null ? this.heldCalls.get(callId) : undefined;
        if (held !== undefined && (held.turn !== event.data.turn || held.step !== event.data.step))
          return `names turn ${event.data.turn} step ${event.data.step}, but held call ${previewName(callId)} belongs to turn ${held.turn} step ${held.step}`;
        const wrong = held === undefined ? this.#inStep(event.data.turn, event.data.step) : undefined;
        if (wrong !== undefined) return wrong;
        const block = held ?? this.unloggedCalls.get(callId);
        if (!block) return `call id ${previewName(callId)} is not an unlogged tool-call block of this step`;
        if (this.approvals.has(callId)) return `call id ${previewName(callId)} already has an approval request`;
        if (block.name !== event.data.tool)
          return `tool ${previewName(event.data.tool)} differs from the block's ${previewName(block.name)}`;
        if (block.arguments !== event.data.arguments) return "arguments differ from the tool-call block's";
        return undefined;
      }
      case "approval/decision": {
        const { callId } = event.data;
        const approval = this.approvals.get(callId);
        if (approval === undefined || !(this.unloggedCalls.has(callId) || this.heldCalls.has(callId)))
          return `call id ${previewName(callId)} has no pending approval request`;
        if (approval.decision !== undefined)
          return `call id ${previewName(callId)} is already decided (seq ${approval.decisionSeq})`;
        return undefined;
      }
      case "input/request": {
        const { id, callId } = event.data;
        if (callId !== undefined) {
          const running = this.unansweredCalls.get(callId);
          if (running === undefined) return `call id ${previewName(callId)} has no tool/call awaiting its result`;
          if (this.openStep !== null && (running.turn !== this.openTurn || running.step !== this.openStep))
            return `call ${previewName(callId)} belongs to turn ${running.turn} step ${running.step}, not the open step`;
          if (this.inputs.has(id) || this.#callIds.has(id)) return `id ${previewName(id)} is already used`;
          return undefined;
        }
        const block = this.unloggedCalls.get(id) ?? (this.openStep === null ? this.heldCalls.get(id) : undefined);
        if (!block) return `id ${previewName(id)} is not an unlogged tool-call block of this step or a held call`;
        return this.inputs.has(id) ? `call id ${previewName(id)} already has an input request` : undefined;
      }
      case "input/response": {
        const input = this.inputs.get(event.data.id);
        const callId = input?.request.callId;
        const open =
          callId !== undefined
            ? this.unansweredCalls.has(callId)
            : this.unloggedCalls.has(event.data.id) || this.heldCalls.has(event.data.id);
        if (input === undefined || !open) return `id ${previewName(event.data.id)} has no pending input request`;
        return input.response === undefined ? undefined : `id ${previewName(event.data.id)} is already answered`;
      }
      case "user/message":
      case "context/message":
        return this.#held();
      case "steering/message":
        return this.#inTurn(event.data.turn) ?? this.#held();
      case "llm/retry":
        return this.#inStep(event.data.turn, event.data.step);
      case "mcp/sampling-request": // a server's model request during its call (never in history)
      case "mcp/sampling-response":
        return this.unansweredCalls.has(event.data.callId)
          ? undefined
          : `call id ${previewName(event.data.callId)} has no tool/call awaiting its result`;
      case "compact/start":
        return (
          this.#inTurn(event.data.turn) ??
          (this.compactionOpen
            ? "a compaction is already open"
            : this.openStep !== null
              ? "compaction runs between steps, but a step is open"
              : this.#held())
        );
      case "compact/summary":
        return this.compactionOpen ? undefined : "no compaction is open";
      case "compact/end":
        return this.#inTurn(event.data.turn) ?? (this.compactionOpen ? undefined : "no compaction is open");
      default:
        return undefined;
    }
  }

  /** While calls are held, nothing may join the history or start a step before their results. */
  #held(): string | undefined {
    if (this.heldCalls.size + this.unansweredCalls.size === 0) return undefined;
    return `tool calls await approval or their result: ${idList([...this.unansweredCalls.keys(), ...this.heldCalls.keys()])}`;
  }

  /** True while the call waits for a person: a question asked during it is unanswered, or all are but another request still waits. */
  suspended(callId: string): boolean {
    let asked = false;
    for (const input of this.inputs.values())
      if (input.request.callId === callId) {
        if (input.response === undefined) return true;
        asked = true;
      }
    return asked && (this.awaitingApproval || this.awaitingInput);
  }

  /** True when every logged call without a result is suspended (a step or turn may end with them). */
  #allSuspended(): boolean {
    for (const id of this.unansweredCalls.keys()) if (!this.suspended(id)) return false;
    return true;
  }

  /** True when some call in `calls` waits for a person: an undecided approval or an unanswered input request. */
  #awaits(calls: ReadonlyMap<string, OpenCall>): boolean {
    for (const id of calls.keys()) {
      const approval = this.approvals.get(id);
      if (approval !== undefined && approval.decision === undefined) return true;
      const input = this.inputs.get(id);
      if (input !== undefined && input.response === undefined) return true;
    }
    return false;
  }

  /** What is wrong with ending the turn `kind` given the held calls. */
  #heldAtEnd(kind: string): string | undefined {
    if (this.unansweredCalls.size > 0 && !this.#allSuspended())
      return `tool calls without a result: ${idList([...this.unansweredCalls.keys()])}`;
    if (kind === "awaiting-approval" && !this.awaitingApproval)
      return "the turn ends awaiting-approval, but no tool call awaits approval";
    if (kind === "awaiting-input" && !this.awaitingInput)
      return "the turn ends awaiting-input, but no tool call awaits an answer";
    if (this.unansweredCalls.size > 0)
      return HOLDING_KINDS.has(kind)
        ? undefined
        : `tool calls ${idList([...this.unansweredCalls.keys()])} await an answer: the turn cannot end ${kind}`;
    if (this.heldCalls.size === 0) return undefined;
    const ids = idList([...this.heldCalls.keys()]);
    if (!this.#awaits(this.heldCalls))
      return `every approval and question of the held calls ${ids} is answered: their results come before turn/end`;
    return HOLDING_KINDS.has(kind) ? undefined : `tool calls ${ids} await a person: the turn cannot end ${kind}`;
  }

  /** A held call's `tool/call` (no step open): the first held call in model order, naming its own step. */
  #heldCallProblem(event: SessionEvent<"tool/call">): string | undefined {
    const call = this.heldCalls.get(event.data.callId)!;
    if (call.turn !== event.data.turn || call.step !== event.data.step)
      return `names turn ${event.data.turn} step ${event.data.step}, but held call ${previewName(call.callId)} belongs to turn ${call.turn} step ${call.step}`;
    if (call.name !== event.data.name)
      return `name ${previewName(event.data.name)} differs from the block's ${previewName(call.name)}`;
    const suspended = [...this.unansweredCalls.values()].filter((c) => this.suspended(c.callId));
    for (const other of [...this.heldCalls.values(), ...suspended])
      if (other.order < call.order)
        return `held calls run in model order: ${previewName(other.callId)} comes before ${previewName(call.callId)}`;
    return this.#editedArguments(call.callId, event.data.arguments);
  }

  /** An approval that edited the arguments: the call must run with exactly those. */
  #editedArguments(callId: string, args: string): string | undefined {
    const decision = this.approvals.get(callId)?.decision;
    if (decision?.approve !== true || decision.arguments === undefined || decision.arguments === args) return undefined;
    return `arguments differ from the edited arguments of the approval of ${previewName(callId)}`;
  }

  #inTurn(turn: number): string | undefined {
    return turn === this.openTurn ? undefined : `names turn ${turn}, but turn ${this.openTurn} is open`;
  }

  #inStep(turn: number, step: number): string | undefined {
    if (this.openStep === null) return "requires an open step";
    if (turn !== this.openTurn || step !== this.openStep)
      return `names turn ${turn} step ${step}, but turn ${this.openTurn} step ${this.openStep} is open`;
    return undefined;
  }

  /** Applies an event that `check` accepted. */
  commit(event: AnySessionEvent): void {
    switch (event.type) {
      case "turn/start":
        this.openTurn = event.data.turn;
        this.lastTurn = event.data.turn;
        this.lastStep = 0;
        return;
      case "turn/end":
        this.openTurn = null;
        return;
      case "step/start":
        this.openStep = event.data.step;
        this.lastStep = event.data.step;
        return;
      case "step/end":
        this.openStep = null;
        for (const [id, call] of this.unloggedCalls) this.heldCalls.set(id, call); // held past the step
        this.unloggedCalls.clear();
        return;
      case "assistant/message":
        if (event.surfaceOp !== "append") return;
        for (const block of event.data.content) {
          if (block.type !== "tool-call") continue;
          this.unloggedCalls.set(block.callId, {
            callId: block.callId,
            name: block.name,
            arguments: block.arguments,
            turn: event.data.turn,
            step: event.data.step,
            order: this.#callOrder++,
          });
          this.#callIds.add(block.callId, event.seq);
        }
        return;
      case "tool/call": {
        const from = this.unloggedCalls.has(event.data.callId) ? this.unloggedCalls : this.heldCalls;
        const call = from.get(event.data.callId)!;
        from.delete(event.data.callId);
        this.unansweredCalls.set(call.callId, { ...call, arguments: event.data.arguments });
        return;
      }
      case "tool/result":
        if (event.surfaceOp === "append") {
          this.unansweredCalls.delete(event.data.callId);
          this.approvals.delete(event.data.callId);
          this.inputs.delete(event.data.callId);
          for (const [id, input] of this.inputs) if (input.request.callId === event.data.callId) this.inputs.delete(id);
        }
        return;
      case "approval/request": {
        const order = (this.unloggedCalls.get(event.data.callId) ?? this.heldCalls.get(event.data.callId))!.order;
        this.approvals.set(event.data.callId, { request: event.data, requestSeq: event.seq, order });
        return;
      }
      case "input/request": {
        const { id, callId } = event.data;
        const order = (
          callId !== undefined
            ? this.unansweredCalls.get(callId)
            : (this.unloggedCalls.get(id) ?? this.heldCalls.get(id))
        )!.order;
        this.inputs.set(id, { request: event.data, requestSeq: event.seq, order });
        return;
      }
      case "input/response": {
        const input = this.inputs.get(event.data.id)!;
        this.inputs.set(event.data.id, { ...input, response: event.data });
        return;
      }
      case "approval/decision": {
        const approval = this.approvals.get(event.data.callId)!;
        this.approvals.set(event.data.callId, { ...approval, decision: event.data, decisionSeq: event.seq });
        return;
      }
      case "compact/start":
        this.compactionOpen = true;
        return;
      case "compact/end":
        this.compactionOpen = false;
        return;
      default:
        return;
    }
  }

  /** `check` then `commit`. */
  accept(event: SessionEvent): void {
    this.check(event as AnySessionEvent);
    this.commit(event as AnySessionEvent);
  }
}

/** Read access to a log's events: an array, or a session's `ChunkedEvents`. */
export interface EventSource {
  readonly length: number;
  at(index: number): SessionEvent | undefined;
}

/** A `turn/end` after which nothing can be held (see `CLEAN_KINDS`). */
function isCleanEnd(event: SessionEvent): boolean {
  return event.type === "turn/end" && CLEAN_KINDS.has((event as SessionEvent<"turn/end">).data.reason.kind);
}

/** `lastStep` after the turn that ends at `events[end]`: its last `step/start`'s step, or 0. */
function lastStepOfTurn(events: EventSource, end: number): number {
  for (let i = end - 1; i >= 0; i--) {
    const e = events.at(i) as AnySessionEvent;
    if (e.type === "step/start") return e.data.step;
    if (e.type === "turn/start") return 0;
  }
  return 0;
}

/** Call ids as a message lists them: each bounded, and at most five (then how many more). */
function idList(ids: readonly string[]): string {
  const shown = ids.slice(0, 5).map((id) => previewName(id));
  return ids.length > 5 ? `${shown.join(", ")} and ${ids.length - 5} more` : shown.join(", ");
}
