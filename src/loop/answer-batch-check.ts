// The checks an answer batch passes before anything of it is logged or queued, none of which
// asks a listener: each decision names a pending approval of `session` and is well-formed
// (edited arguments valid for the tool), each response a pending question with a value valid
// for its schema, no call or question answered twice, not empty (approval-decision.ts). Used by
// `streamAnswers` / `decide` / `respond` (pause-answers.ts) and, over a subagent's stored log, by
// the check of a batch that answers children (subagent-answers.ts). Throws the first refusal.
// Given the model's context window, an answer whose logged text alone is far over it is refused
// too (`invalid-value` / `invalid-decision`): logged, it would fail every later turn, as a prompt
// too large would (prompt-content.ts).
import { previewName } from "../json/index.js";
import { overWindow } from "../llm/core.js";
import type { PendingApproval, PendingInput, Session } from "../session/index.js";
import type { ToolRegistry } from "../tools/index.js";
import {
  answerKey,
  checkedAnswer,
  type LoggedDecision,
  normalizeDecision,
  type PauseAnswer,
  pendingInput,
  pendingRequest,
} from "./approval-decision.js";
import { type AnswerBatch, ApprovalError, InputError } from "./approval-types.js";
import { LoopError } from "./types.js";

/** A batch after the checks that need no listener: each answer with the request it answers. */
export interface CheckedBatch {
  readonly decisions: readonly { readonly request: PendingApproval; readonly decision: LoggedDecision }[];
  readonly responses: readonly { readonly request: PendingInput; readonly answer: PauseAnswer }[];
}

/**
 * `batch` checked against `session`'s log (and `tools`' definitions, and the model's context
 * `window` in tokens when known), in the batch's order; throws the first refusal.
 */
export function checkBatch(session: Session, tools: ToolRegistry, batch: AnswerBatch, window?: number): CheckedBatch {
  const lists = answerLists(batch);
  const decisions = lists.decisions.map((input) => {
    const request = pendingRequest(session, (input as { callId?: unknown } | null)?.callId);
    return { request, decision: normalizeDecision(input, request, tools) };
  });
  const responses = lists.responses.map((input) => {
    const request = pendingInput(session, (input as { id?: unknown } | null)?.id);
    return { request, answer: { type: "input/response", data: checkedAnswer(request, input) } as const };
  });
  const seen = new Set<string>();
  const keyed: PauseAnswer[] = [
    ...decisions.map(({ decision }) => ({ type: "approval/decision", data: decision }) as const),
    ...responses.map(({ answer }) => answer),
  ];
  for (const answer of keyed) {
    if (seen.has(answerKey(answer)))
      throw answer.type === "approval/decision"
        ? new ApprovalError("invalid-decision", `the answers decide call ${previewName(answer.data.callId)} twice`)
        : new InputError("invalid-value", `the answers answer the question ${previewName(answer.data.id)} twice`);
    seen.add(answerKey(answer));
    if (window !== undefined) checkFits(answer, window);
  }
  return { decisions, responses };
}

/** Refuses `answer` when its logged text alone is far over a `window`-token context. */
function checkFits(answer: PauseAnswer, window: number): void {
  const estimate = overWindow(JSON.stringify(answer.data), window);
  if (estimate === undefined) return;
  const n = (x: number): string => x.toLocaleString("en-US");
  const over = `is about ${n(estimate)} tokens (estimated), far over the model's ${n(window)}-token context window: it could never be sent; nothing was logged`;
  throw answer.type === "approval/decision"
    ? new ApprovalError("invalid-decision", `the decision on call ${previewName(answer.data.callId)} ${over}`)
    : new InputError("invalid-value", `the answer to ${previewName(answer.data.id)} ${over}`);
}

/**
 * The batch's shape, the check that needs no log (an agent host makes it at its door, before the
 * batch is queued): an object whose `decisions` / `responses` are absent or arrays, not both
 * empty. `LoopError('invalid-options')` otherwise.
 */
export function answerLists(batch: AnswerBatch): Pick<Required<AnswerBatch>, "decisions" | "responses"> {
  if (typeof batch !== "object" || batch === null)
    throw new LoopError("invalid-options", "the answers are { decisions?, responses? }");
  const decisions = list(batch.decisions, "decisions");
  const responses = list(batch.responses, "responses");
  if (decisions.length + responses.length === 0)
    throw new LoopError("invalid-options", "the answers hold no decision and no response");
  return { decisions, responses };
}

/** A batch's `decisions` / `responses`: absent, or an array. */
function list<T>(value: readonly T[] | undefined, name: string): readonly T[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new LoopError("invalid-options", `the answers' ${name} must be an array`);
  return value;
}

/**
 * Edited arguments checked against the tool's input schema, the way the call's arguments are
 * before it runs (found from outside: an edit the schema refuses was logged as an approval and
 * the model told the call "ran with" it, when it never ran). Asynchronous, as a schema's
 * validation may be: `ApprovalError('invalid-decision')` naming the issues; nothing is logged.
 */
export async function checkEditedArguments(checked: CheckedBatch, tools: ToolRegistry): Promise<void> {
  for (const { request, decision } of checked.decisions) {
    if (decision.arguments === undefined) continue;
    const input = tools.entry(request.tool)?.input;
    if (input === undefined) continue; // an unknown tool: the call's own result says so when it runs
    let parsed: Awaited<ReturnType<typeof input.validate>>;
    try {
      parsed = await input.validate(JSON.parse(decision.arguments) as unknown);
    } catch (error) {
      parsed = { ok: false, issues: `its validation threw: ${error instanceof Error ? error.message : String(error)}` };
    }
    if (!parsed.ok)
      throw new ApprovalError(
        "invalid-decision",
        `the decision for call ${previewName(request.callId)}: the edited arguments do not fit tool ${previewName(request.tool)}'s input: ${parsed.issues}`,
      );
  }
}
