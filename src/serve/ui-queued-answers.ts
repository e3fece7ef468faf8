// Answers a person gave that the log does not hold yet — a fleet's queued decisions and answers
// (the `decision` of `client.openTurns(sessionId)`'s records), waiting for a worker to log them —
// shown on the parts they answer as the page that gave them has them: an approval
// `approval-responded` (`approved`, the note as `reason`), a question `output-available` with
// the answer. A page reloaded before a worker took the continuation then shows no buttons for
// what it answered already. A part the log has moved past (decided, ran, answered) keeps what
// the log says; of two queued answers to one request the first — the one that will be logged —
// is shown. Pure over the messages `uiMessagesFromLog` built (it updates their parts).
import { ServeError } from "./types.js";
import { answeredQuestion, respondedPart } from "./ui-message-parts.js";
import { subagentPartId } from "./ui-subagent.js";
import type { UIMessage, UIToolPart } from "./ui-types.js";
import { valueName } from "./value-name.js";

/** A decision on an approval, not logged yet (the fleet's `QueuedApproval` has this shape). */
export interface QueuedApprovalAnswer {
  readonly kind?: "decision";
  readonly callId: string;
  readonly approve: boolean;
  readonly note?: string;
  /** A subagent's session, for a request a child asked (its part id is `<session>:<callId>`). */
  readonly session?: string;
}

/** An answer to a question (`ask_user`), not logged yet (the fleet's `QueuedResponse` has this shape). */
export interface QueuedQuestionAnswer {
  readonly kind: "response";
  readonly id: string;
  readonly value: unknown;
  readonly session?: string;
}

export type QueuedAnswer = QueuedApprovalAnswer | QueuedQuestionAnswer;

/** The queued answers by the id of the part each answers (the first per part); `invalid-options` naming a malformed one. */
export function queuedAnswersByPart(value: unknown): Map<string, QueuedAnswer> {
  if (!Array.isArray(value))
    throw new ServeError("invalid-options", `queuedAnswers must be an array, got ${valueName(value)}`);
  const byPart = new Map<string, QueuedAnswer>();
  value.forEach((answer: unknown, i) => {
    const checked = checkedAnswer(answer, `queuedAnswers[${i}]`);
    const id = checked.kind === "response" ? checked.id : checked.callId;
    const part = checked.session === undefined ? id : subagentPartId(checked.session, id);
    if (!byPart.has(part)) byPart.set(part, checked);
  });
  return byPart;
}

function checkedAnswer(answer: unknown, where: string): QueuedAnswer {
  const bad = (what: string): ServeError => new ServeError("invalid-options", `${where} ${what}`);
  if (typeof answer !== "object" || answer === null || Array.isArray(answer))
    throw bad(`must be an object, got ${valueName(answer)}`);
  const a = answer as Record<string, unknown>;
  if (a.session !== undefined && typeof a.session !== "string") throw bad(`session is ${valueName(a.session)}`);
  if (a.kind === "response") {
    if (typeof a.id !== "string") throw bad(`(an answer) has id ${valueName(a.id)}, not a string`);
    if (!("value" in a)) throw bad("(an answer) has no value");
    return answer as QueuedQuestionAnswer;
  }
  if (a.kind !== undefined && a.kind !== "decision") throw bad(`has kind ${valueName(a.kind)}`);
  if (typeof a.callId !== "string") throw bad(`(a decision) has callId ${valueName(a.callId)}, not a string`);
  if (typeof a.approve !== "boolean") throw bad(`(a decision) has approve ${valueName(a.approve)}, not a boolean`);
  if (a.note !== undefined && typeof a.note !== "string") throw bad(`(a decision) has note ${valueName(a.note)}`);
  return answer as QueuedApprovalAnswer;
}

/** Shows each queued answer on the part it answers, where that part still waits for it. */
export function showQueuedAnswers(messages: readonly UIMessage[], answers: ReadonlyMap<string, QueuedAnswer>): void {
  if (answers.size === 0) return;
  for (const message of messages) {
    if (message.role !== "assistant") continue;
    const parts = message.parts;
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i]!;
      if (!("toolCallId" in part)) continue;
      const answer = answers.get(part.toolCallId);
      if (answer === undefined) continue;
      const answered = answeredPart(part, answer);
      if (answered !== undefined) parts[i] = answered;
    }
  }
}

function answeredPart(part: UIToolPart, answer: QueuedAnswer): UIToolPart | undefined {
  if (answer.kind === "response")
    return part.state === "input-available" ? answeredQuestion(part, answer.value) : undefined;
  return part.state === "approval-requested" ? respondedPart(part, answer.approve, answer.note) : undefined;
}
