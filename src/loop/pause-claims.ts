// What a paused session's agent claims: queued batches of decisions and answers (checked before
// they were queued, pause-answers.ts) checked again when claimed — a batch with an answer that is
// no longer pending is refused whole, nothing logged — and the refusal of other input while
// something waits for a person. The agent (agent.ts) calls these; the turn that logs them is turn.ts's.
import type { Session } from "../session/index.js";
import { stillPending } from "./approval-decision.js";
import { ApprovalError, InputError } from "./approval-types.js";
import type { Claim, Inbox, QueuedDecision, Settle } from "./inbox.js";
import { LoopError } from "./types.js";

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

/** The typed error of a batch whose turn was cancelled before it was logged. */
export function notLogged(item: QueuedDecision): Error {
  return item.answers.some((answer) => answer.type === "approval/decision")
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
