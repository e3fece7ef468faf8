// DeepSeek thinking mode, as the emulator's DeepSeek style models it (api-docs.deepseek.com,
// guides/thinking_mode). The emulator's rule for "is this request in thinking mode": the body's
// `thinking.type` decides when present (`enabled` / `disabled`); without it, models named
// `deepseek-reasoner` or `deepseek-v4…` think (DeepSeek's default for them) and any other model
// does not. In thinking mode, between two user messages where the model called a tool, every
// assistant message's `reasoning_content` must be sent back — DeepSeek answers 400
// `invalid_request_error` when one lacks the field (an empty string is accepted) — while the
// reasoning of turns without tool calls is ignored, neither required nor counted.
import type { Message } from "../messages/index.js";
import { WireError } from "./types.js";
import { isObj, type Obj } from "./wire-json.js";

const THINKING_BY_DEFAULT = /^deepseek-(reasoner|v4)/;

/** Whether a Chat Completions body runs in thinking mode (the rule in the module comment). */
export function deepseekThinking(body: Obj): boolean {
  const type = isObj(body.thinking) ? body.thinking.type : undefined;
  if (type === "enabled") return true;
  if (type === "disabled") return false;
  return typeof body.model === "string" && THINKING_BY_DEFAULT.test(body.model);
}

/** Indexes of the assistant messages in user-to-user spans where some assistant message called a tool. */
export function toolSpanAssistants(messages: readonly Message[]): Set<number> {
  const kept = new Set<number>();
  let span: number[] = [];
  let called = false;
  const close = (): void => {
    if (called) for (const i of span) kept.add(i);
    span = [];
    called = false;
  };
  messages.forEach((message, i) => {
    if (message.role === "user") close();
    else if (message.role === "assistant") {
      span.push(i);
      called ||= message.content.some((b) => b.type === "tool-call");
    }
  });
  close();
  return kept;
}

/**
 * DeepSeek's 400 for the first tool-span assistant message (by `messages` index) whose
 * `reasoning_content` is missing; `wireIndex[i]` is message i's index in the body's `messages`
 * (system messages included), which the error names.
 */
export function requireReasoningReplay(
  spans: ReadonlySet<number>,
  replayed: readonly (string | undefined)[],
  wireIndex: readonly number[],
): void {
  for (const i of [...spans].sort((a, b) => a - b)) {
    if (replayed[i] !== undefined) continue;
    throw new WireError(
      "invalid-request",
      `Missing \`reasoning_content\` field in the assistant message at message index ${wireIndex[i]}. For more information, please refer to https://api-docs.deepseek.com/guides/thinking_mode#tool-calls`,
      { openaiCode: "invalid_request_error" },
    );
  }
}
