// Log integrity through the agent: tool results in model order with the loop's call ids and
// post-tool context after the last result (P21), non-lossless appends refused without a trace
// (P22), turn-end precedence (disposed > aborted > error > max-tokens > completed), max steps,
// and failures that end a turn but never the agent.
import { describe, expect, test } from "vitest";
import { LoopError } from "../../src/loop/index.js";
import { SessionError } from "../../src/session/index.js";
import {
  callsTo,
  caught,
  first,
  eventsOf,
  expectClosedLog,
  expectRequestsMatchLog,
  lastEnd,
  rig,
  textOf,
  tool,
  types,
} from "./loop-support.js";

describe("P21: tool results in model order with the loop's call ids", () => {
  test("calls get call_<turn>_<step>_<block index>, each tool/call is followed by its result, in model order", async () => {
    const r = rig({
      tools: [tool("a"), tool("b"), tool("c")],
      replies: [{ text: "three calls", ...callsTo("a", "b", "c") }, callsTo("b"), { text: "ok" }],
    });
    await r.agent.send("go");
    const blocks = eventsOf(r.agent, "assistant/message").flatMap((e) =>
      e.data.content.filter((b) => b.type === "tool-call").map((b) => `${b.name}:${b.callId}`),
    );
    expect(blocks).toEqual(["a:call_1_1_1", "b:call_1_1_2", "c:call_1_1_3", "b:call_1_2_0"]);
    const step1 = r.agent.session.events.filter((e) => e.type === "tool/call" || e.type === "tool/result").slice(0, 6);
    expect(step1.map((e) => `${e.type}:${(e.data as { callId: string }).callId}`)).toEqual([
      "tool/call:call_1_1_1",
      "tool/result:call_1_1_1",
      "tool/call:call_1_1_2",
      "tool/result:call_1_1_2",
      "tool/call:call_1_1_3",
      "tool/result:call_1_1_3",
    ]);
    expect(eventsOf(r.agent, "tool/result").map((e) => textOf({ role: "user", content: e.data.content }))).toEqual([
      "a: a#0",
      "b: b#1",
      "c: c#2",
      "b: b#0",
    ]);
    // The model sees the loop's ids, never the provider's.
    expect(JSON.stringify(r.provider.requests)).not.toContain("toolu_");
    expectClosedLog(r.agent);
  });

  test("each tool starts only after the previous call's result is logged", async () => {
    const seen: string[] = [];
    let r: ReturnType<typeof rig> | undefined;
    const spy = (name: string) =>
      tool(name, () => {
        seen.push(`${name} after ${r!.agent.session.events.at(-2)!.type},${r!.agent.session.events.at(-1)!.type}`);
        return name;
      });
    r = rig({ tools: [spy("a"), spy("b")], replies: [callsTo("a", "b")] });
    await r.agent.send("go");
    expect(seen).toEqual(["a after assistant/message,tool/call", "b after tool/result,tool/call"]);
  });

  test("post-execute additionalContext is logged as context/message after the step's last tool result, in call order", async () => {
    const r = rig({ tools: [tool("a"), tool("b"), tool("c")], replies: [callsTo("a", "b", "c")] });
    r.agent.hooks.on("tools/post-execute", async ({ call }, next) => {
      const decision = await next();
      if (call.name === "b")
        return { action: "block", feedback: "not allowed", additionalContext: [{ type: "text", text: "ctx b" }] };
      return call.name === "a" ? { ...decision, additionalContext: [{ type: "text", text: "ctx a" }] } : decision;
    });
    await r.agent.send("go");
    const t = types(r.agent);
    const step1End = t.indexOf("step/end");
    expect(t.slice(step1End - 3, step1End)).toEqual(["tool/result", "context/message", "context/message"]);
    expect(
      eventsOf(r.agent, "context/message").map((e) => [
        textOf({ role: "user", content: e.data.content }),
        e.data.source,
      ]),
    ).toEqual([
      ["ctx a", "tools/post-execute"],
      ["ctx b", "tools/post-execute"],
    ]);
    expect(eventsOf(r.agent, "tool/result")[1]!.data).toMatchObject({ isError: true, error: "blocked" });
    // The next request sees the results first, then the context.
    expect(r.provider.requests[1]!.messages.slice(-5).map((m) => m.role)).toEqual([
      "tool",
      "tool",
      "tool",
      "user",
      "user",
    ]);
    expectRequestsMatchLog(r);
  });

  test("an abort mid-batch (cancel inside tool 1) logs a synthetic aborted result for every undispatched call", async () => {
    let r: ReturnType<typeof rig> | undefined;
    const first = tool("first", () => {
      r!.agent.cancel("stop");
      return "first";
    });
    r = rig({ tools: [first, tool("second"), tool("third")], replies: [callsTo("first", "second", "third")] });
    expect((await r.agent.send("go")).reason).toEqual({ kind: "aborted", reason: "stop" });
    const results = eventsOf(r.agent, "tool/result").map((e) => e.data);
    expect(results.map((d) => d.callId)).toEqual(["call_1_1_0", "call_1_1_1", "call_1_1_2"]);
    for (const d of results.slice(1)) expect(d).toMatchObject({ isError: true, error: "aborted" });
    expect(eventsOf(r.agent, "tool/call").map((e) => e.data.name)).toEqual(["first", "second", "third"]);
    expectClosedLog(r.agent);
  });

  test("no tool call is left without a result: unknown tool, bad arguments, a throwing tool and a denied call", async () => {
    const r = rig({
      tools: [tool("boom", () => Promise.reject(new Error("kaput"))), tool("ok")],
      replies: [
        {
          toolCalls: [
            { name: "ghost" },
            { name: "ok", arguments: "{not json" },
            { name: "boom", arguments: { text: "x" } },
            { name: "ok", arguments: { text: "x" } },
          ],
        },
      ],
    });
    r.agent.hooks.on("tools/pre-execute", async ({ call }, next) =>
      call.callId === "call_1_1_3" ? { action: "deny", reason: "policy" } : next(),
    );
    await r.agent.send("go");
    expect(eventsOf(r.agent, "tool/result").map((e) => e.data.error)).toEqual([
      "unknown-tool",
      "invalid-arguments",
      "threw",
      "denied",
    ]);
    expect(lastEnd(r.agent)).toEqual({ kind: "completed" });
    expectClosedLog(r.agent);
  });
});

describe("P22: the agent's session refuses data that is not lossless JSON, without changing the log", () => {
  const sparse = [1];
  sparse[2] = 3;
  const cycle: Record<string, unknown> = { type: "text" };
  cycle.self = cycle;
  const bad: [string, unknown][] = [
    ["undefined", { content: [{ type: "text", text: "x" }], source: undefined }],
    ["-0", { content: [{ type: "text", text: "x" }], source: "user", n: -0 }],
    ["NaN", { content: [{ type: "text", text: "x" }], source: "user", n: Number.NaN }],
    ["a cycle", { content: [cycle], source: "user" }],
    ["a class instance", { content: [{ type: "text", text: "x" }], source: "user", at: new Date(0) }],
    ["a sparse array", { content: [{ type: "text", text: "x" }], source: "user", list: sparse }],
  ];

  test.each(bad)(
    "%s is rejected with invalid-data and the log, its observers and the agent are untouched",
    async (_what, data) => {
      const r = rig();
      await r.agent.send("one");
      const before = r.agent.session.events;
      const observed: string[] = [];
      r.agent.hooks.on("session/event", ({ event: e }) => void observed.push(e.type));
      const error = caught(() => r.agent.session.append("user/message", data as never));
      expect(error).toBeInstanceOf(SessionError);
      expect((error as SessionError).code).toBe("invalid-data");
      expect(r.agent.session.events).toEqual(before);
      expect(observed).toEqual([]);
      expect((await r.agent.send("two")).reason).toEqual({ kind: "completed" });
    },
  );

  test("every event the loop appends has seq equal to its index and is deep-frozen", async () => {
    const r = rig({ tools: [tool("a")], replies: [callsTo("a")] });
    await r.agent.send("go");
    r.agent.session.events.forEach((e, i) => {
      expect(e.seq).toBe(i);
      expect(Object.isFrozen(e) && Object.isFrozen(e.data)).toBe(true);
    });
  });
});

describe("turn-end precedence: disposed > aborted > error > max-tokens > completed", () => {
  test("finish 'max-tokens' ends the turn max-tokens", async () => {
    const r = rig({ replies: [{ text: "cut off", finish: "max-tokens" }] });
    expect((await r.agent.send("go")).reason).toEqual({ kind: "max-tokens" });
    expectClosedLog(r.agent);
  });

  test("a provider error ends the turn error with the provider's code; a thrown one with provider-failed", async () => {
    const r = rig({
      replies: [{ error: { message: "overloaded", code: "overloaded" } }, { throws: new Error("socket hang up") }],
    });
    expect((await r.agent.send("one")).reason).toEqual({
      kind: "error",
      step: 1,
      message: "overloaded",
      code: "overloaded",
    });
    expect((await r.agent.send("two")).reason).toEqual({
      kind: "error",
      step: 1,
      message: "socket hang up",
      code: "provider-failed",
    });
    expect(eventsOf(r.agent, "assistant/message")).toHaveLength(0);
    expect((await r.agent.send("three")).reason).toEqual({ kind: "completed" });
    expectClosedLog(r.agent);
    expectRequestsMatchLog(r);
  });

  test("a cancel during a failing step wins: aborted, not error", async () => {
    const r = rig();
    r.agent.hooks.on("llm/stream", () => {
      r.agent.cancel("esc");
      throw new Error("listener failed too");
    });
    expect((await r.agent.send("go")).reason).toEqual({ kind: "aborted", reason: "esc" });
    expectClosedLog(r.agent);
  });

  test("a cancel while the provider reports an error wins: aborted", async () => {
    let r: ReturnType<typeof rig> | undefined;
    r = rig({
      replies: [
        () =>
          first(
            () => r!.agent.cancel("esc"),
            () => ({ error: { message: "overloaded" } }),
          ),
      ],
    });
    expect((await r.agent.send("go")).reason).toEqual({ kind: "aborted", reason: "esc" });
  });

  test("dispose during a cancelled, failing step wins: disposed", async () => {
    const r = rig();
    r.agent.hooks.on("llm/stream", () => {
      r.agent.cancel("esc");
      void r.agent.dispose();
      throw new Error("listener failed too");
    });
    expect((await r.agent.send("go")).reason).toEqual({ kind: "disposed" });
    expectClosedLog(r.agent);
  });

  test("a throwing listener ends the turn error and is reported on agent/error, never ending the agent", async () => {
    const r = rig();
    const reported: string[] = [];
    r.agent.hooks.on("agent/error", ({ where }) => void reported.push(where));
    const off = r.agent.hooks.on("agent/prompt-submit", () => {
      throw new Error("hook bug");
    });
    expect((await r.agent.send("one")).reason).toEqual({
      kind: "error",
      step: 0,
      message: "hook bug",
      code: "exception",
    });
    expect(reported).toEqual(["turn 1"]);
    off();
    expect((await r.agent.send("two")).reason).toEqual({ kind: "completed" });
  });
});

describe("max steps", () => {
  test("a turn that keeps calling tools ends error with code max-steps after maxSteps closed steps", async () => {
    const r = rig({
      maxSteps: 3,
      tools: [tool("again")],
      replies: [callsTo("again"), callsTo("again"), callsTo("again"), callsTo("again")],
    });
    const outcome = await r.agent.send("loop");
    expect(outcome.reason).toMatchObject({ kind: "error", code: "max-steps" });
    expect(eventsOf(r.agent, "step/start")).toHaveLength(3);
    expect(r.provider.requests).toHaveLength(3);
    expectClosedLog(r.agent);
    expect((await r.agent.send("stop")).reason).toEqual({ kind: "completed" });
  });

  test("maxSteps must be a positive integer", () => {
    const error = caught(() => rig({ maxSteps: 0 }));
    expect(error).toBeInstanceOf(LoopError);
    expect((error as LoopError).code).toBe("invalid-options");
  });
});
