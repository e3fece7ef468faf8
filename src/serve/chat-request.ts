// parseChatRequest: what a `useChat` POST asks for, checked at the boundary. The AI SDK's
// default transport sends `{ id, messages, trigger, messageId? }` with the whole conversation;
// Keelson's history is the log, so only the last message is read:
// - the user's: a prompt — its text parts and data-URL images (`agent.stream(content)`);
// - the assistant's: answers — its tool parts the person answered on the page
//   (`addToolApprovalResponse` → `approval-responded`, `addToolOutput` on a question →
//   `output-available`) whose request is pending in the log (`agent.streamAnswers(answers)`).
//   The log is the authority: only a part's approval id, `approved`, `reason` (or a question's
//   output) are read, only for requests the log says are pending — the call, its arguments and
//   the question come from the log, and every other part (server-run tools, answers already
//   logged) is ignored.
// `regenerate` is refused: the log is append-only.
import type { InputAnswer } from "../loop/index.js";
import type { UserContent } from "../messages/index.js";
import { promptImageProblem } from "../messages/prompt-image.js"; // alone: keelson/serve is bundled for browsers
import { checkOptions } from "./options-check.js";
import { ServeError } from "./types.js";
import { subagentPartId } from "./ui-subagent.js";
import { valueName } from "./value-name.js";

/** A new prompt: the last user message's text parts and images, in order. */
export interface ChatPrompt {
  readonly kind: "prompt";
  /** The chat's id (`useChat({ id })`): which session the app runs it in. */
  readonly chatId?: string;
  readonly content: readonly UserContent[];
}

/** A decision the page gave (`addToolApprovalResponse({ id, approved, reason })`). */
export interface ChatDecision {
  /** The approval's id, which is the call's id (Keelson sends `approvalId: callId`). */
  readonly callId: string;
  readonly approve: boolean;
  /** The response's `reason`, logged as the decision's note. */
  readonly note?: string;
  readonly by?: string;
  /** A subagent's call (its part id is `<session>:<callId>`): the session that asked, for `streamAnswers` to route to. */
  readonly session?: string;
}

/** An answer the page gave to a question (`addToolOutput` on an `ask_user` part). */
export interface ChatResponse {
  /** The question's id: the asking call's id. */
  readonly id: string;
  readonly value: InputAnswer["value"];
  readonly by?: string;
  /** As `ChatDecision.session`. */
  readonly session?: string;
}

/** Answers to the session's pending requests: hand it to `agent.streamAnswers` / `host.streamAnswers`. */
export interface ChatAnswers {
  readonly kind: "answers";
  readonly chatId?: string;
  readonly decisions: readonly ChatDecision[];
  readonly responses: readonly ChatResponse[];
}

export type ChatRequest = ChatPrompt | ChatAnswers;

/** A pending approval as the lists give it: a subagent's carries `path` (down to the session that asks). */
interface PendingCall {
  readonly callId: string;
  readonly path?: readonly string[];
}

/** A pending question as the lists give it (`path` as for approvals). */
interface PendingQuestion {
  readonly id: string;
  readonly path?: readonly string[];
}

/**
 * What the session waits for: an `Agent` (its `pendingApprovals()` / `pendingInputs()`, its
 * subagents' included), a `Session` (its own only), or `{ approvals, inputs }`
 * (`host.pending(sessionId)`).
 */
export type PendingRequests =
  | { readonly approvals: readonly PendingCall[]; readonly inputs: readonly PendingQuestion[] }
  | { pendingApprovals(): readonly PendingCall[]; pendingInputs(): readonly PendingQuestion[] };

export interface ChatRequestOptions {
  /** The session's pending requests: needed to read answers (without it an assistant's last message is `invalid-request`). */
  readonly pending?: PendingRequests;
  /** Who answered (the app's signed-in user): set as every decision's and answer's `by`. */
  readonly by?: string;
}

const DATA_URL = /^data:(image\/[A-Za-z0-9.+-]+);base64,([A-Za-z0-9+/]*={0,2})$/;

/**
 * The chat id and the prompt, or — with `pending` — the answers, of a `useChat` request body
 * (parsed JSON). `ServeError`: `invalid-request` (400) for a body without a usable last message
 * (an assistant's without `pending`), `nothing-to-answer` (409) for answers none of which the
 * log is waiting for, `awaiting-approval` (409) for a prompt while — by `pending` — the session
 * waits for approvals or answers (refused before any response is written).
 */
export function parseChatRequest(
  body: unknown,
  options: ChatRequestOptions & { readonly pending: PendingRequests },
): ChatRequest;
/** Without `pending`, only a prompt is accepted: the chat id and the last user message's content. */
export function parseChatRequest(body: unknown, options?: ChatRequestOptions): ChatPrompt;
export function parseChatRequest(body: unknown, options: ChatRequestOptions = {}): ChatRequest {
  checkOptions(options, { pending: "checked", by: "string" }, "parseChatRequest");
  const request = object(body, "the request body");
  // The log is append-only: the old answer stays, so a "regenerated" one would be a second turn
  // on a repeated prompt, and a reload would show both. The app sends the prompt again instead.
  if (request.trigger === "regenerate-message")
    throw invalid("regenerating a message is not supported (the log keeps every answer): send the prompt again");
  if (request.trigger !== undefined && request.trigger !== "submit-message")
    throw invalid(`the trigger is ${valueName(request.trigger)}, not "submit-message"`);
  const messages = request.messages;
  if (!Array.isArray(messages) || messages.length === 0) throw invalid("the request has no messages");
  const last = object(messages.at(-1), "the last message");
  if (!Array.isArray(last.parts)) throw invalid("the last message has no parts");
  const chatId = typeof request.id === "string" ? { chatId: request.id } : {};
  if (last.role === "assistant") return { kind: "answers", ...chatId, ...answers(last.parts, options) };
  if (last.role !== "user")
    throw invalid(`the last message's role is ${valueName(last.role)}, not the user's or the assistant's`);
  const content = prompt(last.parts);
  if (options.pending !== undefined) {
    const { approvals, inputs } = pendingIds(options.pending);
    // The turn would be refused once queued, after the response's headers: say so now, as a 409.
    if (approvals.size + inputs.size > 0)
      throw new ServeError(
        "awaiting-approval",
        `the session awaits ${approvals.size} approval(s) and ${inputs.size} answer(s): answer them (or cancel the turn) before a new prompt`,
      );
  }
  return { kind: "prompt", ...chatId, content };
}

function prompt(parts: readonly unknown[]): UserContent[] {
  const content: UserContent[] = [];
  for (const [i, raw] of parts.entries()) {
    const part = object(raw, `part ${i} of the last message`);
    if (part.type === "text" && typeof part.text === "string") content.push({ type: "text", text: part.text });
    else if (part.type === "file") content.push(image(part, i));
    else if (part.type !== "step-start" && !String(part.type).startsWith("data-"))
      throw invalid(`part ${i} of the last message is of type ${valueName(part.type)}, not text or an image`);
  }
  if (!content.some((part) => part.type === "image" || part.text.trim() !== ""))
    throw invalid("the last message has no text and no image");
  return content;
}

/** The tool parts of the assistant's message that answer a pending request, as decisions and responses. */
function answers(parts: readonly unknown[], options: ChatRequestOptions): Omit<ChatAnswers, "kind" | "chatId"> {
  if (options.pending === undefined)
    throw invalid(
      "the last message is the assistant's (answers to its tool approvals or questions): pass { pending } — the agent, its session or host.pending(id) — to read them",
    );
  const { approvals, inputs } = pendingIds(options.pending);
  const by = options.by === undefined ? {} : { by: options.by };
  const decisions: ChatDecision[] = [];
  const responses: ChatResponse[] = [];
  for (const [i, raw] of parts.entries()) {
    const part = object(raw, `part ${i} of the last message`);
    const where = `part ${i} of the last message`;
    if (part.state === "approval-responded" && isToolPart(part)) {
      const approval = object(part.approval, `the approval of ${where}`);
      // Malformed is the client's mistake whether or not the call is still pending (400 before 409).
      if (typeof approval.approved !== "boolean") throw invalid(`the approval of ${where} has no boolean "approved"`);
      if (approval.reason !== undefined && typeof approval.reason !== "string")
        throw invalid(`the approval reason of ${where} is not a string`);
      const pending = typeof approval.id === "string" ? approvals.get(approval.id) : undefined;
      if (pending === undefined) continue; // not pending: decided already, or never asked
      const note = approval.reason === undefined || approval.reason === "" ? {} : { note: approval.reason };
      decisions.push({ ...pending, approve: approval.approved, ...note, ...by });
    } else if (part.state === "output-available" && isToolPart(part)) {
      const pending = typeof part.toolCallId === "string" ? inputs.get(part.toolCallId) : undefined;
      if (pending === undefined) continue; // a tool's own result, or answered already
      if (!("output" in part)) throw invalid(`the answer in ${where} has no output`);
      responses.push({ id: pending.callId, value: part.output as InputAnswer["value"], ...session(pending), ...by });
    }
  }
  if (decisions.length + responses.length === 0)
    throw new ServeError(
      "nothing-to-answer",
      "the last message answers no approval or question the session waits for (answered already, or never asked)",
    );
  return { decisions, responses };
}

const isToolPart = (part: Record<string, unknown>): boolean =>
  typeof part.type === "string" && (part.type.startsWith("tool-") || part.type === "dynamic-tool");

/** A pending request by the part id the page has for it: the call's id, or `<session>:<callId>` for a subagent's. */
function pendingIds(pending: PendingRequests): {
  approvals: Map<string, { callId: string; session?: string }>;
  inputs: Map<string, { callId: string; session?: string }>;
} {
  const lists =
    "pendingApprovals" in pending
      ? { approvals: pending.pendingApprovals(), inputs: pending.pendingInputs() }
      : { approvals: pending.approvals, inputs: pending.inputs };
  const byPart = (callId: string, path: readonly string[] | undefined) => {
    const asker = path !== undefined && path.length > 1 ? path.at(-1)! : undefined;
    const value = asker === undefined ? { callId } : { callId, session: asker };
    return [asker === undefined ? callId : subagentPartId(asker, callId), value] as const;
  };
  return {
    approvals: new Map(lists.approvals.map((a) => byPart(a.callId, a.path))),
    inputs: new Map(lists.inputs.map((i) => byPart(i.id, i.path))),
  };
}

const session = (pending: { readonly session?: string }): { session?: string } =>
  pending.session === undefined ? {} : { session: pending.session };

function image(part: Record<string, unknown>, i: number): UserContent {
  const match = typeof part.url === "string" ? DATA_URL.exec(part.url) : null;
  if (match === null) throw invalid(`part ${i} of the last message is a file that is not a base64 data-URL image`);
  const problem = promptImageProblem(match[1]!, match[2]!);
  if (problem !== undefined) throw invalid(`the image at part ${i} of the last message cannot be sent: ${problem}`);
  return { type: "image", mediaType: match[1]!, data: match[2]! };
}

function object(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw invalid(`${what} is not an object`);
  return value as Record<string, unknown>;
}

const invalid = (message: string): ServeError => new ServeError("invalid-request", message);
