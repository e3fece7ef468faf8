// Approvals and questions to a person as the log records them (ARCHITECTURE.md §10, "Pauses are
// events"): what is pending, and what became of one call's approval or question. Pure reads over a session; the grammar that keeps the
// log well-formed around a pause lives in structure.ts, the loop that pauses and continues in
// src/loop.
import type { ApprovalState, InputState, LogStructure, OpenCall } from "./structure.js";
import type { EventDataMap, SessionEvent } from "./types.js";

/** One logged `approval/request` (its payload) that has no decision yet, with where and when it was logged. */
export type PendingApproval = EventDataMap["approval/request"] & {
  /** Seq of the `approval/request`. */
  readonly requestSeq: number;
  /** Epoch ms of the `approval/request`. */
  readonly requestedAt: number;
  /**
   * A subagent's request as an ancestor sees it (forwarded live, or listed from a store): the
   * session ids from the ancestor's session down to the one that logged the request, inclusive.
   * Absent for a session's own request.
   */
  readonly path?: readonly string[];
  /**
   * Set on a request that stands for a subagent's pause (the held call that started session
   * `subagent`, which waits for a person itself): it is decided by deciding the child's requests.
   * Set by the listings that read the children (`agent.pendingApprovals()`,
   * `listPendingApprovals`), never by the log.
   */
  readonly subagent?: string;
};

/** One logged `input/request` (a question to a person) that has no response yet. */
export type PendingInput = EventDataMap["input/request"] & {
  readonly requestSeq: number;
  readonly requestedAt: number;
  /** As `PendingApproval.path`: the sessions down to a subagent's that asks. */
  readonly path?: readonly string[];
};

/** A call that waits (unlogged past its step, or in the open step) with its approval and question, if any. */
export interface WaitingCall extends OpenCall {
  readonly approval?: ApprovalState;
  readonly input?: InputState;
  /**
   * Set for a call suspended by questions asked during it (MCP elicitation): its `tool/call` is
   * logged; these are its questions in the order asked (each with its response once logged).
   */
  readonly asked?: readonly InputState[];
}

/**
 * What the log says about `callId`'s approval:
 * `pending` (requested, undecided, no result), `decided` (a decision is logged), `closed`
 * (requested, but the call got a result without a decision: cancelled, or the step was closed),
 * `not-requested` (a tool call of the log that never asked for approval), `unknown` (no tool call
 * has that id).
 */
export type ApprovalStatus = "pending" | "decided" | "closed" | "not-requested" | "unknown";

/** Read access to a log (a Session, or an array of events). */
export interface ApprovalLog {
  readonly length: number;
  eventAt(seq: number): SessionEvent | undefined;
}

/** The structure's undecided approvals in model order, as `PendingApproval`s. */
export function pendingOf(structure: LogStructure, timeOf: (seq: number) => number): PendingApproval[] {
  if (structure.approvals.size === 0) return []; // read after every turn: most logs never ask
  return [...structure.approvals.values()]
    .filter((a) => a.decision === undefined)
    .sort((a, b) => a.order - b.order)
    .map((a) => ({ ...a.request, requestSeq: a.requestSeq, requestedAt: timeOf(a.requestSeq) }));
}

/** The structure's unanswered input requests in model order. */
export function pendingInputsOf(structure: LogStructure, timeOf: (seq: number) => number): PendingInput[] {
  if (structure.inputs.size === 0) return [];
  return [...structure.inputs.values()]
    .filter((i) => i.response === undefined)
    .sort((a, b) => a.order - b.order)
    .map((i) => ({ ...i.request, requestSeq: i.requestSeq, requestedAt: timeOf(i.requestSeq) }));
}

/**
 * The calls that wait, in model order: suspended (logged, a question asked during them), held
 * past their step, the open step's unlogged ones.
 */
export function waitingOf(structure: LogStructure): WaitingCall[] {
  // read at every turn's end: most turns leave nothing waiting (a suspended call needs a question)
  if (structure.inputs.size === 0 && structure.heldCalls.size === 0 && structure.unloggedCalls.size === 0) return [];
  const asked = new Map<string, InputState[]>();
  for (const input of structure.inputs.values()) {
    const callId = input.request.callId;
    if (callId !== undefined) asked.set(callId, [...(asked.get(callId) ?? []), input]);
  }
  const suspended: WaitingCall[] = [...structure.unansweredCalls.values()]
    .filter((call) => asked.has(call.callId))
    .map((call) => ({ ...call, asked: asked.get(call.callId)!.sort((a, b) => a.requestSeq - b.requestSeq) }));
  return [...suspended, ...structure.heldCalls.values(), ...structure.unloggedCalls.values()]
    .sort((a, b) => a.order - b.order)
    .map((call: WaitingCall): WaitingCall => {
      if (call.asked !== undefined) return call;
      const approval = structure.approvals.get(call.callId);
      const input = structure.inputs.get(call.callId);
      return {
        ...call,
        ...(approval === undefined ? {} : { approval }),
        ...(input === undefined ? {} : { input }),
      };
    });
}

/** What became of the question `id`: `pending`, `answered`, `closed` (a result without a response), or `unknown`. */
export function inputStatus(log: ApprovalLog, id: string): "pending" | "answered" | "closed" | "unknown" {
  const resulted = new Set<string>(); // calls with a result after the point reached
  for (let seq = log.length - 1; seq >= 0; seq--) {
    const event = log.eventAt(seq)!;
    if (event.type === "input/response" && (event.data as EventDataMap["input/response"]).id === id) return "answered";
    if (event.type === "input/request" && (event.data as EventDataMap["input/request"]).id === id) {
      // A question asked during a call belongs to that call; one asked before it, to the call `id`.
      const call = (event.data as EventDataMap["input/request"]).callId ?? id;
      return resulted.has(call) ? "closed" : "pending";
    }
    if (event.type === "tool/result" && event.surfaceOp === "append")
      resulted.add((event.data as EventDataMap["tool/result"]).callId);
  }
  return "unknown";
}

/** What became of `callId`'s approval (one backward scan of the log; decisions are rare). */
export function approvalStatus(log: ApprovalLog, callId: string): ApprovalStatus {
  let answered = false;
  for (let seq = log.length - 1; seq >= 0; seq--) {
    const event = log.eventAt(seq)!;
    switch (event.type) {
      case "approval/decision":
        if ((event.data as EventDataMap["approval/decision"]).callId === callId) return "decided";
        break;
      case "approval/request":
        if ((event.data as EventDataMap["approval/request"]).callId === callId) return answered ? "closed" : "pending";
        break;
      case "tool/result":
        if ((event.data as EventDataMap["tool/result"]).callId === callId && event.surfaceOp === "append")
          answered = true;
        break;
      case "assistant/message":
        for (const block of (event.data as EventDataMap["assistant/message"]).content)
          if (block.type === "tool-call" && block.callId === callId) return "not-requested";
        break;
      default:
        break;
    }
  }
  return "unknown";
}
