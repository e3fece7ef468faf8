// The log's structural grammar as an incremental state machine: turns and steps nest and are
// numbered contiguously, every event sits inside a turn, tool calls pair with results inside
// their step, compactions open and close. `Session.append` runs it per event (O(1)), `verifyLog`
// and loaders run it over whole logs, and crash repair reads its open state.
//
// `check` validates without mutating; `commit` applies an event `check` accepted. Splitting the
// two is what lets a rejected append leave the log and this state untouched.
import { SessionError } from "./errors.js";
import type { AnySessionEvent, SessionEvent } from "./types.js";

export interface OpenCall {
  readonly callId: string;
  readonly name: string;
  readonly arguments: string;
  readonly turn: number;
  readonly step: number;
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
  readonly seenCallIds = new Set<string>();
  compactionOpen = false;

  /** Throws `SessionError('structure')` if `event` may not come next. Never mutates. */
  check(event: AnySessionEvent): void {
    const fail = (detail: string): never => {
      throw new SessionError("structure", `${event.type} at seq ${event.seq}: ${detail}`, event.seq);
    };
    if (event.type === "turn/start") {
      if (this.openTurn !== null) fail(`turn ${this.openTurn} is still open`);
      if (event.data.turn !== this.lastTurn + 1) fail(`expected turn ${this.lastTurn + 1}, got ${event.data.turn}`);
      return;
    }
    if (this.openTurn === null) fail("every event must lie inside a turn, and no turn is open");
    const turn = this.openTurn as number;
    const inStep = (t: number, s: number): void => {
      if (this.openStep === null) fail("requires an open step");
      if (t !== turn || s !== this.openStep) fail(`names turn ${t} step ${s}, but turn ${turn} step ${this.openStep} is open`);
    };
    const inTurn = (t: number): void => {
      if (t !== turn) fail(`names turn ${t}, but turn ${turn} is open`);
    };
    switch (event.type) {
      case "turn/end":
        inTurn(event.data.turn);
        if (this.openStep !== null) fail(`step ${this.openStep} is still open`);
        if (this.compactionOpen) fail("a compaction is still open");
        return;
      case "step/start":
        inTurn(event.data.turn);
        if (this.openStep !== null) fail(`step ${this.openStep} is still open`);
        if (this.compactionOpen) fail("a compaction is still open");
        if (event.data.step !== this.lastStep + 1) fail(`expected step ${this.lastStep + 1}, got ${event.data.step}`);
        return;
      case "step/end": {
        inStep(event.data.turn, event.data.step);
        const owed = [...this.unloggedCalls.keys(), ...this.unansweredCalls.keys()];
        if (owed.length > 0) fail(`tool calls without a result: ${owed.join(", ")}`);
        return;
      }
      case "assistant/message": {
        inStep(event.data.turn, event.data.step);
        if (event.surfaceOp !== "append") return;
        const ids = new Set<string>();
        for (const block of event.data.content) {
          if (block.type !== "tool-call") continue;
          if (this.seenCallIds.has(block.callId) || ids.has(block.callId)) fail(`duplicate tool call id ${block.callId}`);
          ids.add(block.callId);
        }
        return;
      }
      case "tool/call": {
        inStep(event.data.turn, event.data.step);
        const block = this.unloggedCalls.get(event.data.callId);
        if (!block) fail(`call id ${event.data.callId} is not an unlogged tool-call block of this step`);
        else if (block.name !== event.data.name) fail(`name ${event.data.name} differs from the block's ${block.name}`);
        return;
      }
      case "tool/result": {
        if (event.surfaceOp !== "append") return; // a replace rewrites an answered result; the surface checks it
        inStep(event.data.turn, event.data.step);
        if (!this.unansweredCalls.has(event.data.callId)) fail(`call id ${event.data.callId} has no unanswered tool/call`);
        return;
      }
      case "steering/message":
        inTurn(event.data.turn);
        return;
      case "llm/retry":
        inStep(event.data.turn, event.data.step);
        return;
      case "compact/start":
        inTurn(event.data.turn);
        if (this.compactionOpen) fail("a compaction is already open");
        if (this.openStep !== null) fail("compaction runs between steps, but a step is open");
        return;
      case "compact/summary":
        if (!this.compactionOpen) fail("no compaction is open");
        return;
      case "compact/end":
        inTurn(event.data.turn);
        if (!this.compactionOpen) fail("no compaction is open");
        return;
      default:
        return;
    }
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
          this.seenCallIds.add(block.callId);
          this.unloggedCalls.set(block.callId, {
            callId: block.callId,
            name: block.name,
            arguments: block.arguments,
            turn: event.data.turn,
            step: event.data.step,
          });
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
