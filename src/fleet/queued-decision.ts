// A person's decision on a held call as a queue row holds it (`enqueueDecision`): checked, its
// arguments as JSON text; and whether a second one for the same request, queued while the first
// waits, says the same (then it is the first) or not (refused now, not when a worker runs it).
import { type JsonValue, jsonEquals } from "../json/index.js";
import { ApprovalError, type ApprovalDecision, InputError } from "../loop/index.js";
import type { QueuedApproval, QueuedDecision } from "./types.js";

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

/**
 * Why `queued` cannot join the continuation `turnId` that already carries `earlier` for the same
 * request — `already-decided` for an approval decided the other way or with other arguments,
 * `already-answered` for a question answered with another value — or undefined when it says the
 * same (who gave it and a note aside: the first is the one logged).
 */
export function earlierAnswerRefusal(
  earlier: QueuedDecision,
  queued: QueuedDecision,
  turnId: string,
): ApprovalError | InputError | undefined {
  if (queued.kind === "response") {
    if (earlier.kind === "response" && jsonEquals(earlier.value, queued.value)) return undefined;
    return new InputError(
      "already-answered",
      `the question ${queued.id} has another answer queued already (turn ${turnId}, not run yet)`,
    );
  }
  // The statement matched the kind: `earlier` decides the same call.
  const before = earlier as QueuedApproval;
  if (before.approve !== queued.approve) {
    const was = before.approve ? "an approval" : "a denial";
    return new ApprovalError(
      "already-decided",
      `call ${queued.callId} has ${was} queued already (turn ${turnId}, not run yet)`,
    );
  }
  if (sameArguments(before, queued)) return undefined;
  return new ApprovalError(
    "already-decided",
    `call ${queued.callId} has a decision with other arguments queued already (turn ${turnId}, not run yet)`,
  );
}

/** Equal as JSON (key order aside); text that is no JSON (arguments given as a string) only when identical. */
const sameArguments = (a: QueuedApproval, b: QueuedApproval): boolean => {
  if (a.arguments === b.arguments) return true;
  const x = parsed(a.arguments);
  const y = parsed(b.arguments);
  return x !== undefined && y !== undefined && jsonEquals(x, y);
};

function parsed(text: string | undefined): JsonValue | undefined {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return undefined;
  }
}
