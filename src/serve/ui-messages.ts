// uiMessagesFromLog: a session's history as the AI SDK's UIMessages, so a reloaded page shows
// what the log holds (hand them to `useChat({ messages })`). Pure, over the events. Each prompt
// (`user/message`, `steering/message`, a blocked prompt) is a user message; each turn's steps
// form one assistant message named as the live stream names it (`turn-<turn>`; a continuation —
// the turn that answers a paused one — goes on in the paused turn's message), with a
// `step-start` part per step, its committed answers' parts and its tool results. The parts are
// built by the same rules as the stream's (ui-parts.ts), so a turn streamed to completion and
// the same turn read back agree. With the subagents' logs (`subagentLogs`), a subagent call's
// requests to a person show as the child's parts, as the live stream shows them
// (ui-subagent-log.ts), and the parent's stand-in request is not an approval on the page.
import type { AssistantContent, UserContent } from "../messages/index.js";
import type { SessionEvent } from "../session/index.js";
import { checkOptions } from "./options-check.js";
import { ServeError } from "./types.js";
import {
  answeredQuestion,
  approvalPart,
  approvedBeforeAsking,
  askingPart,
  questionOf,
  questionPart,
  resultPart,
} from "./ui-message-parts.js";
import {
  assistantMessageId,
  continuedMessageId,
  continuesPausedTurn,
  imageDataUrl,
  streamBlockId,
  toolInput,
  userMessageId,
} from "./ui-parts.js";
import { assistantContentOf, invalidLogEvent, logEventOf, logEventsOf, userContentOf } from "./ui-log-check.js";
import { type MessageMetadata, TurnMetadata } from "./ui-metadata.js";
import { type QueuedAnswer, queuedAnswersByPart, showQueuedAnswers } from "./ui-queued-answers.js";
import { type QueuedPrompt, queuedPromptMessages } from "./ui-queued-prompts.js";
import { type SubagentLogs, subagentToolParts } from "./ui-subagent-log.js";
import type { UIApproved, UIMessage, UIMessagePart, UIToolPart } from "./ui-types.js";
import { valueName } from "./value-name.js";

type Log = readonly SessionEvent[] | { readonly events: readonly SessionEvent[] };
type Data<T extends SessionEvent["type"]> = SessionEvent<T>["data"];

export interface UIMessagesOptions {
  /**
   * The subagents of the log's calls (`await subagentLogs(session, storeReader(store))`): each
   * child's requests to a person become parts of the child's tools, as on the live page, so a
   * reloaded page can answer a pending one. Without it a child's pause shows as the parent's
   * stand-in request (`approval-requested` on the subagent call, which cannot be approved).
   */
  readonly subagents?: SubagentLogs;
  /**
   * The live stream's `messageMetadata` (ui-metadata.ts), asked for each logged event as the turn
   * event it stands for; what it returns for a turn's events is merged into that turn's message as
   * the AI SDK merges the live chunks. Metadata derived from committed events shows the same on
   * reload; what live-only events gave (deltas, a turn-end's `outcome`) is not in the log.
   */
  readonly messageMetadata?: MessageMetadata;
  /**
   * Answers a person gave that the log does not hold yet — a fleet's queued decisions and answers
   * (`(await client.openTurns(id)).flatMap((t) => t.decision ?? [])`): each shows on the part it
   * answers as the page that gave it has it (`approval-responded`; a question's output), so a
   * page reloaded before a worker logged it offers no buttons for it again (ui-queued-answers.ts).
   */
  readonly queuedAnswers?: readonly QueuedAnswer[];
  /**
   * Prompts the log does not hold yet — a fleet's queued turns (`await client.openTurns(id)`, as
   * it is: continuations and started turns are skipped): each shows after the log's conversation
   * as the user message the page sent (id `queued-<turn id>`), so a page reloaded before a worker
   * took it keeps it (ui-queued-prompts.ts).
   */
  readonly queuedPrompts?: readonly QueuedPrompt[];
}

/**
 * The log's conversation as UIMessages, oldest first (a Session or its events). Throws
 * `ServeError('invalid-argument')` for a log that is neither, `invalid-log` for an event without
 * the shape its type has (naming it and its seq), `invalid-options` for `subagents` that is no Map
 * or a malformed `queuedAnswers` or `queuedPrompts` (naming the entry).
 */
export function uiMessagesFromLog(log: Log, options: UIMessagesOptions = {}): UIMessage[] {
  const events = logEventsOf(log);
  checkOptions(
    options,
    { subagents: "checked", messageMetadata: "function", queuedAnswers: "checked", queuedPrompts: "checked" },
    "uiMessagesFromLog",
  );
  if (options.subagents !== undefined && !(options.subagents instanceof Map))
    throw new ServeError(
      "invalid-options",
      `subagents must be a Map (subagentLogs(session, read)), got ${valueName(options.subagents)}`,
    );
  const subagents = options.subagents ?? NO_SUBAGENTS;
  const queued = options.queuedAnswers === undefined ? undefined : queuedAnswersByPart(options.queuedAnswers);
  const prompts = options.queuedPrompts === undefined ? undefined : queuedPromptMessages(options.queuedPrompts);
  /** Children whose parts are in (once each); whether the current step has a UI step for them yet. */
  const shown = new Set<string>();
  let pauseStep = false;
  const showChild = (callId: string, parts: UIMessagePart[]): void => {
    const child = subagents.get(callId);
    if (child === undefined || shown.has(callId)) return;
    shown.add(callId);
    // The child's id is `<this session>.<callId>` (subagentSessionId): the path starts here.
    const parent = child.session.slice(0, -(callId.length + 1));
    const childParts = subagentToolParts(child, [parent, child.session]);
    if (childParts.length === 0) return;
    // As live: the children's requests open a UI step of their own, shared until the parent's next step.
    if (!pauseStep) parts.push({ type: "step-start" });
    pauseStep = true;
    parts.push(...childParts);
  };
  const messages: UIMessage[] = [];
  let assistant: UIMessage | undefined;
  let turn = 0;
  let assistantsInTurn = 0;
  const attempts = new Map<string, number>();
  const tools = new Map<string, { readonly parts: UIMessagePart[]; readonly index: number }>();
  /** Approvals of calls that asked after them (`approvedBeforeAsking`), for their result parts. */
  const approvals = new Map<string, UIApproved>();
  const user = (seq: number, content: unknown, blocked?: string): void => {
    assistant = undefined;
    const parts = userContentOf(content).map(userPart);
    messages.push(
      blocked === undefined
        ? { id: userMessageId(seq), role: "user", parts }
        : { id: userMessageId(seq), role: "user", metadata: { blocked }, parts },
    );
  };
  const metadata = options.messageMetadata === undefined ? undefined : new TurnMetadata(options.messageMetadata);
  for (let i = 0; i < events.length; i++) {
    const event = logEventOf(events[i], i);
    try {
      walk(event);
    } catch (error) {
      throw invalidLogEvent(event, error);
    }
    metadata?.add(event, assistant);
  }
  if (queued !== undefined) showQueuedAnswers(messages, queued);
  if (prompts !== undefined) messages.push(...prompts);
  return messages;

  /** One event's part of the conversation (throws, for the caller to name the event, on data without its type's shape). */
  function walk(event: SessionEvent): void {
    switch (event.type) {
      case "turn/start": {
        const d = event.data as Data<"turn/start">;
        if (!Number.isSafeInteger(d.turn)) throw new TypeError(`data.turn is ${valueName(d.turn)}, not a turn number`);
        turn = d.turn;
        // A continuation (answers to a paused turn, or its cancel) goes on in the paused turn's
        // message, as its live stream does; any other turn starts a new one.
        const last = messages.at(-1);
        assistant = continuesPausedTurn(d.trigger) && last?.role === "assistant" ? last : undefined;
        assistantsInTurn = assistant === undefined ? 0 : 1;
        break;
      }
      case "user/message": {
        const d = event.data as Data<"user/message">;
        // A compaction summary is context the loop wrote, not a prompt: no message, no split turn.
        if (d.source !== COMPACTION_SOURCE) user(event.seq, d.content);
        break;
      }
      case "steering/message":
        user(event.seq, (event.data as Data<"steering/message">).content);
        break;
      case "prompt/blocked": {
        const d = event.data as Data<"prompt/blocked">;
        if (typeof d.reason !== "string") throw new TypeError(`data.reason is ${valueName(d.reason)}, not a string`);
        user(event.seq, d.content, d.reason);
        break;
      }
      case "step/start": {
        if (assistant === undefined) {
          const id = assistantsInTurn++ === 0 ? assistantMessageId(turn) : continuedMessageId(turn, event.seq);
          assistant = { id, role: "assistant", parts: [] };
          messages.push(assistant);
        }
        assistant.parts.push({ type: "step-start" });
        pauseStep = false;
        break;
      }
      case "llm/retry": {
        const d = event.data as Data<"llm/retry">;
        attempts.set(`${d.turn}/${d.step}`, d.attempt);
        break;
      }
      case "assistant/message": {
        const d = event.data as Data<"assistant/message">;
        const attempt = attempts.get(`${d.turn}/${d.step}`) ?? 0;
        const parts = assistant?.parts;
        if (parts === undefined) break; // an answer outside a step: not in a valid log
        assistantContentOf(d.content).forEach((block, index) => {
          if (block.type === "tool-call") tools.set(block.callId, { parts, index: parts.length });
          parts.push(answerPart(block, d.turn, d.step, index, attempt));
        });
        break;
      }
      case "tool/result": {
        const d = event.data as Data<"tool/result">;
        const at = tools.get(d.callId);
        if (at === undefined) break;
        showChild(d.callId, at.parts);
        at.parts[at.index] = resultPart(at.parts[at.index] as UIToolPart, d, approvals.get(d.callId));
        break;
      }
      case "input/request": {
        const d = event.data as Data<"input/request">;
        if (d.callId === undefined) {
          // A question asked before its call runs: the call's part says what it asks (as live).
          const call = tools.get(d.id);
          if (call === undefined) break;
          const before = call.parts[call.index] as UIToolPart;
          const approved = approvedBeforeAsking(before);
          if (approved !== undefined) approvals.set(d.id, approved);
          call.parts[call.index] = askingPart(before, d);
          break;
        }
        // A question asked while its call runs: a part of its own after the call's (as live).
        const at = tools.get(d.callId);
        if (at === undefined) break;
        tools.set(d.id, { parts: at.parts, index: at.parts.length });
        at.parts.push(questionPart(d, d.callId));
        break;
      }
      case "input/response": {
        const d = event.data as Data<"input/response">;
        const at = tools.get(d.id);
        const part = at?.parts[at.index] as UIToolPart | undefined;
        if (at !== undefined && part !== undefined && questionOf(part))
          at.parts[at.index] = answeredQuestion(part, d.value);
        break;
      }
      case "approval/request":
      case "approval/decision": {
        const d = event.data as Data<"approval/decision">;
        const at = tools.get(d.callId);
        if (at === undefined) break;
        // A subagent's stand-in: the child's parts are what the person answers; its approval is not shown.
        if (subagents.has(d.callId) && (event.type === "approval/request" || d.approve)) {
          showChild(d.callId, at.parts);
          break;
        }
        at.parts[at.index] = approvalPart(at.parts[at.index] as UIToolPart, event);
        break;
      }
      case "turn/end":
        assistant = undefined;
        break;
    }
  }
}

const NO_SUBAGENTS: SubagentLogs = new Map();

/**
 * The `source` of the `user/message` a compaction lands its summary as (src/compaction/compactor.ts).
 * Every other source is a person's prompt (`user`: `agent.send` / `stream`, which the host, the
 * fleet and a subagent's child all go through).
 */
const COMPACTION_SOURCE = "compaction";

function userPart(part: UserContent): UIMessagePart {
  return part.type === "text"
    ? { type: "text", text: part.text }
    : { type: "file", mediaType: part.mediaType, url: imageDataUrl(part) };
}

function answerPart(
  block: AssistantContent,
  turn: number,
  step: number,
  index: number,
  attempt: number,
): UIMessagePart {
  switch (block.type) {
    case "text":
      return { type: "text", text: block.text, state: "done" };
    case "reasoning":
      return {
        type: "reasoning",
        id: streamBlockId("reasoning", turn, step, index, attempt),
        text: block.text,
        state: "done",
      };
    case "tool-call":
      return {
        type: `tool-${block.name}`,
        toolCallId: block.callId,
        state: "input-available",
        input: toolInput(block.arguments),
      };
  }
}
