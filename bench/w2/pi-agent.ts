// pi-agent-core in W2: its stateful `Agent` with `initialState.messages` pre-filled (pi-ai
// Message format) and a custom `streamFn` — the seam pi's own providers plug into — that plays
// the script as a pi-ai AssistantMessageEventStream (start, text in two deltas, one tool-call
// delta, done), all pushed synchronously: no timers, no network, no usage estimation (pi's
// "faux" provider serializes the whole context per call to estimate usage, which is not loop cost).
import { Agent, type AgentTool } from "@mariozechner/pi-agent-core";
import {
  type AssistantMessage,
  createAssistantMessageEventStream,
  type Message,
  type Model,
  Type,
  type Usage,
} from "@mariozechner/pi-ai";
import { loopHistory } from "../logs.js";
import type { HarnessFactory } from "./harness.js";
import { FINAL_TEXT, halves, type LoopScript, STEP_TEXT, SYSTEM, TOOL } from "./script.js";

/** The scripted model pi sees (W2 and W2S). */
export const model: Model<"bench"> = {
  id: "scripted",
  name: "scripted",
  api: "bench",
  provider: "bench",
  baseUrl: "",
  reasoning: false,
  input: ["text"],
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  contextWindow: 1_000_000,
  maxTokens: 1024,
};

const usage = (): Usage => ({
  input: 10,
  output: 5,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 15,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
});

const assistant = (
  content: AssistantMessage["content"],
  stopReason: AssistantMessage["stopReason"],
): AssistantMessage => ({
  role: "assistant",
  content,
  api: model.api,
  provider: model.provider,
  model: model.id,
  usage: usage(),
  stopReason,
  timestamp: Date.now(),
});

/** A pi `StreamFn` playing the script. */
export function scriptedStream(script: LoopScript) {
  return () => {
    const stream = createAssistantMessageEventStream();
    const r = script.next();
    const partial = assistant([], r.kind === "final" ? "stop" : "toolUse");
    const text = { type: "text" as const, text: "" };
    const [a, b] = halves(r.kind === "final" ? FINAL_TEXT : STEP_TEXT);
    stream.push({ type: "start", partial });
    partial.content.push(text);
    stream.push({ type: "text_start", contentIndex: 0, partial });
    text.text += a;
    stream.push({ type: "text_delta", contentIndex: 0, delta: a, partial });
    text.text += b;
    stream.push({ type: "text_delta", contentIndex: 0, delta: b, partial });
    stream.push({ type: "text_end", contentIndex: 0, content: text.text, partial });
    if (r.kind === "tool") {
      const call = { type: "toolCall" as const, id: r.callId, name: TOOL, arguments: { n: r.n } };
      partial.content.push(call);
      stream.push({ type: "toolcall_start", contentIndex: 1, partial });
      stream.push({ type: "toolcall_delta", contentIndex: 1, delta: JSON.stringify(call.arguments), partial });
      stream.push({ type: "toolcall_end", contentIndex: 1, toolCall: call, partial });
      stream.push({ type: "done", reason: "toolUse", message: partial });
    } else {
      stream.push({ type: "done", reason: "stop", message: partial });
    }
    return stream;
  };
}

/** The W2 history as pi-ai Messages. */
export function piHistory(messages: number): Message[] {
  const out: Message[] = [];
  for (const t of loopHistory(messages)) {
    out.push(
      { role: "user", content: [{ type: "text", text: t.prompt }], timestamp: 0 },
      assistant(
        [
          { type: "text", text: t.text },
          { type: "toolCall", id: t.callId, name: t.tool, arguments: JSON.parse(t.args) },
        ],
        "toolUse",
      ),
      {
        role: "toolResult",
        toolCallId: t.callId,
        toolName: t.tool,
        content: [{ type: "text", text: t.result }],
        isError: false,
        timestamp: 0,
      },
      assistant([{ type: "text", text: t.final }], "stop"),
    );
  }
  return out;
}

/** The no-op tool every pi harness offers (W2 and W2S). */
export const noop: AgentTool = {
  name: TOOL,
  label: TOOL,
  description: "does nothing",
  parameters: Type.Object({ n: Type.Number() }),
  execute: async () => ({ content: [{ type: "text", text: "ok" }], details: undefined }),
};

export const piAgent: HarnessFactory = async (messages, script) => {
  const agent = new Agent({
    initialState: { systemPrompt: SYSTEM, model, tools: [noop], messages: piHistory(messages) },
    streamFn: scriptedStream(script),
  });
  return {
    async turn(prompt) {
      await agent.prompt(prompt);
      if (agent.state.errorMessage !== undefined)
        throw new Error(`pi-agent-core turn failed: ${agent.state.errorMessage}`);
    },
    historyLength: () => agent.state.messages.length,
    async dispose() {},
  };
};
