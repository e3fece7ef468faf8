// What a paused session's agent claims and queues: decisions and answers checked before they
// are queued (`queuedDecision`, `queuedAnswer`), checked again when claimed (a second one for the
// same call is refused, nothing logged), and the refusal of other input while something waits
// for a person. The agent (agent.ts) calls these; the turn that logs them is turn.ts's.
import type { HookBus } from "../hooks/index.js";
import type { Session } from "../session/index.js";
import type { ToolRegistry } from "../tools/index.js";
import {
  checkedAnswer,
  normalizeDecision,
  type PauseAnswer,
  pendingInput,
  pendingRequest,
  refusalOf,
  stillPending,
} from "./approval-decision.js";
import { type ApprovalDecision, ApprovalError, type InputAnswer, InputError } from "./approval-types.js";
import type { Claim, Inbox, QueuedDecision, Settle } from "./inbox.js";
import { type Agent, type AgentHooks, LoopError } from "./types.js";

/** `agent.decide`'s checks, `approval/decide` included: the decision to queue, or an `ApprovalError`. */
export async function queuedDecision(
  agent: Agent,
  hooks: HookBus<AgentHooks>,
  tools: ToolRegistry,
  callId: string,
  input: ApprovalDecision,
): Promise<PauseAnswer> {
  const request = pendingRequest(agent.session, callId);
  const decision = normalizeDecision(input, request, tools);
  const refusal = await refusalOf(hooks, agent, request, decision, false);
  if (refusal !== undefined)
    throw new ApprovalError("refused", `the decision for call ${request.callId} was refused: ${refusal}`);
  pendingRequest(agent.session, callId); // decided or cancelled while the listeners ran
  return { type: "approval/decision", data: decision };
}

/** `agent.respond`'s checks: the answer to queue, or an `InputError`. */
export function queuedAnswer(session: Session, id: string, answer: InputAnswer): PauseAnswer {
  return { type: "input/response", data: checkedAnswer(pendingInput(session, id), answer) };
}

/**
 * The next claim when decisions or answers are queued: those still pending (the others are
 * rejected, nothing logged), or undefined when none is.
 */
export function claimAnswers(session: Session, inbox: Inbox): Claim | undefined {
  const claim = inbox.claimDecisions();
  const decisions = stillPending(session, claim.decisions);
  return decisions.length === 0 ? undefined : { ...claim, decisions };
}

/** Everything else queued; while something waits for a person it is all refused (undefined). */
export function claimInput(session: Session, inbox: Inbox): Claim | undefined {
  const claim = inbox.claimAll();
  if (session.waitingCalls().length === 0) return claim;
  const waiting = [
    ...session.pendingApprovals().map((p) => `approval of ${p.callId}`),
    ...session.pendingInputs().map((p) => `an answer to ${p.id}`),
  ];
  const error = new LoopError(
    "awaiting-approval",
    `session ${session.id} awaits ${waiting.join(", ")}: decide (agent.decide), answer (agent.respond) or cancel (agent.cancel) first`,
  );
  for (const item of claimItems(claim)) item.settle.reject(error);
  return undefined;
}

/** The typed error of a decision or answer whose turn was cancelled before it was logged. */
export function notLogged(item: QueuedDecision): Error {
  return item.answer.type === "approval/decision"
    ? new ApprovalError("cancelled", "the turn was cancelled before the decision was logged")
    : new InputError("cancelled", "the turn was cancelled before the answer was logged");
}

/** Every queued item a claim holds. */
export const claimItems = (claim: Claim): readonly { readonly settle: Settle<never> }[] => [
  ...claim.prompts,
  ...claim.steers,
  ...claim.injects,
  ...claim.compacts,
  ...claim.decisions,
];
