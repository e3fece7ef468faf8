// Checking a decision before it is logged: is the call's approval pending (else which typed
// error), is the decision well-formed, may it edit the arguments, does the app accept the
// decider (`approval/decide`). Every refusal is an `ApprovalError` and nothing is logged.
import type { HookBus } from "../hooks/index.js";
import type { JsonObject } from "../json/index.js";
import { previewName } from "../json/index.js";
import { approvalStatus, type PendingApproval, type Session } from "../session/index.js";
import type { ToolRegistry } from "../tools/index.js";
import {
  type ApprovalDecidePayload,
  type ApprovalDecision,
  ApprovalError,
  type ApprovalVerdict,
} from "./approval-types.js";
import type { QueuedDecision } from "./inbox.js";
import type { Agent, AgentHooks } from "./types.js";

/** A decision as the `approval/decision` event logs it. */
export interface LoggedDecision {
  readonly callId: string;
  readonly approve: boolean;
  readonly by?: string;
  readonly note?: string;
  readonly arguments?: string;
}

/** The pending request for `callId`, or the `ApprovalError` saying why there is none. */
export function pendingRequest(session: Session, callId: unknown): PendingApproval {
  if (typeof callId !== "string")
    throw new ApprovalError("unknown-call", `a call id is a string, got ${typeof callId}`);
  const pending = session.pendingApprovals().find((p) => p.callId === callId);
  if (pending !== undefined) return pending;
  const id = previewName(callId);
  switch (approvalStatus(session, callId)) {
    case "decided":
      throw new ApprovalError("already-decided", `the approval of call ${id} is already decided`);
    case "closed":
      throw new ApprovalError(
        "cancelled",
        `the approval of call ${id} was closed without a decision (its turn was cancelled)`,
      );
    case "not-requested":
      throw new ApprovalError("not-pending", `call ${id} needed no approval (no approval/request was logged for it)`);
    default:
      throw new ApprovalError("unknown-call", `session ${session.id} has no tool call ${id}`);
  }
}

/**
 * The decision as it will be logged: `by`/`note` kept, `arguments` as JSON text. Throws
 * `invalid-decision` for a malformed one and `edit-not-allowed` for an edit the tool refuses
 * (`tools` is the agent's registry: the tool must be registered and allow edits).
 */
export function normalizeDecision(
  input: ApprovalDecision,
  request: PendingApproval,
  tools: ToolRegistry,
): LoggedDecision {
  const where = `the decision for call ${previewName(request.callId)}`;
  if (typeof input !== "object" || input === null || typeof input.approve !== "boolean")
    throw new ApprovalError("invalid-decision", `${where} needs approve: true or false`);
  for (const key of ["by", "note"] as const)
    if (input[key] !== undefined && typeof input[key] !== "string")
      throw new ApprovalError("invalid-decision", `${where}: ${key} must be a string`);
  const args = input.arguments === undefined ? undefined : argumentsText(input.arguments, where);
  if (args !== undefined) {
    if (!input.approve)
      throw new ApprovalError("invalid-decision", `${where}: only an approval may edit the arguments`);
    if (tools.get(request.tool)?.allowEditedArguments !== true)
      throw new ApprovalError(
        "edit-not-allowed",
        `${where}: tool ${previewName(request.tool)} does not allow edited arguments (allowEditedArguments)`,
      );
  }
  return {
    callId: request.callId,
    approve: input.approve,
    ...(input.by === undefined ? {} : { by: input.by }),
    ...(input.note === undefined ? {} : { note: input.note }),
    ...(args === undefined ? {} : { arguments: args }),
  };
}

/** Edited arguments as JSON text: an object, or text that parses to one. */
function argumentsText(value: JsonObject | string, where: string): string {
  let parsed: unknown = value;
  if (typeof value === "string") {
    try {
      parsed = JSON.parse(value);
    } catch {
      throw new ApprovalError("invalid-decision", `${where}: arguments are not valid JSON`);
    }
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    throw new ApprovalError("invalid-decision", `${where}: arguments must be a JSON object`);
  return typeof value === "string" ? value : JSON.stringify(value);
}

/**
 * The queued decisions still pending now, in order; the others are rejected (`already-decided`
 * for a second decision of one call, or what `pendingRequest` says), nothing logged.
 */
export function stillPending(session: Session, queued: readonly QueuedDecision[]): QueuedDecision[] {
  const out: QueuedDecision[] = [];
  for (const item of queued) {
    try {
      pendingRequest(session, item.decision.callId);
      if (out.some((o) => o.decision.callId === item.decision.callId))
        throw new ApprovalError(
          "already-decided",
          `the approval of call ${previewName(item.decision.callId)} is already decided (by an earlier decision)`,
        );
      out.push(item);
    } catch (error) {
      item.settle.reject(error);
    }
  }
  return out;
}

/** Runs `approval/decide`; a refusal (or a throwing listener) is the reason, acceptance undefined. */
export async function refusalOf(
  hooks: HookBus<AgentHooks>,
  agent: Agent,
  request: PendingApproval,
  decision: LoggedDecision,
  live: boolean,
): Promise<string | undefined> {
  const { callId: _callId, ...logged } = decision;
  const payload: ApprovalDecidePayload = { agent, request, decision: logged, live };
  let verdict: ApprovalVerdict;
  try {
    verdict = await hooks.waterfall("approval/decide", payload, () => ({ action: "accept" }) as const);
  } catch (error) {
    hooks.report(error, "approval/decide");
    return `an approval/decide listener failed: ${error instanceof Error ? error.message : String(error)}`;
  }
  if (verdict?.action === "accept") return undefined;
  return verdict?.action === "refuse" ? String(verdict.reason) : "an approval/decide listener gave no verdict";
}
