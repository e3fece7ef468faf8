// A text or reasoning part ends when its block's live end arrives, not when the step's answer is
// committed (found from outside, against the AI SDK's own stream: a reasoning part stayed
// `streaming` — a page's "Thinking…" — while the whole answer text streamed). A feed delivers a
// block's end only when every delta of it reached the consumer, so a part ended live holds the
// block's whole text; a consumer that lagged past the bound gets no live end and the committed
// answer completes and ends the part — one part, never a second copy.
import { describe, expect, test } from "vitest";
import { ScriptedProvider } from "../../src/llm/core.js";
import { createAgent } from "../../src/loop/index.js";
import { toUIMessageStream, type UIMessageChunk, uiMessagesFromLog } from "../../src/serve/index.js";
import type { UIMessage } from "ai";
import { assemble, collect, expectValidChunks } from "./support.js";

/** The text and reasoning parts of a message: type, text, state. */
const textParts = (message: UIMessage | undefined) =>
  (message?.parts ?? []).flatMap((p) =>
    p.type === "reasoning" || p.type === "text" ? [{ type: p.type, text: p.text, state: p.state }] : [],
  );

const kinds = (chunks: readonly UIMessageChunk[]): string[] =>
  chunks.filter((c) => /^(reasoning|text)-(start|end)$|^finish-step$/.test(c.type)).map((c) => c.type);

describe("parts end as their blocks end", () => {
  test("the reasoning part ends before the text starts, the text before the step finishes", async () => {
    const provider = new ScriptedProvider([{ reasoning: "weighing it up", text: "The answer." }]);
    const agent = createAgent({ provider, model: "m" });
    const chunks = await collect(toUIMessageStream(agent.stream("go")));
    await expectValidChunks(chunks);
    expect(kinds(chunks)).toEqual(["reasoning-start", "reasoning-end", "text-start", "text-end", "finish-step"]);
    const { message } = await assemble(chunks);
    expect(textParts(message)).toEqual([
      { type: "reasoning", text: "weighing it up", state: "done" },
      { type: "text", text: "The answer.", state: "done" },
    ]);
    const [, reloaded] = uiMessagesFromLog(agent.session);
    expect(textParts(reloaded)).toEqual(textParts(message));
    await agent.dispose();
  });

  test("a consumer that lagged past the bound: no live end for a block that lost deltas; the answer ends it, one part", async () => {
    const text = "a long answer that does not fit the consumer's tiny bound, streamed in two deltas";
    const provider = new ScriptedProvider([{ reasoning: "r".repeat(80), text }]);
    const agent = createAgent({ provider, model: "m" });
    const stream = agent.stream("go", { maxBufferedChars: 16 });
    await stream.outcome; // nothing read while the turn ran: its deltas were shed
    const chunks = await collect(toUIMessageStream(stream));
    await expectValidChunks(chunks);
    const { message } = await assemble(chunks);
    expect(textParts(message)).toEqual([
      { type: "reasoning", text: "r".repeat(80), state: "done" },
      { type: "text", text, state: "done" },
    ]);
    await agent.dispose();
  });
});
