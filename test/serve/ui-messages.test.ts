// uiMessagesFromLog (issue #22 §2): a stored session's history as the AI SDK's UIMessages — what
// a reloaded page shows. Prompts are user messages, each turn's steps one assistant message
// named as the live stream names it; steering splits a turn; a blocked prompt is marked.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { ScriptedProvider } from "../../src/llm/core.js";
import { createAgent, resumeAgent } from "../../src/loop/index.js";
import { uiMessagesFromLog } from "../../src/serve/index.js";
import { JsonlSessionStore } from "../../src/store/index.js";
import { echo, waitingTool } from "./support.js";

describe("uiMessagesFromLog", () => {
  test("turns in order: each prompt a user message, each turn one assistant message with a step-start per step", async () => {
    const provider = new ScriptedProvider([
      { toolCalls: [{ name: "echo", arguments: { text: "a" } }] },
      { text: "first answer" },
      { text: "second answer" },
    ]);
    const agent = createAgent({ provider, model: "m", tools: [echo] });
    await agent.send("one");
    await agent.send([
      { type: "text", text: "two" },
      { type: "image", mediaType: "image/png", data: "iVBORw0KGgo=" },
    ]);
    const messages = uiMessagesFromLog(agent.session.events);
    expect(messages.map((m) => [m.id, m.role])).toEqual([
      ["user-1", "user"],
      ["turn-1", "assistant"],
      [expect.stringMatching(/^user-\d+$/), "user"],
      ["turn-2", "assistant"],
    ]);
    expect(messages[1]?.parts.map((p) => p.type)).toEqual(["step-start", "tool-echo", "step-start", "text"]);
    expect(messages[2]?.parts).toEqual([
      { type: "text", text: "two" },
      { type: "file", mediaType: "image/png", url: "data:image/png;base64,iVBORw0KGgo=" },
    ]);
    expect(messages[3]?.parts).toEqual([
      { type: "step-start" },
      { type: "text", text: "second answer", state: "done" },
    ]);
    await agent.dispose();
  });

  test("a steering message splits its turn: the steps after it are a second assistant message", async () => {
    const { tool: wait, gate, running } = waitingTool();
    const provider = new ScriptedProvider([{ toolCalls: [{ name: "wait" }] }, { text: "after steering" }]);
    const agent = createAgent({ provider, model: "m", tools: [wait] });
    const outcome = agent.send("start");
    await running.promise;
    const steered = agent.steer("also this");
    gate.resolve();
    await Promise.all([outcome, steered]);
    const messages = uiMessagesFromLog(agent.session);
    const steerSeq = agent.session.events.find((e) => e.type === "steering/message")!.seq;
    const nextStep = agent.session.events.find((e) => e.type === "step/start" && e.seq > steerSeq)!.seq;
    expect(messages.map((m) => m.id)).toEqual(["user-1", "turn-1", `user-${steerSeq}`, `turn-1-${nextStep}`]);
    expect(messages[2]?.parts).toEqual([{ type: "text", text: "also this" }]);
    await agent.dispose();
  });

  test("a blocked prompt is a user message with metadata.blocked, and no assistant message", async () => {
    const agent = createAgent({ provider: new ScriptedProvider([]), model: "m" });
    agent.hooks.on("agent/prompt-submit", () => ({ action: "block", reason: "not today" }));
    const outcome = await agent.send("forbidden");
    expect(outcome.reason.kind).toBe("rejected");
    expect(uiMessagesFromLog(agent.session)).toEqual([
      { id: "user-1", role: "user", metadata: { blocked: "not today" }, parts: [{ type: "text", text: "forbidden" }] },
    ]);
    await agent.dispose();
  });

  test("an open turn: the steps committed so far, its tool call still waiting for its result", async () => {
    const { tool: wait, gate, running } = waitingTool();
    const agent = createAgent({
      provider: new ScriptedProvider([{ text: "working", toolCalls: [{ name: "wait" }] }, { text: "done" }]),
      model: "m",
      tools: [wait],
    });
    const outcome = agent.send("go");
    await running.promise;
    expect(uiMessagesFromLog(agent.session).at(-1)).toEqual({
      id: "turn-1",
      role: "assistant",
      parts: [
        { type: "step-start" },
        { type: "text", text: "working", state: "done" },
        { type: "tool-wait", toolCallId: "call_1_1_1", state: "input-available", input: {} },
      ],
    });
    gate.resolve();
    await outcome;
    await agent.dispose();
  });

  test("a session read back from its store gives the same messages", async () => {
    const root = await mkdtemp(join(tmpdir(), "keelson-serve-"));
    try {
      const store = new JsonlSessionStore({ root });
      const provider = new ScriptedProvider([
        { toolCalls: [{ name: "echo", arguments: { text: "x" } }] },
        { text: "y" },
      ]);
      const agent = createAgent({ provider, model: "m", tools: [echo], store });
      await agent.send("hello");
      const live = uiMessagesFromLog(agent.session);
      await agent.dispose();
      const again = await resumeAgent(store, agent.session.id, { provider: new ScriptedProvider([]), model: "m" });
      expect(uiMessagesFromLog(again.session)).toEqual(live);
      await again.dispose();
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
