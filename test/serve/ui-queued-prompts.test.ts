// uiMessagesFromLog's `queuedPrompts`: a fleet's queued prompts (client.openTurns' records, as
// they are) shown after the log's conversation as the user messages the page sent; continuations
// and started turns skipped; a malformed entry `invalid-options` naming it. (Against a fleet:
// test/fleet/queued-answers.test.ts.)
import { describe, expect, test } from "vitest";
import { ScriptedProvider } from "../../src/llm/core.js";
import { createAgent } from "../../src/loop/index.js";
import { ServeError, uiMessagesFromLog } from "../../src/serve/index.js";

describe("queued prompts on reload", () => {
  test("each prompt not started yet follows the log's conversation as the page's user message", async () => {
    const agent = createAgent({ provider: new ScriptedProvider([{ text: "hello" }]), model: "m" });
    await agent.send("hi");
    const logged = uiMessagesFromLog(agent.session);
    const open = [
      { id: "41", prompt: "a continuation's label", decision: { callId: "c", approve: true } },
      { id: "42", prompt: "already running", startSeq: 7 },
      { id: "43", prompt: "and then?" },
      { id: "44", prompt: "one more" },
    ];
    expect(uiMessagesFromLog(agent.session, { queuedPrompts: open })).toEqual([
      ...logged,
      { id: "queued-43", role: "user", parts: [{ type: "text", text: "and then?" }] },
      { id: "queued-44", role: "user", parts: [{ type: "text", text: "one more" }] },
    ]);
    expect(uiMessagesFromLog(agent.session, { queuedPrompts: [] })).toEqual(logged);
  });

  test("a malformed entry is invalid-options naming it; nothing else is read", async () => {
    const agent = createAgent({ provider: new ScriptedProvider([{ text: "hello" }]), model: "m" });
    await agent.send("hi");
    const refusal = (queuedPrompts: unknown): unknown => {
      try {
        uiMessagesFromLog(agent.session, { queuedPrompts } as never);
        return "accepted";
      } catch (error) {
        return error;
      }
    };
    for (const [value, says] of [
      ["43", "queuedPrompts must be an array"],
      [[null], "queuedPrompts[0] has no string id"],
      [
        [
          { id: "1", prompt: "ok" },
          { id: "2", prompt: 7 },
        ],
        "queuedPrompts[1].prompt is",
      ],
    ] as const) {
      const error = refusal(value);
      expect(error).toBeInstanceOf(ServeError);
      expect(error).toMatchObject({ code: "invalid-options" });
      expect((error as Error).message).toContain(says);
    }
  });
});
