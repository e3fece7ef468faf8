// A person's decision on a held call as a queue row holds it (`enqueueDecision`): checked, its
// arguments as JSON text.
import { ApprovalError, type ApprovalDecision } from "../loop/index.js";
import type { QueuedApproval } from "./types.js";

/** The decision as a queue row holds it: arguments as JSON text; a malformed one is `ApprovalError('invalid-decision')`. */
export function queuedDecision(callId: string, input: ApprovalDecision): QueuedApproval {
  if (typeof input !== "object" || input === null || typeof input.approve !== "boolean")
    throw new ApprovalError("invalid-decision", `the decision for call ${callId} needs approve: true or false`);
  for (const key of ["by", "note"] as const)
    if (input[key] !== undefined && typeof input[key] !== "string")
      throw new ApprovalError("invalid-decision", `the decision for call ${callId}: ${key} must be a string`);
  const args = input.arguments;
  return {
    callId,
    approve: input.approve,
    ...(input.by === undefined ? {} : { by: input.by }),
    ...(input.note === undefined ? {} : { note: input.note }),
    ...(args === undefined ? {} : { arguments: typeof args === "string" ? args : JSON.stringify(args) }),
    ...(typeof input.session === "string" ? { session: input.session } : {}),
  };
}
