// Checking a decision or an answer before it is logged: is the call's approval (or question)
// pending (else which typed error), is the decision well-formed, may it edit the arguments, does
// the app accept the decider (`approval/decide`), does the answer match the question's schema.
// Every refusal is an `ApprovalError` / `InputError` and nothing is logged.
import type { HookBus } from "../hooks/index.js";
import { JsonError, type JsonObject, type JsonValue, previewName, snapshotJson } from "../json/index.js";
import {
  approvalStatus,
  inputStatus,
  type PendingApproval,
  type PendingInput,
  type Session,
} from "../session/index.js";
import { checkJsonSchema, type ToolRegistry } from "../tools/index.js";
import {
  type ApprovalDecidePayload,
  type ApprovalDecision,
  ApprovalError,
  type ApprovalVerdict,
  type InputAnswer,
  InputError,
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

/** An answer to a question as the `input/response` event logs it. */
export interface LoggedAnswer {
  readonly id: string;
  readonly value: JsonValue;
  readonly by?: string;
}

/** What a queued answer logs: a decision on an approval, or a response to a question. */
export type PauseAnswer =
  | { readonly type: "approval/decision"; readonly data: LoggedDecision }
  | { readonly type: "input/response"; readonly data: LoggedAnswer };

/** The pending question `id`, or the `InputError` saying why there is none. */
export function pendingInput(session: Session, id: unknown): PendingInput {
  if (typeof id !== "string") throw new InputError("unknown-request", `a question id is a string, got ${typeof id}`);
  const pending = session.pendingInputs().find((p) => p.id === id);
  if (pending !== undefined) return pending;
  const shown = previewName(id);
  switch (inputStatus(session, id)) {
    case "answered":
      throw new InputError("already-answered", `the question ${shown} is already answered`);
    case "closed":
      throw new InputError("cancelled", `the question ${shown} was closed without an answer (its turn was cancelled)`);
    default:
      throw new InputError("unknown-request", `session ${session.id} has no question ${shown}`);
  }
}

/** The answer as it will be logged: lossless JSON matching the question's schema, else `invalid-value`. */
export function checkedAnswer(request: PendingInput, answer: InputAnswer): LoggedAnswer {
  const where = `the answer to ${previewName(request.id)}`;
  if (typeof answer !== "object" || answer === null || !("value" in answer))
    throw new InputError("invalid-value", `${where} needs a value`);
  if (answer.by !== undefined && typeof answer.by !== "string")
    throw new InputError("invalid-value", `${where}: by must be a string`);
  let value: JsonValue;
  try {
    value = snapshotJson(answer.value, "value") as JsonValue;
  } catch (error) {
    if (error instanceof JsonError) throw new InputError("invalid-value", `${where} is not JSON: ${error.message}`);
    throw error;
  }
  const problems = checkJsonSchema(request.schema, value);
  if (problems.length > 0)
    throw new InputError("invalid-value", `${where} does not match its schema: ${problems.slice(0, 5).join("; ")}`);
  return { id: request.id, value, ...(answer.by === undefined ? {} : { by: answer.by }) };
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

/** What an answer answers: `a <callId>` for a decision, `i <id>` for a reply to a question. */
export const answerKey = (answer: PauseAnswer): string =>
  answer.type === "approval/decision" ? `a ${answer.data.callId}` : `i ${answer.data.id}`;

/** Throws the typed error of an answer whose request is no longer pending. */
export function checkStillPending(session: Session, answer: PauseAnswer): void {
  if (answer.type === "approval/decision") pendingRequest(session, answer.data.callId);
  else pendingInput(session, answer.data.id);
}

/**
 * The queued batches whose every answer is still pending now, in order; each other batch is
 * rejected whole (`already-decided` / `already-answered` when an earlier batch answers the same
 * call, or what `pendingRequest` / `pendingInput` say), nothing of it logged.
 */
export function stillPending(session: Session, queued: readonly QueuedDecision[]): QueuedDecision[] {
  const out: QueuedDecision[] = [];
  const taken = new Set<string>();
  for (const item of queued) {
    try {
      for (const answer of item.answers) {
        checkStillPending(session, answer);
        if (taken.has(answerKey(answer)))
          throw answer.type === "approval/decision"
            ? new ApprovalError(
                "already-decided",
                `the approval of call ${previewName(answer.data.callId)} is already decided (by an earlier decision)`,
              )
            : new InputError("already-answered", `the question ${previewName(answer.data.id)} is already answered`);
      }
      for (const answer of item.answers) taken.add(answerKey(answer));
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
