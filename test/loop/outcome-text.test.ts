// Issue #20 ("what a new user tripped on"): the result of `send()` had no text accessor — the
// answer had to be dug out of `agent.session.deriveMessages()`. `outcome.text` is the turn's
// final assistant text, read from what the turn logged.
import { describe, expect, test } from "vitest";
import { scriptedAgent } from "./support.js";

describe("TurnOutcome.text", () => {
  test("is the text of the turn's last assistant message, not a tool step's text", async () => {
    const { agent } = scriptedAgent({
      replies: [
        { text: "Reading a.txt.", toolCalls: [{ name: "read", arguments: { path: "a.txt" } }] },
        { text: "a.txt says hello.", reasoning: "think" },
      ],
    });
    const outcome = await agent.send("what is in a.txt?");
    expect(outcome.reason.kind).toBe("completed");
    expect(outcome.text).toBe("a.txt says hello.");
    const second = await agent.send("and then?");
    expect(second.text).toBe("done"); // each turn's own answer
  });

  test('is "" when the turn logged no assistant message (every prompt blocked)', async () => {
    const { agent } = scriptedAgent({ replies: [{ text: "never asked" }] });
    agent.hooks.on("agent/prompt-submit", () => ({ action: "block", reason: "no" }));
    const outcome = await agent.send("hello");
    expect(outcome.reason.kind).toBe("rejected");
    expect(outcome.text).toBe("");
  });

  test("is not enumerable: spreading or serializing an outcome gives the turn/end record", async () => {
    const { agent } = scriptedAgent({ replies: [{ text: "hi" }] });
    const outcome = await agent.send("hello");
    expect(outcome.text).toBe("hi");
    expect(Object.keys(outcome)).toEqual(["turn", "reason"]);
    expect(JSON.parse(JSON.stringify(outcome))).toEqual({ turn: 1, reason: { kind: "completed" } });
  });
});
