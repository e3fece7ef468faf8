// uiMessagesFromLog: a session's history as the AI SDK's UIMessages, so a reloaded page shows
// what the log holds (hand them to `useChat({ messages })`). Pure, over the events. Each prompt
// (`user/message`, `steering/message`, a blocked prompt) is a user message; each turn's steps
// form one assistant message named as the live stream names it (`turn-<turn>`; a continuation —
// the turn that answers a paused one — goes on in the paused turn's message), with a
// `step-start` part per step, its committed answers' parts and its tool results. The parts are
// built by the same rules as the stream's (ui-parts.ts), so a turn streamed to completion and
// the same turn read back agree.
import type { AssistantContent, UserContent } from "../messages/index.js";
import type { SessionEvent } from "../session/index.js";
import {
  assistantMessageId,
  continuedMessageId,
  imageDataUrl,
  isInputError,
  streamBlockId,
  toolErrorText,
  toolInput,
  toolOutput,
  userMessageId,
} from "./ui-parts.js";
import type { UIMessage, UIMessagePart, UIToolPart } from "./ui-types.js";

type Log = readonly SessionEvent[] | { readonly events: readonly SessionEvent[] };
type Data<T extends SessionEvent["type"]> = SessionEvent<T>["data"];

/** The log's conversation as UIMessages, oldest first (a Session or its events). */
export function uiMessagesFromLog(log: Log): UIMessage[] {
  const events = "events" in log ? log.events : log;
  const messages: UIMessage[] = [];
  let assistant: UIMessage | undefined;
  let turn = 0;
  let assistantsInTurn = 0;
  const attempts = new Map<string, number>();
  const tools = new Map<string, { readonly parts: UIMessagePart[]; readonly index: number }>();
  const user = (seq: number, content: readonly UserContent[], blocked?: string): void => {
    assistant = undefined;
    const parts = content.map(userPart);
    messages.push(
      blocked === undefined
        ? { id: userMessageId(seq), role: "user", parts }
        : { id: userMessageId(seq), role: "user", metadata: { blocked }, parts },
    );
  };
  for (const event of events) {
    switch (event.type) {
      case "turn/start": {
        const d = event.data as Data<"turn/start">;
        turn = d.turn;
        // A continuation (answers to a paused turn) goes on in the paused turn's message, as its
        // live stream does; any other turn starts a new one.
        const last = messages.at(-1);
        assistant = d.trigger === "approval" && last?.role === "assistant" ? last : undefined;
        assistantsInTurn = assistant === undefined ? 0 : 1;
        break;
      }
      case "user/message":
      case "steering/message":
        user(event.seq, (event.data as Data<"user/message">).content);
        break;
      case "prompt/blocked": {
        const d = event.data as Data<"prompt/blocked">;
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
        d.content.forEach((block, index) => {
          if (block.type === "tool-call") tools.set(block.callId, { parts, index: parts.length });
          parts.push(answerPart(block, d.turn, d.step, index, attempt));
        });
        break;
      }
      case "tool/result": {
        const d = event.data as Data<"tool/result">;
        const at = tools.get(d.callId);
        if (at === undefined) break;
        at.parts[at.index] = resultPart(at.parts[at.index] as UIToolPart, d);
        break;
      }
      case "approval/request":
      case "approval/decision": {
        const d = event.data as Data<"approval/decision">;
        const at = tools.get(d.callId);
        if (at !== undefined) at.parts[at.index] = approvalPart(at.parts[at.index] as UIToolPart, event);
        break;
      }
      case "turn/end":
        assistant = undefined;
        break;
    }
  }
  return messages;
}

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

/** A tool part waiting for approval (`approval-requested`), or answered (`approval-responded`). */
function approvalPart(call: UIToolPart, event: SessionEvent): UIToolPart {
  const { type, toolCallId, input } = call;
  const approval = { id: toolCallId };
  if (event.type === "approval/request") return { type, toolCallId, state: "approval-requested", input, approval };
  const d = event.data as Data<"approval/decision">;
  const decided = { ...approval, approved: d.approve, ...(d.note === undefined ? {} : { reason: d.note }) };
  return { type, toolCallId, state: "approval-responded", input, approval: decided };
}

function resultPart(call: UIToolPart, result: Data<"tool/result">): UIToolPart {
  const { type, toolCallId, input } = call;
  const responded = call.state === "approval-responded" ? call.approval : undefined;
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
