// When a `useChat` page sends its answers on its own: `sendAutomaticallyWhen` for a Keelson
// server. The AI SDK's `lastAssistantMessageIsCompleteWithApprovalResponses` wants every tool
// part of the last step finished or answered — but a Keelson step that paused holds the calls
// after the paused one (model order), and their parts wait `input-available` until the answers
// let them run: with such a call the SDK's check never sends, and the page stalls after the
// person answered. It knows no questions either. This one reads the step as Keelson streams it:
// it sends once the person answered something (an approval, or a question — a part whose
// `callProviderMetadata.keelson.question` says what it asks) and nothing waits for them any more
// (no `approval-requested` part, no question without its answer). Pure; runs in the browser.

/** A message as the page holds it (the AI SDK's `UIMessage`, or anything shaped like one). */
export interface AnswerableMessage {
  readonly role: string;
  readonly parts: readonly object[];
}

/**
 * True when the last assistant message's last step has an answer from the person (an approval's
 * response, a question's output) and no request still waiting for one. Pass it as `useChat({
 * sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithAnswers })`.
 */
export function lastAssistantMessageIsCompleteWithAnswers({
  messages,
}: {
  readonly messages: readonly AnswerableMessage[];
}): boolean {
  const last = messages.at(-1);
  if (last?.role !== "assistant") return false;
  let answered = false;
  for (let i = lastStepStart(last.parts); i < last.parts.length; i++) {
    const part = last.parts[i] as { readonly type?: unknown; readonly state?: unknown };
    if (!isToolPart(part)) continue;
    const question = asksQuestion(part);
    if (part.state === "approval-requested") return false;
    if (question && (part.state === "input-available" || part.state === "input-streaming")) return false;
    if (part.state === "approval-responded" || (question && part.state === "output-available")) answered = true;
  }
  return answered;
}

/** The index after the last `step-start` part (0 when there is none). */
function lastStepStart(parts: readonly object[]): number {
  for (let i = parts.length - 1; i >= 0; i--) if ((parts[i] as { type?: unknown }).type === "step-start") return i + 1;
  return 0;
}

const isToolPart = (part: { readonly type?: unknown }): boolean =>
  typeof part.type === "string" && (part.type.startsWith("tool-") || part.type === "dynamic-tool");

/** Whether Keelson marked the part as asking the person a question. */
function asksQuestion(part: object): boolean {
  const meta = (part as { callProviderMetadata?: { keelson?: { question?: unknown } } }).callProviderMetadata;
  return typeof meta?.keelson?.question === "object" && meta.keelson.question !== null;
}
