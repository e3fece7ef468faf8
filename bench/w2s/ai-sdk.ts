// Vercel AI SDK (ai@6) in W2S: per turn, `generateText` over the prepared ModelMessage[] history
// plus the new prompt (a shallow copy of the one prepared array, as a server holding the session
// in memory would pass it), `stopWhen` far above the script so the multi-step loop ends only on
// the final text. The model is W2's scripted LanguageModelV3 object.
import { generateText, type ModelMessage, stepCountIs, tool } from "ai";
import { z } from "zod";
import { scriptedModel } from "../w2/ai-sdk.js";
import { SYSTEM, TOOL } from "../w2/script.js";
import type { StoredRunner, StoredRunnerFactory } from "./harness.js";
import { aiSdkHistory } from "./history.js";

const tools = {
  [TOOL]: tool({ description: "does nothing", inputSchema: z.object({ n: z.number() }), execute: async () => "ok" }),
};

export const aiSdkGenerate: StoredRunnerFactory = async (history, script) => {
  const prepared: readonly ModelMessage[] = aiSdkHistory(history.shape, history.messages);
  const model = scriptedModel(script);
  const runner: StoredRunner = {
    async turn(_index, prompt) {
      const messages: ModelMessage[] = [...prepared, { role: "user", content: [{ type: "text", text: prompt }] }];
      const result = await generateText({
        model,
        system: SYSTEM,
        messages,
        tools,
        stopWhen: stepCountIs(100_000),
        maxRetries: 0,
      });
      if (result.finishReason !== "stop") throw new Error(`generateText finished ${result.finishReason}`);
      return () => messages.length + result.response.messages.length;
    },
    async dispose() {},
  };
  return runner;
};
