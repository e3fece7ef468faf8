// The inbox through the agent handle: prompts through `agent/prompt-submit` (block → logged and,
// for a fully blocked batch, a rejected turn with no model call; allow → possibly rewritten
// content plus additional context), `inject()` (idle: a one-shot turn; during a step: the next
// boundary, never between a tool call and its result) and `steer()` (forces another step,
// logged before that step's step/start).
import { describe, expect, test } from "vitest";
import {
  callsTo,
  eventsOf,
  expectClosedLog,
  expectRequestsMatchLog,
  type Rig,
  rig,
  textOf,
  tool,
  types,
} from "./loop-support.js";

const text = (t: string) => [{ type: "text" as const, text: t }];

/** Index of the `n`th (1-based) event of `type`. */
const nth = (r: Rig, type: string, n = 1): number =>
  types(r.agent).flatMap((t, i) => (t === type ? [i] : []))[n - 1] ?? -1;

describe("agent/prompt-submit", () => {
  test("block{reason}: prompt/blocked is logged, the turn ends rejected with zero model calls", async () => {
    const r = rig();
    r.agent.hooks.on("agent/prompt-submit", () => ({ action: "block", reason: "contains a secret" }));
    const outcome = await r.agent.send("my password is hunter2");
    expect(outcome.reason).toMatchObject({ kind: "rejected" });
    expect(types(r.agent)).toEqual(["turn/start", "prompt/blocked", "turn/end"]);
    expect(eventsOf(r.agent, "prompt/blocked")[0]!.data).toEqual({
      content: text("my password is hunter2"),
      source: "user",
      reason: "contains a secret",
    });
    expect(r.provider.requests).toHaveLength(0);
    expectClosedLog(r.agent);
  });

  test("a partly blocked batch logs the blocked prompt and runs the allowed one in the same turn", async () => {
    const r = rig();
    r.agent.hooks.on("agent/prompt-submit", async ({ prompt }, next) =>
      textOf({ role: "user", content: prompt.content }) === "bad" ? { action: "block", reason: "no" } : next(),
    );
    const [bad, good] = await Promise.all([r.agent.send("bad"), r.agent.send("good")]);
    expect(bad).toEqual(good);
    expect(good).toEqual({ turn: 1, reason: { kind: "completed" } });
    expect(types(r.agent).slice(0, 3)).toEqual(["turn/start", "prompt/blocked", "user/message"]);
    expect(r.provider.requests).toHaveLength(1);
    expect(r.provider.requests[0]!.messages.map((m) => textOf(m))).toEqual(["good"]);
  });

  test("allow with replaced content and additionalContext: user/message carries the new content, then context/message", async () => {
    const r = rig();
    r.agent.hooks.on("agent/prompt-submit", () => ({
      action: "allow",
      content: text("rewritten"),
      additionalContext: text("today is Monday"),
    }));
    await r.agent.send("original");
    expect(types(r.agent).slice(0, 4)).toEqual(["turn/start", "user/message", "context/message", "step/start"]);
    expect(eventsOf(r.agent, "user/message")[0]!.data).toEqual({ content: text("rewritten"), source: "user" });
    expect(eventsOf(r.agent, "context/message")[0]!.data).toEqual({
      content: text("today is Monday"),
      source: "prompt-submit",
    });
    expect(JSON.stringify(r.agent.session.events)).not.toContain("original");
    expect(r.provider.requests[0]!.messages.map((m) => [m.role, textOf(m)])).toEqual([
      ["user", "rewritten"],
      ["user", "today is Monday"],
    ]);
    expectRequestsMatchLog(r);
  });

  test("listeners see the prompt frozen, with its source", async () => {
    const r = rig();
    let frozen = false;
    r.agent.hooks.on("agent/prompt-submit", ({ prompt }, next) => {
      frozen = Object.isFrozen(prompt) && prompt.source === "user";
      return next();
    });
    await r.agent.send("hi");
    expect(frozen).toBe(true);
  });

  test("replacement content that is not valid user content ends the turn error without logging it", async () => {
    const r = rig();
    r.agent.hooks.on("agent/prompt-submit", () => ({ action: "allow", content: [{ type: "tool-call" } as never] }));
    expect((await r.agent.send("hi")).reason).toMatchObject({ kind: "error" });
    expect(eventsOf(r.agent, "user/message")).toHaveLength(0);
    expect(r.provider.requests).toHaveLength(0);
    expectClosedLog(r.agent);
  });
});

describe("inject()", () => {
  test("when idle: a one-shot turn (trigger inject) holding only the context/message, with no model call", async () => {
    const r = rig();
    await r.agent.inject("the build is green"); // resolves once the context is logged
    await r.agent.whenIdle(); // and its one-shot turn then ends
    expect(types(r.agent)).toEqual(["turn/start", "context/message", "turn/end"]);
    expect(r.agent.session.events[0]!.data).toEqual({ turn: 1, trigger: "inject" });
    expect(eventsOf(r.agent, "context/message")[0]!.data).toEqual({
      content: text("the build is green"),
      source: "inject",
    });
    expect(eventsOf(r.agent, "turn/end")[0]!.data.reason).toEqual({ kind: "completed" });
    expect(r.provider.requests).toHaveLength(0);
    await r.agent.send("next");
    expect(r.provider.requests[0]!.messages.map((m) => textOf(m))).toEqual(["the build is green", "next"]);
  });

  test("during an open step (from inside a tool): appended at the next step boundary, never between a call and its result", async () => {
    let r: Rig | undefined;
    let injected: Promise<void> | undefined;
    const noisy = tool("noisy", () => {
      injected = r!.agent.inject("file changed on disk");
      return "ran";
    });
    r = rig({ tools: [noisy, tool("quiet")], replies: [callsTo("noisy", "quiet"), { text: "ok" }] });
    await r.agent.send("go");
    await injected;
    const at = nth(r, "context/message");
    expect(at).toBeGreaterThan(nth(r, "step/end", 1));
    expect(at).toBeLessThan(nth(r, "step/start", 2));
    expect(at).toBeGreaterThan(nth(r, "tool/result", 2));
    expect(textOf(r.provider.requests[1]!.messages.at(-1))).toBe("file changed on disk");
    expect(r.provider.requests[0]!.messages.map((m) => textOf(m))).not.toContain("file changed on disk");
    expectClosedLog(r.agent);
    expectRequestsMatchLog(r);
  });

  test("during the last step: appended after its step/end and before turn/end, with no extra model call", async () => {
    const r = rig({ replies: [{ text: "final" }] });
    let injected: Promise<void> | undefined;
    r.agent.hooks.on("agent/request", (_payload, next) => {
      injected ??= r.agent.inject("late news");
      return next();
    });
    await r.agent.send("go");
    await injected;
    expect(types(r.agent).slice(-3)).toEqual(["step/end", "context/message", "turn/end"]);
    expect(r.provider.requests).toHaveLength(1);
  });

  test("before the boundary (from a pre-step listener): joins the current request", async () => {
    const r = rig();
    r.agent.hooks.on("agent/pre-step", () => void r.agent.inject("fresh context"));
    await r.agent.send("go");
    expect(types(r.agent).slice(0, 4)).toEqual(["turn/start", "user/message", "context/message", "step/start"]);
    expect(r.provider.requests[0]!.messages.map((m) => textOf(m))).toEqual(["go", "fresh context"]);
  });
});

describe("steer()", () => {
  test("during a running turn: forces another step and is logged as steering/message before that step's step/start", async () => {
    const r = rig({ replies: [{ text: "first answer" }, { text: "steered answer" }] });
    let steered: Promise<unknown> | undefined;
    r.agent.hooks.on("llm/stream", (_payload, next) => {
      steered ??= r.agent.steer("actually, use French");
      return next();
    });
    const outcome = await r.agent.send("hello");
    expect(await steered).toEqual(outcome);
    expect(outcome.reason).toEqual({ kind: "completed" });
    expect(r.provider.requests).toHaveLength(2);
    const at = nth(r, "steering/message");
    expect([at > nth(r, "step/end", 1), at === nth(r, "step/start", 2) - 1]).toEqual([true, true]);
    expect(eventsOf(r.agent, "steering/message")[0]!.data).toEqual({
      turn: 1,
      content: text("actually, use French"),
      source: "steer",
    });
    expect(textOf(r.provider.requests[1]!.messages.at(-1))).toBe("actually, use French");
    expectRequestsMatchLog(r);
  });

  test("during a tool step: joins the continuation step, without an extra step", async () => {
    let r: Rig | undefined;
    const t = tool("slow", () => {
      void r!.agent.steer("skip the rest");
      return "ran";
    });
    r = rig({ tools: [t], replies: [callsTo("slow"), { text: "ok" }] });
    await r.agent.send("go");
    expect(r.provider.requests).toHaveLength(2);
    expect(nth(r, "steering/message")).toBe(nth(r, "step/start", 2) - 1);
    expectClosedLog(r.agent);
  });

  test("when idle: starts a turn (trigger steer) that makes a model call", async () => {
    const r = rig();
    const outcome = await r.agent.steer("keep going");
    expect(outcome).toEqual({ turn: 1, reason: { kind: "completed" } });
    expect(r.agent.session.events[0]!.data).toEqual({ turn: 1, trigger: "steer" });
    expect(r.provider.requests[0]!.messages.map((m) => textOf(m))).toEqual(["keep going"]);
    expectClosedLog(r.agent);
  });
});
