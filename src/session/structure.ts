// The log's structural grammar as an incremental state machine: turns and steps nest and are
// numbered contiguously, every event sits inside a turn, tool calls pair with results inside
// their step, compactions open and close. `Session.append` runs it per event (O(1)), `verifyLog`
// and loaders run it over whole logs, and crash repair reads its open state.
//
// `check` validates without mutating; `commit` applies an event `check` accepted. Splitting the
// two is what lets a rejected append leave the log and this state untouched. `prefixOf` derives
// the state at a point of an already-checked log from the state at its end (a fork, a second
// session over shared events) without checking anything again.
import { previewName } from "../json/index.js";
import { CallIds, loggedCallIds } from "./call-ids.js";
import { SessionError } from "./errors.js";
import type { AnySessionEvent, SessionEvent } from "./types.js";

export interface OpenCall {
  readonly callId: string;
  readonly name: string;
  readonly arguments: string;
  readonly turn: number;
  readonly step: number;
  /** Position among all tool-call blocks of the session: model order. */
  readonly order: number;
}

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
  /** Every tool-call block id logged so far (shared with structures over a prefix of the log). */
  #callIds = new CallIds();
  /** Tool-call blocks logged so far: the next block's model order. */
  #callOrder = 0;
  compactionOpen = false;

  /**
   * The state after `events[0..length)`, given `current`, the state after all of `events` (a
   * log a session already checked and committed). Nothing is checked again. At the last
   * `turn/end` before `length` no turn, step, call or compaction is open, so that state is the
   * turn number, the call ids logged before it (shared with `current`, not copied) and their
   * count; the open tail after it, if any, is replayed. Costs O(events after that `turn/end`);
   * when those outnumber the events before it, a replay from the start is cheaper and is used.
   */
  static prefixOf(current: LogStructure, events: EventSource, length: number): LogStructure {
    const state = new LogStructure();
    let boundary = length - 1;
    while (boundary >= 0 && events.at(boundary)!.type !== "turn/end") boundary--;
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
              : undefined)
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
                : undefined)
        );
      case "step/end": {
        const wrong = this.#inStep(event.data.turn, event.data.step);
        if (wrong !== undefined) return wrong;
        if (this.unloggedCalls.size + this.unansweredCalls.size === 0) return undefined;
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
        const wrong = this.#inStep(event.data.turn, event.data.step);
        if (wrong !== undefined) return wrong;
        const block = this.unloggedCalls.get(event.data.callId);
        if (!block) return `call id ${previewName(event.data.callId)} is not an unlogged tool-call block of this step`;
        if (block.name !== event.data.name)
          return `name ${previewName(event.data.name)} differs from the block's ${previewName(block.name)}`;
        return undefined;
      }
      case "tool/result": {
        if (event.surfaceOp !== "append") return undefined; // a replace rewrites an answered result; the surface checks it
        const wrong = this.#inStep(event.data.turn, event.data.step);
        if (wrong !== undefined) return wrong;
        return this.unansweredCalls.has(event.data.callId)
          ? undefined
          : `call id ${previewName(event.data.callId)} has no unanswered tool/call`;
      }
      case "steering/message":
        return this.#inTurn(event.data.turn);
      case "llm/retry":
        return this.#inStep(event.data.turn, event.data.step);
      case "compact/start":
        return (
          this.#inTurn(event.data.turn) ??
          (this.compactionOpen
            ? "a compaction is already open"
            : this.openStep !== null
              ? "compaction runs between steps, but a step is open"
              : undefined)
        );
      case "compact/summary":
        return this.compactionOpen ? undefined : "no compaction is open";
      case "compact/end":
        return this.#inTurn(event.data.turn) ?? (this.compactionOpen ? undefined : "no compaction is open");
      default:
        return undefined;
    }
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
        const call = this.unloggedCalls.get(event.data.callId)!;
        this.unloggedCalls.delete(event.data.callId);
        this.unansweredCalls.set(call.callId, { ...call, arguments: event.data.arguments });
        return;
      }
      case "tool/result":
        if (event.surfaceOp === "append") this.unansweredCalls.delete(event.data.callId);
        return;
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
