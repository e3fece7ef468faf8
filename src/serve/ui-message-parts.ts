// A logged tool call's UI part brought to what the log says happened to it: asked for approval
// (`approval-requested`), decided (`approval-responded`), denied, ran (`output-available`,
// `output-error`) — and a question asked while a call runs, then answered. Shared by
// `uiMessagesFromLog` (ui-messages.ts) and a subagent's parts rebuilt from its log
// (ui-subagent-log.ts); a part's `callProviderMetadata` (a subagent's, a question's) is kept.
import type { SessionEvent } from "../session/index.js";
import { askedQuestion, isInputError, toolErrorText, toolOutput } from "./ui-parts.js";
import type { UIApproved, UIToolPart } from "./ui-types.js";

type Data<T extends SessionEvent["type"]> = SessionEvent<T>["data"];

/** A tool part waiting for approval (`approval-requested`), or answered (`approval-responded`). */
export function approvalPart(call: UIToolPart, event: SessionEvent): UIToolPart {
  const { type, toolCallId, input } = call;
  if (event.type === "approval/request")
    return { type, toolCallId, state: "approval-requested", input, approval: { id: toolCallId }, ...metaOf(call) };
  const d = event.data as Data<"approval/decision">;
  return respondedPart(call, d.approve, d.note);
}

/** The part answered `approve` (the note as the response's `reason`), as the page that answered it has it. */
export function respondedPart(call: UIToolPart, approve: boolean, note: string | undefined): UIToolPart {
  const { type, toolCallId, input } = call;
  const approval = { id: toolCallId, approved: approve, ...(note === undefined ? {} : { reason: note }) };
  return { type, toolCallId, state: "approval-responded", input, approval, ...metaOf(call) };
}

/**
 * A tool part with the log's result: its output, its error, or — for a denied call — the denial.
 * `approved`: the approval of a call that asked a question after it (`askingPart` left it off).
 */
export function resultPart(call: UIToolPart, result: Data<"tool/result">, approved?: UIApproved): UIToolPart {
  return { ...resultState(call, result, approved), ...metaOf(call) };
}

function resultState(call: UIToolPart, result: Data<"tool/result">, approved: UIApproved | undefined): UIToolPart {
  const { type, toolCallId, input } = call;
  const responded = call.state === "approval-responded" ? call.approval : approved;
  // A denied call's result is the denial (the model reads its text; the UI shows the part denied).
  if (responded !== undefined && !responded.approved)
    return { type, toolCallId, state: "output-denied", input, approval: { ...responded, approved: false } };
  // An approved call keeps its approval, as the client that approved it does.
  const approval = responded === undefined ? {} : { approval: { ...responded, approved: true as const } };
  if (!result.isError)
    return { type, toolCallId, state: "output-available", input, output: toolOutput(result.content), ...approval };
  const errorText = toolErrorText(result.content, result.error);
  // As the stream's tool-input-error leaves it: no input, the arguments as the raw input.
  if (isInputError(result.error))
    return { type, toolCallId, state: "output-error", input: undefined, rawInput: input, errorText, ...approval };
  return { type, toolCallId, state: "output-error", input, errorText, ...approval };
}

/**
 * An approved call that then asks its question (a tool that needs approval and asks) waits for the
 * answer again: `input-available`, as the live page's part is once the stream restates it — but
 * without the approval, which the AI SDK's message schema allows on no `input-available` part (its
 * client keeps the field there at run time; `validateUIMessages` refuses it). The caller keeps
 * the approval (`approvedBeforeAsking`) for the call's result part.
 */
function waitingAgain(part: UIToolPart): UIToolPart {
  if (part.state !== "approval-responded" || !part.approval.approved) return part;
  const { type, toolCallId, input } = part;
  return { type, toolCallId, state: "input-available", input, ...metaOf(part) };
}

/** The approval `askingPart` leaves off `part` (an approved call asking after it), for its result part. */
export function approvedBeforeAsking(part: UIToolPart): UIApproved | undefined {
  if (part.state !== "approval-responded" || !part.approval.approved) return undefined;
  return { ...part.approval, approved: true };
}

/** A subagent's part keeps its `callProviderMetadata` (whose call it is) through every state. */
const metaOf = (call: UIToolPart): Pick<UIToolPart, "callProviderMetadata"> =>
  call.callProviderMetadata === undefined ? {} : { callProviderMetadata: call.callProviderMetadata };

/** A question's part with its answer as the output (as the page that answered it holds it). */
export function answeredQuestion(part: UIToolPart, value: unknown): UIToolPart {
  const { type, toolCallId, input, callProviderMetadata } = part;
  const meta = callProviderMetadata === undefined ? {} : { callProviderMetadata };
  return { type, toolCallId, state: "output-available", input, output: value, ...meta };
}

/**
 * A call's part asking a question before it runs (`ask_user`, a tool with a `question`): its
 * metadata says what it asks (a subagent's keeps whose call it is), as the live stream marks it.
 */
export function askingPart(part: UIToolPart, question: Data<"input/request">): UIToolPart {
  const keelson = part.callProviderMetadata?.keelson;
  const asked = askedQuestion(question);
  return {
    ...waitingAgain(part),
    callProviderMetadata: {
      keelson: keelson === undefined ? { callId: question.id, question: asked } : { ...keelson, question: asked },
    },
  };
}

/** A part for a question asked while its call ran (its metadata names the call). */
export const questionOf = (part: UIToolPart): boolean => part.callProviderMetadata?.keelson.call !== undefined;

/** The part of a question asked while call `call` runs (as the live stream makes it: ui-encoder.ts). */
export function questionPart(question: Data<"input/request">, call: string): UIToolPart {
  const input = { message: question.message, schema: question.schema };
  const callProviderMetadata = { keelson: { callId: question.id, call, question: askedQuestion(question) } };
  return {
    type: `tool-${question.source}`,
    toolCallId: question.id,
    state: "input-available",
    input,
    callProviderMetadata,
  };
}
