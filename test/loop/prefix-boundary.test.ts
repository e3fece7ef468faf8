// Where appends land relative to the step boundary, and the compaction gate's view of the
// prefix. Composition and pre-step run before the boundary, so what they append joins the
// current request; `agent/request` runs after `step/start`, so its appends first show in the
// following request (P11). The gate runs once per step before the boundary with the live prefix,
// and rewriting the surface cannot reach the prefix or the system prompt (P12).
import { describe, expect, test } from "vitest";
import type { Agent, CompactionGate } from "../../src/loop/index.js";
import type { Message } from "../../src/messages/index.js";
import { reconstructRequests } from "../../src/reconstruct/index.js";
import {
  eventsOf,
  expectLogMatchesRequests,
  headerSnapshots,
  prefixContributor,
  readCalls,
  scriptedAgent,
  user,
} from "./support.js";

const completed = { kind: "completed" };
const catalog = user("catalog");

/** The index of the first request whose messages include `message`, or -1. */
const firstRequestWith = (requests: readonly { messages: readonly Message[] }[], message: Message): number =>
  requests.findIndex((r) => r.messages.some((m) => JSON.stringify(m) === JSON.stringify(message)));

describe("P11 appends around the boundary", () => {
  const appendNow: [string, (agent: Agent, text: string) => void][] = [
    ["agent.inject()", (agent, text) => void agent.inject(text)],
    [
      "session.append(context/message)",
      (agent, text) =>
        void agent.session.append("context/message", { content: [{ type: "text", text }], source: "plugin" }),
    ],
  ];

  test.each(appendNow)(
    "an append made by a composing listener with %s joins the current request's derived history",
    async (_name, append) => {
      const { agent, provider } = scriptedAgent({ replies: [readCalls("a.txt"), { text: "ok" }] });
      agent.hooks.on("agent/session-prefix", async ({ agent: a }, next) => {
        append(a, "found 3 skills");
        return [catalog, ...(await next())];
      });
      expect(await agent.send("one")).toEqual({ turn: 1, reason: completed });
      expect(provider.requests[0]!.messages).toEqual([catalog, user("one"), user("found 3 skills")]);
      expect(reconstructRequests(agent.session.events)[0]!.history).toEqual([user("one"), user("found 3 skills")]);
      expect(headerSnapshots(agent)[0]!.header.messagePrefix).toEqual([catalog]);
      expectLogMatchesRequests(agent, provider);
      await agent.dispose();
    },
  );

  test.each(appendNow)(
    "an append made by a pre-step listener with %s joins that step's request, not an earlier one",
    async (_name, append) => {
      const { agent, provider } = scriptedAgent({
        replies: [readCalls("a.txt"), { text: "ok" }],
        plugins: [prefixContributor("catalog", [catalog]).plugin],
      });
      agent.hooks.on("agent/pre-step", ({ agent: a, turn, step }) => append(a, `before ${turn}.${step}`));
      await agent.send("one");
      expect(firstRequestWith(provider.requests, user("before 1.1"))).toBe(0);
      expect(firstRequestWith(provider.requests, user("before 1.2"))).toBe(1);
      expect(provider.requests[1]!.messages.at(-1)).toEqual(user("before 1.2"));
      expectLogMatchesRequests(agent, provider);
      await agent.dispose();
    },
  );

  test.each(appendNow)(
    "an append made after step/start (an agent/request listener) with %s first appears in the following step's request",
    async (_name, append) => {
      const { agent, provider } = scriptedAgent({
        replies: [readCalls("a.txt"), { text: "ok" }],
        plugins: [prefixContributor("catalog", [catalog]).plugin],
      });
      agent.hooks.on("agent/request", ({ agent: a }, next) => {
        if (a.session.openStep === 1) append(a, "late news");
        return next();
      });
      expect(await agent.send("one")).toEqual({ turn: 1, reason: completed });
      expect(firstRequestWith(provider.requests, user("late news"))).toBe(1);
      expect(provider.requests[1]!.messages.slice(0, 2)).toEqual([catalog, user("one")]);
      expectLogMatchesRequests(agent, provider);
      await agent.dispose();
    },
  );

  test("an inject from an agent/request listener in a turn's last step first appears in the next turn's first request", async () => {
    const { agent, provider } = scriptedAgent({ plugins: [prefixContributor("catalog", [catalog]).plugin] });
    let injected: Promise<void> | undefined;
    agent.hooks.on("agent/request", ({ agent: a }, next) => {
      if (a.session.lastTurn === 1) injected ??= a.inject("late news");
      return next();
    });
    expect(await agent.send("one")).toEqual({ turn: 1, reason: completed });
    await injected;
    // Logged inside turn 1, after its last step: never between the step's call and its result.
    const turn1 = agent.session.events.slice(0, eventsOf(agent, "turn/end")[0]!.seq);
    expect(turn1.at(-1)).toMatchObject({ type: "context/message", data: { source: "inject" } });
    expect(turn1.at(-2)!.type).toBe("step/end");
    await agent.send("two");
    expect(firstRequestWith(provider.requests, user("late news"))).toBe(1);
    expect(provider.requests[1]!.messages).toEqual([
      catalog,
      user("one"),
      { role: "assistant", content: [{ type: "text", text: "done" }] },
      user("late news"),
      user("two"),
    ]);
    expectLogMatchesRequests(agent, provider);
    await agent.dispose();
  });
});

describe("P12 the compaction gate", () => {
  interface GateCall {
    readonly agent: Agent;
    readonly turn: number;
    readonly stepsStarted: number;
    readonly system: string;
    readonly prefix: readonly Message[];
    readonly signal: AbortSignal;
  }
  function recordingGate(): { compaction: CompactionGate; calls: GateCall[] } {
    const calls: GateCall[] = [];
    const compaction: CompactionGate = {
      compactIfNeeded: async (agent, system, prefix, signal) => {
        calls.push({
          agent,
          turn: agent.session.openTurn!,
          stepsStarted: eventsOf(agent, "step/start").length,
          system,
          prefix,
          signal,
        });
      },
    };
    return { compaction, calls };
  }

  test("is called once per step, before the boundary, with the full system prompt, the live prefix and the turn's signal", async () => {
    const { compaction, calls } = recordingGate();
    const { agent, provider } = scriptedAgent({
      compaction,
      replies: [readCalls("a.txt"), { text: "ok" }],
      plugins: [prefixContributor("catalog", [catalog]).plugin],
    });
    await agent.send("one");
    await agent.send("two");

    expect(calls.map((c) => [c.turn, c.stepsStarted])).toEqual([
      [1, 0],
      [1, 1],
      [2, 2],
    ]);
    for (const [i, request] of provider.requests.entries()) {
      expect(calls[i]!.agent).toBe(agent);
      expect(calls[i]!.prefix).toEqual([catalog]);
      expect(request.messages.slice(0, 1)).toEqual(calls[i]!.prefix);
      expect(calls[i]!.system).toBe(request.system);
      expect(calls[i]!.signal).toBe(request.signal);
    }
    expect(new Set(calls.map((c) => c.prefix)).size).toBe(1);
    expectLogMatchesRequests(agent, provider);
    await agent.dispose();
  });

  /**
   * A toy pressure gate: estimates system + prefix + surface in characters and, over `limit`,
   * replaces every surface node before the newest prompt with one summary (compact/start …
   * compact/end). It folds only at a turn's first step, where no tool call is left unanswered.
   */
  function pressureGate(limit: number): {
    compaction: CompactionGate;
    estimates: { total: number; withoutPrefix: number }[];
  } {
    const estimates: { total: number; withoutPrefix: number }[] = [];
    const compaction: CompactionGate = {
      compactIfNeeded: async (agent, system, prefix) => {
        const history = agent.session.deriveMessages();
        const withoutPrefix = system.length + JSON.stringify(history).length;
        const estimate = withoutPrefix + JSON.stringify(prefix).length;
        estimates.push({ total: estimate, withoutPrefix });
        if (estimate <= limit || history.length < 2 || history.at(-1)!.role !== "user") return;
        const turn = agent.session.openTurn!;
        agent.session.append("compact/start", { turn, trigger: "pressure", estimatedTokens: estimate });
        agent.session.append(
          "user/message",
          { content: [{ type: "text", text: "Summary: earlier work." }], source: "compaction" },
          { op: "replace", start: 0, end: history.length - 2 },
        );
        agent.session.append("compact/end", { turn });
      },
    };
    return { compaction, estimates };
  }

  test.each([
    ["a small prefix", 0, [catalog]],
    ["a large prefix", 1, [user("x".repeat(2_000))]],
  ])("counts the prefix: a short history plus %s compacts %i time(s)", async (_name, compactions, prefix) => {
    const { compaction, estimates } = pressureGate(1_500);
    const { agent, provider } = scriptedAgent({
      compaction,
      replies: [readCalls("a.txt"), { text: "ok" }],
      plugins: [prefixContributor("catalog", prefix).plugin],
    });
    expect(await agent.send("one")).toEqual({ turn: 1, reason: completed });
    // Turn 2's first step is the first with history to fold (nothing precedes "one" in turn 1).
    expect(await agent.send("two")).toEqual({ turn: 2, reason: completed });
    expect(eventsOf(agent, "compact/end")).toHaveLength(compactions);
    for (const estimate of estimates) expect(estimate.withoutPrefix).toBeLessThan(1_500);
    expectLogMatchesRequests(agent, provider);
    await agent.dispose();
  });

  test("a compaction rewrites the surface only: the prefix and the system prompt of later requests are unchanged, and no header event is logged", async () => {
    const { compaction } = pressureGate(1_500);
    const big = user("y".repeat(2_000));
    const { agent, provider } = scriptedAgent({
      compaction,
      replies: [readCalls("a.txt"), { text: "ok" }],
      plugins: [prefixContributor("catalog", [big]).plugin],
    });
    expect(await agent.send("one")).toEqual({ turn: 1, reason: completed });
    const before = provider.requests.length;
    expect(await agent.send("two")).toEqual({ turn: 2, reason: completed });

    expect(eventsOf(agent, "compact/end")).toHaveLength(1);
    const after = provider.requests.slice(before);
    expect(after[0]!.messages).toEqual([big, user("Summary: earlier work."), user("two")]);
    for (const request of provider.requests) {
      expect(request.messages[0]).toEqual(big);
      expect(request.system).toBe(provider.requests[0]!.system);
    }
    expect(agent.session.deriveMessages()).not.toContainEqual(big);
    expect(headerSnapshots(agent)).toHaveLength(1);
    expect(eventsOf(agent, "request/header-delta")).toEqual([]);
    expectLogMatchesRequests(agent, provider);
    await agent.dispose();
  });
});
