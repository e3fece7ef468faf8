// Vercel AI SDK (ai@6) in W2: generateText / streamText with `stopWhen` far above the script, so
// the multi-step loop ends only when the model answers without a tool call, over a ModelMessage[]
// history. The model is a minimal LanguageModelV3 object (the spec ai@6 drives): doGenerate
// returns the script's reply, doStream enqueues the same reply as stream parts (text in two
// deltas, the tool input in one) on a ReadableStream — no timers, no network, no test helpers.
import { generateText, type LanguageModel, type ModelMessage, stepCountIs, streamText, tool } from "ai";
import { z } from "zod";
import { loopHistory } from "../logs.js";
import type { HarnessFactory, LoopHarness } from "./harness.js";
import { FINAL_TEXT, halves, type LoopScript, STEP_TEXT, SYSTEM, TOOL } from "./script.js";

type ModelV3 = Extract<LanguageModel, { readonly specificationVersion: "v3" }>;
type GenerateResult = Awaited<ReturnType<ModelV3["doGenerate"]>>;
type StreamPart = Awaited<ReturnType<ModelV3["doStream"]>>["stream"] extends ReadableStream<infer P> ? P : never;

const usage: GenerateResult["usage"] = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
};

export function scriptedModel(script: LoopScript): ModelV3 {
  return {
    specificationVersion: "v3",
    provider: "bench",
    modelId: "scripted",
    supportedUrls: {},
    async doGenerate(): Promise<GenerateResult> {
      const r = script.next();
      if (r.kind === "final")
        return {
          content: [{ type: "text", text: FINAL_TEXT }],
          finishReason: { unified: "stop", raw: "stop" },
          usage,
          warnings: [],
        };
      return {
        content: [
          { type: "text", text: STEP_TEXT },
          { type: "tool-call", toolCallId: r.callId, toolName: TOOL, input: JSON.stringify({ n: r.n }) },
        ],
        finishReason: { unified: "tool-calls", raw: "tool_use" },
        usage,
        warnings: [],
      };
    },
    async doStream() {
      const r = script.next();
      const text = r.kind === "final" ? FINAL_TEXT : STEP_TEXT;
      const [a, b] = halves(text);
      const parts: StreamPart[] = [
        { type: "stream-start", warnings: [] },
        { type: "text-start", id: "t" },
        { type: "text-delta", id: "t", delta: a },
        { type: "text-delta", id: "t", delta: b },
        { type: "text-end", id: "t" },
      ];
      if (r.kind === "tool") {
        const input = JSON.stringify({ n: r.n });
        parts.push(
          { type: "tool-input-start", id: r.callId, toolName: TOOL },
          { type: "tool-input-delta", id: r.callId, delta: input },
          { type: "tool-input-end", id: r.callId },
          { type: "tool-call", toolCallId: r.callId, toolName: TOOL, input },
        );
      }
      parts.push({
        type: "finish",
        usage,
        finishReason:
          r.kind === "final" ? { unified: "stop", raw: "stop" } : { unified: "tool-calls", raw: "tool_use" },
      });
      return {
        stream: new ReadableStream<StreamPart>({
          start(controller) {
            for (const p of parts) controller.enqueue(p);
            controller.close();
          },
        }),
      };
    },
  };
}

/** The W2 history as AI SDK ModelMessages. */
export function aiSdkHistory(messages: number): ModelMessage[] {
  const out: ModelMessage[] = [];
  for (const t of loopHistory(messages)) {
    out.push(
      { role: "user", content: [{ type: "text", text: t.prompt }] },
      {
        role: "assistant",
        content: [
          { type: "text", text: t.text },
          { type: "tool-call", toolCallId: t.callId, toolName: t.tool, input: JSON.parse(t.args) },
        ],
      },
      {
        role: "tool",
        content: [
          { type: "tool-result", toolCallId: t.callId, toolName: t.tool, output: { type: "text", value: t.result } },
        ],
      },
      { role: "assistant", content: [{ type: "text", text: t.final }] },
    );
  }
  return out;
}

const tools = {
  [TOOL]: tool({ description: "does nothing", inputSchema: z.object({ n: z.number() }), execute: async () => "ok" }),
};
const MAX_STEPS = 100_000;

function harness(messages: number, script: LoopScript, mode: "generate" | "stream"): LoopHarness {
  const model = scriptedModel(script);
  const history = aiSdkHistory(messages);
  return {
    async turn(prompt) {
      history.push({ role: "user", content: [{ type: "text", text: prompt }] });
      if (mode === "generate") {
        const result = await generateText({
          model,
          system: SYSTEM,
          messages: history,
          tools,
          stopWhen: stepCountIs(MAX_STEPS),
          maxRetries: 0,
        });
        if (result.finishReason !== "stop") throw new Error(`generateText finished ${result.finishReason}`);
        history.push(...result.response.messages);
        return;
      }
      let failure: unknown;
      const result = streamText({
        model,
        system: SYSTEM,
        messages: history,
        tools,
        stopWhen: stepCountIs(MAX_STEPS),
        maxRetries: 0,
        onError: ({ error }) => {
          failure = error;
        },
      });
      await result.consumeStream();
      if (failure !== undefined) throw failure;
      if ((await result.finishReason) !== "stop") throw new Error(`streamText finished ${await result.finishReason}`);
      history.push(...(await result.response).messages);
    },
    historyLength: () => history.length,
    async dispose() {},
  };
}

export const aiSdkGenerate: HarnessFactory = async (messages, script) => harness(messages, script, "generate");
export const aiSdkStream: HarnessFactory = async (messages, script) => harness(messages, script, "stream");
