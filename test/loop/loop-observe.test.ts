// Live observation for UIs and the CLI, through the hook bus: every appended session event in
// order, every streamed chunk, status transitions, and contained failures on agent/error.
import { describe, expect, test } from "vitest";
import type { StreamChunk } from "../../src/llm/index.js";
import { type AgentStatus, globalHooks } from "../../src/loop/index.js";
import type { SessionEvent } from "../../src/session/index.js";
import { callsTo, eventsOf, expectClosedLog, rig, settle, tool } from "./loop-support.js";

describe("session/event", () => {
  test("is emitted for every appended event, in order, with the logged (frozen) event itself", async () => {
    const r = rig({ tools: [tool("echo")], replies: [{ text: "calling", ...callsTo("echo") }, { text: "done" }] });
    const seen: SessionEvent[] = [];
    r.agent.hooks.on("session/event", ({ event }) => void seen.push(event));
    await r.agent.send("one");
    await r.agent.inject("note");
    await r.agent.whenIdle();
    await r.agent.send("two");
    expect(seen).toHaveLength(r.agent.session.length);
    for (const [i, event] of seen.entries()) expect(event).toBe(r.agent.session.events[i]);
  });

  test("a listener sees each event as it is committed (the log already ends with it)", async () => {
    const r = rig();
    const tails: boolean[] = [];
    r.agent.hooks.on("session/event", ({ agent, event }) => void tails.push(agent.session.events.at(-1) === event));
    await r.agent.send("one");
    expect(tails.length).toBeGreaterThan(0);
    expect(tails.every(Boolean)).toBe(true);
  });

  test("listeners on globalHooks hear every agent; an agent's own listeners hear only that agent", async () => {
    const a = rig();
    const b = rig();
    const global: string[] = [];
    const own: string[] = [];
    const off = globalHooks.on(
      "session/event",
      ({ agent, event }) => void global.push(`${agent === a.agent ? "a" : "b"}:${event.type}`),
    );
    try {
      a.agent.hooks.on("session/event", ({ agent }) => void own.push(agent === a.agent ? "a" : "b"));
      await a.agent.send("hi");
      await b.agent.send("hi");
    } finally {
      off();
    }
    expect(global.filter((e) => e.startsWith("a:"))).toHaveLength(a.agent.session.length);
    expect(global.filter((e) => e.startsWith("b:"))).toHaveLength(b.agent.session.length);
    expect(new Set(own)).toEqual(new Set(["a"]));
  });
});

describe("llm/chunk", () => {
  test("carries every streamed chunk; the text deltas add up to the logged assistant text", async () => {
    const r = rig({
      replies: [{ reasoning: "think", text: "Hello there", usage: { inputTokens: 3, outputTokens: 2 } }],
    });
    const chunks: StreamChunk[] = [];
    r.agent.hooks.on("llm/chunk", ({ chunk }) => void chunks.push(chunk));
    await r.agent.send("hi");
    const deltas = chunks.flatMap((c) => (c.type === "text-delta" ? [c.text] : []));
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join("")).toBe("Hello there");
    expect(chunks.flatMap((c) => (c.type === "reasoning-delta" ? [c.text] : [])).join("")).toBe("think");
    expect(chunks.at(-1)).toEqual({ type: "finish", reason: "stop" });
    const logged = eventsOf(r.agent, "assistant/message")[0]!.data;
    expect(logged.content).toEqual([
      { type: "reasoning", text: "think" },
      { type: "text", text: "Hello there" },
    ]);
    expect(logged.usage).toEqual({ inputTokens: 3, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 2 });
  });

  test("chunks are live only: none is persisted in the log", async () => {
    const r = rig({ replies: [{ text: "Hello" }] });
    await r.agent.send("hi");
    expect(r.agent.session.events.map((e) => e.type)).not.toContain("llm/chunk");
  });
});

describe("agent/status", () => {
  test("goes idle → running → idle around a turn, stays running across a queued turn, then disposed", async () => {
    const r = rig();
    const statuses: AgentStatus[] = [];
    r.agent.hooks.on("agent/status", ({ status }) => void statuses.push(status));
    expect(r.agent.status).toBe("idle");
    let queued: Promise<unknown> | undefined;
    const during: AgentStatus[] = [];
    r.agent.hooks.on("agent/pre-step", ({ agent }) => {
      during.push(agent.status);
      queued ??= agent.send("two"); // arrives while turn 1 runs: turn 2 follows without going idle
    });
    await r.agent.send("one");
    await queued;
    expect(eventsOf(r.agent, "turn/end")).toHaveLength(2);
    expect(during).toEqual(["running", "running"]);
    expect(r.agent.status).toBe("idle");
    await r.agent.send("three");
    await r.agent.dispose();
    expect(statuses).toEqual(["running", "idle", "running", "idle", "disposed"]);
    expect(r.agent.status).toBe("disposed");
  });

  test("whenIdle resolves once nothing runs and nothing is queued", async () => {
    const r = rig();
    await r.agent.whenIdle();
    void r.agent.send("one");
    void r.agent.send("two");
    await r.agent.whenIdle();
    expect(eventsOf(r.agent, "turn/end")).toHaveLength(1);
    expect(eventsOf(r.agent, "user/message")).toHaveLength(2);
    expect(r.agent.status).toBe("idle");
  });
});

describe("agent/error", () => {
  test("reports contained listener failures with where they happened, and the turn still completes", async () => {
    const r = rig({ tools: [tool("echo")], replies: [callsTo("echo")] });
    const reported: [string, string][] = [];
    r.agent.hooks.on("agent/error", ({ error, where }) => void reported.push([where, (error as Error).message]));
    r.agent.hooks.on("session/event", () => {
      throw new Error("ui crashed");
    });
    r.agent.hooks.on("llm/chunk", async () => {
      throw new Error("renderer rejected");
    });
    r.agent.hooks.on("tools/pre-execute", () => {
      throw new Error("policy crashed");
    });
    expect((await r.agent.send("go")).reason).toEqual({ kind: "completed" });
    await settle(); // async rejections are reported a tick later
    const where = new Set(reported.map(([w]) => w));
    expect(where).toEqual(new Set(["session/event", "llm/chunk", "tools/pre-execute"]));
    expect(eventsOf(r.agent, "tool/result")[0]!.data).toMatchObject({ isError: true, error: "threw" });
    expectClosedLog(r.agent);
  });

  test("reports a failed turn as 'turn <n>' with the error that ended it", async () => {
    const r = rig({ replies: [{ throws: new Error("network down") }] });
    const boom = new Error("pre-step bug");
    const reported: [unknown, string][] = [];
    r.agent.hooks.on("agent/error", ({ error, where }) => void reported.push([error, where]));
    const off = r.agent.hooks.on("agent/pre-step", () => {
      throw boom;
    });
    await r.agent.send("one");
    off();
    await r.agent.send("two");
    expect(reported[0]).toEqual([boom, "turn 1"]);
    expect(reported[1]![1]).toBe("turn 2");
    expect(reported).toHaveLength(2);
  });
});
