// Crash repair: the closers that end an open final turn durably. They are appended to the log
// (never patched in at read time), so a repaired log is an ordinary valid log.
//
// A pending approval is not a crash: while some approval request is undecided, the calls that
// wait for it (unlogged in the open step, or held from an earlier one) are left waiting — the
// turn ends `interrupted`, and a later decision continues them. Only calls already dispatched get
// error results. Once every approval is decided the held calls are in flight, and are closed like
// any other call of a step in flight. A call suspended by a question asked during it (an MCP
// elicitation) is kept too while it or another request waits: its tool/call is logged, its result
// comes when it runs again.
import type { LogStructure, OpenCall } from "./structure.js";
import type { PendingEvent } from "./types.js";

const INTERRUPTED = "interrupted: the session ended before this tool call returned";

export interface CloserOptions {
  /** Text of the synthetic error result for each unanswered call. */
  readonly resultText?: string;
  /** The `error` code on those results (default `interrupted`). */
  readonly error?: string;
  /** Append `turn/end{interrupted}` (default true); false closes only the open step. */
  readonly closeTurn?: boolean;
  /**
   * Close calls that wait for an undecided approval too (default false: they keep waiting). The
   * loop sets it when a cancel ends the turn: a cancelled turn's pending approvals are closed.
   */
  readonly closeAwaiting?: boolean;
}

/**
 * Closers for the open turn tracked by `structure`, in append order; empty if none is open.
 * Crash repair uses the defaults; the loop, ending a turn early, closes only the open step
 * with its own wording (`closeTurn: false`).
 */
export function crashRepairClosers(structure: LogStructure, options: CloserOptions = {}): PendingEvent[] {
  const turn = structure.openTurn;
  if (turn === null) return [];
  const out: PendingEvent[] = [];
  const text = options.resultText ?? INTERRUPTED;
  const error = options.error ?? "interrupted";
  if (structure.compactionOpen) {
    out.push({ type: "compact/end", data: { turn, error: "interrupted" } });
  }
  const byModelOrder = (a: OpenCall, b: OpenCall): number => a.order - b.order;
  const keep = (structure.awaitingApproval || structure.awaitingInput) && options.closeAwaiting !== true;
  const waiting =
    keep || (structure.unloggedCalls.size === 0 && structure.heldCalls.size === 0)
      ? []
      : [...structure.unloggedCalls.values(), ...structure.heldCalls.values()];
  // A call suspended by a question asked during it (an MCP elicitation) waits like a held one.
  const running =
    structure.unansweredCalls.size === 0
      ? []
      : [...structure.unansweredCalls.values()].filter((c) => !keep || !structure.suspended(c.callId));
  const result = (call: OpenCall): PendingEvent => ({
    type: "tool/result",
    data: {
      turn: call.turn,
      step: call.step,
      callId: call.callId,
      content: [{ type: "text", text }],
      isError: true,
      error,
    },
    surfaceOp: "append",
  });
  // A suspended call closed by a cancel gets its result first: the held calls after it (in
  // model order) may not log their `tool/call` while it has none.
  const suspended = running.filter((c) => structure.suspended(c.callId)).sort(byModelOrder);
  for (const call of suspended) out.push(result(call));
  for (const call of waiting.sort(byModelOrder)) {
    out.push({
      type: "tool/call",
      data: {
        turn: call.turn,
        step: call.step,
        callId: call.callId,
        name: call.name,
        // An approval that edited the arguments logged what the call runs with.
        arguments: structure.approvals.get(call.callId)?.decision?.arguments ?? call.arguments,
      },
    });
  }
  const rest = [...running.filter((c) => !suspended.includes(c)), ...waiting].sort(byModelOrder);
  for (const call of rest) out.push(result(call));
  if (structure.openStep !== null) out.push({ type: "step/end", data: { turn, step: structure.openStep } });
  if (options.closeTurn !== false) out.push({ type: "turn/end", data: { turn, reason: { kind: "interrupted" } } });
  return out;
}
