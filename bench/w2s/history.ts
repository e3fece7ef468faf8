// The prepared histories of W2S: exactly H messages in one of two shapes, given as plain turn
// specs and rendered in each runner's own message format (Keelson log, pi-ai Messages, AI SDK
// ModelMessages), so every runner starts from the same content.
//   text   turns of 2 messages: a user prompt, an assistant text.
//   tools  turns of 10 messages: a user prompt, 4 steps of (assistant text + tool call, tool
//          result), a final assistant text — 8 of every 10 messages are tool calls or results.
import type { AssistantMessage, Message } from "@mariozechner/pi-ai";
import type { ModelMessage } from "ai";
import type { Session } from "../../src/session/index.js";
import { LogDriver, newSession } from "../../test/support/builders.js";
import { filler } from "../logs.js";
import { TOOL } from "../w2/script.js";

export const SHAPES = ["text", "tools"] as const;
export type HistoryShape = (typeof SHAPES)[number];

/** Messages per past turn, by shape: H must be a multiple of it. */
export const TURN_MESSAGES: Readonly<Record<HistoryShape, number>> = { text: 2, tools: 10 };

const TOOL_STEPS = 4;

export interface PastCall {
  readonly callId: string;
  readonly args: string;
  readonly result: string;
}

export interface PastStep {
  readonly text: string;
  readonly call?: PastCall;
}

/** One past turn: a prompt, then steps (all but the last carry one tool call in `tools`). */
export interface PastTurn {
  readonly prompt: string;
  readonly steps: readonly PastStep[];
}

/** The turns of a history of exactly `messages` messages in `shape`. */
export function* pastTurns(shape: HistoryShape, messages: number): Generator<PastTurn> {
  const per = TURN_MESSAGES[shape];
  if (!Number.isSafeInteger(messages) || messages <= 0 || messages % per !== 0)
    throw new Error(`a ${shape} history has ${per} messages per turn; ${messages} is not a positive multiple of it`);
  for (let i = 0; i < messages / per; i++) {
    const prompt = filler(120, i);
    if (shape === "text") {
      yield { prompt, steps: [{ text: filler(400, i + 1) }] };
      continue;
    }
    const steps: PastStep[] = [];
    for (let s = 0; s < TOOL_STEPS; s++)
      steps.push({
        text: filler(60, i + s),
        call: { callId: `hist_${i}_${s}`, args: `{"n":${i * TOOL_STEPS + s}}`, result: filler(200, i + s + 2) },
      });
    steps.push({ text: filler(200, i + 3) });
    yield { prompt, steps };
  }
}

/** The history as a Keelson log (written the way the loop writes it: steps, headers, tool events). */
export function keelsonHistory(shape: HistoryShape, messages: number, id: string): Session {
  const driver = new LogDriver(newSession(id));
  for (const t of pastTurns(shape, messages)) {
    driver.turn({
      prompt: t.prompt,
      steps: t.steps.map((s) =>
        s.call === undefined
          ? { text: s.text }
          : { text: s.text, toolCalls: [{ name: TOOL, args: s.call.args, result: s.call.result }] },
      ),
    });
  }
  return driver.session;
}

const piAssistant = (
  content: AssistantMessage["content"],
  stopReason: AssistantMessage["stopReason"],
): AssistantMessage => ({
  role: "assistant",
  content,
  api: "bench",
  provider: "bench",
  model: "scripted",
  usage: {
    input: 10,
    output: 5,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 15,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  },
  stopReason,
  timestamp: 0,
});

/** The history as pi-ai Messages. */
export function piHistory(shape: HistoryShape, messages: number): Message[] {
  const out: Message[] = [];
  for (const t of pastTurns(shape, messages)) {
    out.push({ role: "user", content: [{ type: "text", text: t.prompt }], timestamp: 0 });
    for (const s of t.steps) {
      if (s.call === undefined) {
        out.push(piAssistant([{ type: "text", text: s.text }], "stop"));
        continue;
      }
      out.push(
        piAssistant(
          [
            { type: "text", text: s.text },
            { type: "toolCall", id: s.call.callId, name: TOOL, arguments: JSON.parse(s.call.args) },
          ],
          "toolUse",
        ),
        {
          role: "toolResult",
          toolCallId: s.call.callId,
          toolName: TOOL,
          content: [{ type: "text", text: s.call.result }],
          isError: false,
          timestamp: 0,
        },
      );
    }
  }
  return out;
}

/** The history as AI SDK ModelMessages. */
export function aiSdkHistory(shape: HistoryShape, messages: number): ModelMessage[] {
  const out: ModelMessage[] = [];
  for (const t of pastTurns(shape, messages)) {
    out.push({ role: "user", content: [{ type: "text", text: t.prompt }] });
    for (const s of t.steps) {
      if (s.call === undefined) {
        out.push({ role: "assistant", content: [{ type: "text", text: s.text }] });
        continue;
      }
      out.push(
        {
          role: "assistant",
          content: [
            { type: "text", text: s.text },
            { type: "tool-call", toolCallId: s.call.callId, toolName: TOOL, input: JSON.parse(s.call.args) },
          ],
        },
        {
          role: "tool",
          content: [
            {
              type: "tool-result",
              toolCallId: s.call.callId,
              toolName: TOOL,
              output: { type: "text", value: s.call.result },
            },
          ],
        },
      );
    }
  }
  return out;
}
