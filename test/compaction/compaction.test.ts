// Compaction through a real agent: pressure counts the session prefix, pruning comes before
// summarizing, the summary lands as one replace with provenance inside compact/start…end, the
// floor fails loudly, failures leave the surface untouched, and a long session stays in its window.
import { z } from "zod";
import { describe, expect, test } from "vitest";
import { createCompaction } from "../../src/compaction/index.js";
import { EmulatorProvider, type EmulatorRequest, SimulatedClock } from "../../src/emulator/index.js";
import { type ProviderRequest, ScriptedProvider, type ScriptedReply } from "../../src/llm/index.js";
import type { Message } from "../../src/messages/index.js";
import { type AgentOptions, type AgentPlugin, createAgent } from "../../src/loop/index.js";
import { reconstructRequests, verifyLog } from "../../src/reconstruct/index.js";
import type { SessionEvent } from "../../src/session/index.js";
import { defineTool } from "../../src/tools/index.js";

const words = (n: number, seed = 0): string =>
  Array.from({ length: n }, (_, i) => `w${(seed * 31 + i * 7) % 97}`).join(" ");
const isSummaryCall = (messages: readonly Message[]): boolean => {
  const last = messages.at(-1);
  return (
    last?.role === "user" && last.content.some((b) => b.type === "text" && b.text.startsWith("Write a checkpoint"))
  );
};

/** Answers a summary call with a short checkpoint; otherwise calls `read` N times per turn, then answers. */
function workload(toolsPerTurn: number) {
  return (request: { messages: readonly Message[] }): ScriptedReply => {
    if (isSummaryCall(request.messages))
      return { text: "<checkpoint>\nIntent: keep working.\nCurrent state: fine.\n</checkpoint>" };
    let results = 0;
    for (let i = request.messages.length - 1; i >= 0 && request.messages[i]!.role !== "user"; i--)
      if (request.messages[i]!.role === "tool") results++;
    if (results < toolsPerTurn)
      return { text: "reading", toolCalls: [{ name: "read", arguments: { path: `f${results}` } }] };
    return { text: `done ${words(20)}` };
  };
}

const read = (bytes: number) =>
  defineTool({
    name: "read",
    description: "read a file",
    input: z.object({ path: z.string() }),
    execute: ({ path }) => `${path}: ${words(bytes / 4, path.length)}`,
  });
const prefixOf =
  (text: string): AgentPlugin =>
  (host) => {
    host.on("agent/session-prefix", async (_payload, next) => [
      { role: "user", content: [{ type: "text", text }] },
      ...(await next()),
    ]);
    return undefined;
  };
const ofType = <T extends SessionEvent["type"]>(events: readonly SessionEvent[], type: T) =>
  events.filter((e) => e.type === type) as SessionEvent<T>[];

function agentWith(options: Omit<AgentOptions, "model">) {
  return createAgent({ model: "emulator-anthropic", system: "You are terse.", ...options });
}

describe("compaction", () => {
  test("the gate counts the live session prefix: a history below the threshold crosses it once a large prefix is added", async () => {
    const run = async (prefix: string | undefined) => {
      const provider = new ScriptedProvider([], { fallback: workload(0) });
      const compaction = createCompaction({ contextWindow: 3_000, keepRecentTokens: 200, summaryMaxTokens: 100 });
      const agent = agentWith({
        provider,
        compaction,
        ...(prefix === undefined ? {} : { plugins: [prefixOf(prefix)] }),
      });
      for (let i = 0; i < 4; i++) await agent.send(`question ${i} ${words(120, i)}`);
      return agent;
    };
    const without = await run(undefined);
    expect(ofType(without.session.events, "compact/start")).toHaveLength(0);
    const withPrefix = await run(words(2_400));
    expect(ofType(withPrefix.session.events, "compact/start").length).toBeGreaterThan(0);
    expect(verifyLog(withPrefix.session.events).ok).toBe(true);
  });

  test("the summary lands as one replacement user/message listing every shadowed node, inside compact/start…compact/end", async () => {
    const provider = new ScriptedProvider([], { fallback: workload(1) });
    const agent = agentWith({
      provider,
      compaction: createCompaction({ contextWindow: 3_000, keepRecentTokens: 300, summaryMaxTokens: 100 }),
      tools: [read(2_000)],
    });
    for (let i = 0; i < 6; i++) expect((await agent.send(`task ${i}`)).reason).toEqual({ kind: "completed" });
    const events = agent.session.events;
    const replaces = events.filter((e) => e.type === "user/message" && e.surfaceOp !== "append");
    expect(replaces.length).toBeGreaterThan(0);
    for (const r of replaces) {
      const op = r.surfaceOp as { start: number; end: number };
      expect(r.sourceEventSeqs).toHaveLength(op.end - op.start + 1);
      const before = events[r.seq - 1]!;
      const after = events[r.seq + 1]!;
      expect(before.type).toBe("compact/summary");
      expect(after.type).toBe("compact/end");
      expect((after.data as { error?: string }).error).toBeUndefined();
    }
    expect(ofType(events, "compact/start")).toHaveLength(ofType(events, "compact/end").length);
    expect(verifyLog(events).ok).toBe(true);
    // the summary call itself is not a loop request: reconstruction lists exactly the loop's calls
    const loopCalls = provider.requests.filter((r) => !isSummaryCall(r.messages)).length;
    expect(reconstructRequests(events)).toHaveLength(loopCalls);
  });

  test("compaction never changes the system prompt or the session prefix", async () => {
    const provider = new ScriptedProvider([], { fallback: workload(1) });
    const agent = agentWith({
      provider,
      plugins: [prefixOf("<system-reminder>catalog</system-reminder>")],
      compaction: createCompaction({ contextWindow: 3_000, keepRecentTokens: 300, summaryMaxTokens: 100 }),
      tools: [read(2_000)],
    });
    for (let i = 0; i < 6; i++) await agent.send(`task ${i}`);
    const loop = provider.requests.filter((r) => !isSummaryCall(r.messages));
    expect(new Set(loop.map((r) => r.system)).size).toBe(1);
    expect(new Set(loop.map((r) => JSON.stringify(r.messages[0]))).size).toBe(1);
    expect(ofType(agent.session.events, "request/header-delta")).toHaveLength(0);
    expect(ofType(agent.session.events, "compact/start").length).toBeGreaterThan(0);
  });

  test("an oversized tool result is pruned first, and when that suffices no summary call is made", async () => {
    const provider = new ScriptedProvider([], { fallback: workload(1) });
    const agent = agentWith({
      provider,
      tools: [read(8_000)],
      compaction: createCompaction({
        contextWindow: 4_000,
        keepRecentTokens: 200,
        pruneAboveTokens: 500,
        pruneKeepTokens: 50,
        summaryMaxTokens: 100,
      }),
    });
    await agent.send("read the big file");
    await agent.send("and again");
    const events = agent.session.events;
    const pruned = events.filter((e) => e.type === "tool/result" && e.surfaceOp !== "append");
    expect(pruned.length).toBeGreaterThan(0);
    const text = (pruned[0]!.data as { content: { text: string }[] }).content[0]!.text;
    expect(text).toContain("pruned by compaction");
    expect((pruned[0]!.data as { meta?: { prunedFrom?: number } }).meta?.prunedFrom).toBeTypeOf("number");
    expect(provider.requests.some((r) => isSummaryCall(r.messages))).toBe(false);
    expect(verifyLog(events).ok).toBe(true);
  });

  test("a result in the kept tail too big for the window is pruned there (else every later turn overflows)", async () => {
    // Found from outside: a tool's 3 MB result, the last message, left no head region to summarize
    // (compact/end "no tool-pairing-balanced head region…"), and every later request overflowed.
    const provider = new ScriptedProvider([], { fallback: workload(1) });
    const agent = agentWith({
      provider,
      tools: [read(40_000)],
      maxToolResultChars: Number.POSITIVE_INFINITY,
      compaction: createCompaction({ contextWindow: 4_000, keepRecentTokens: 200, pruneKeepTokens: 50 }),
    });
    expect((await agent.send("read the huge file")).reason).toEqual({ kind: "completed" });
    expect((await agent.send("and now?")).reason).toEqual({ kind: "completed" });
    const events = agent.session.events;
    expect(ofType(events, "compact/end").map((e) => e.data.error)).not.toContain(
      "no tool-pairing-balanced head region leaves the recent tail intact",
    );
    const pruned = events.filter((e) => e.type === "tool/result" && e.surfaceOp !== "append");
    const results = events.filter((e) => e.type === "tool/result" && e.surfaceOp === "append");
    expect(results).toHaveLength(2); // one read a turn: each 10,000 tokens, over the whole window
    expect(pruned).toHaveLength(2);
    expect((pruned[0]!.data as { content: { text: string }[] }).content[0]!.text).toContain("pruned by compaction");
    // Every request after the result fits the window (≈ 4 bytes a token, as the gate counts).
    const after = provider.requests.slice(1).filter((r) => !isSummaryCall(r.messages));
    expect(after.length).toBeGreaterThan(1);
    for (const r of after) expect(JSON.stringify(r.messages).length / 4).toBeLessThan(4_000);
    expect(verifyLog(events).ok).toBe(true);
  });

  test("when system + tools + prefix + the minimum tail cannot fit, the turn fails naming the sizes (no loop)", async () => {
    const provider = new ScriptedProvider([], { fallback: workload(0) });
    const agent = agentWith({
      provider,
      system: words(4_000),
      compaction: createCompaction({ contextWindow: 1_000, keepRecentTokens: 100 }),
    });
    const outcome = await agent.send("hello");
    expect(outcome.reason).toMatchObject({ kind: "error", code: "floor" });
    expect((outcome.reason as { message: string }).message).toMatch(/system \d+ \+ tools \d+ \+ session prefix \d+/);
    expect(provider.requests).toHaveLength(0);
    expect(verifyLog(agent.session.events).ok).toBe(true);
  });

  test("a failed summary call closes compact/start with compact/end{error} and leaves the surface untouched", async () => {
    const provider = new ScriptedProvider([], {
      fallback: (r) =>
        isSummaryCall(r.messages) ? { error: { message: "summary model down", code: "server-error" } } : workload(0)(r),
    });
    const agent = agentWith({
      provider,
      compaction: createCompaction({ contextWindow: 2_000, keepRecentTokens: 100, summaryMaxTokens: 50 }),
    });
    for (let i = 0; i < 4; i++) expect((await agent.send(`q ${words(400, i)}`)).reason.kind).toBe("completed");
    const ends = ofType(agent.session.events, "compact/end");
    expect(ends.length).toBeGreaterThan(0);
    expect(ends.every((e) => e.data.error?.includes("summary model down"))).toBe(true);
    expect(agent.session.events.some((e) => e.type === "user/message" && e.surfaceOp !== "append")).toBe(false);
  });

  test("agent.compact() compacts on demand in a turn of its own", async () => {
    const provider = new ScriptedProvider([], { fallback: workload(0) });
    const agent = agentWith({
      provider,
      compaction: createCompaction({ contextWindow: 100_000, keepRecentTokens: 50, summaryMaxTokens: 50 }),
    });
    for (let i = 0; i < 3; i++) await agent.send(`q ${words(100, i)}`);
    const before = agent.session.deriveMessages().length;
    const outcome = await agent.compact();
    expect(outcome.reason).toEqual({ kind: "completed" });
    expect(ofType(agent.session.events, "compact/start").map((e) => e.data.trigger)).toEqual(["manual"]);
    expect(agent.session.deriveMessages().length).toBeLessThan(before);
    expect(agent.session.deriveMessages()[0]!.content[0]).toMatchObject({
      type: "text",
      text: expect.stringContaining("<checkpoint>"),
    });
  });

  test("the summary request reuses the cached prefix: on the emulator most of its input is a cache read", async () => {
    const clock = new SimulatedClock();
    const provider = new EmulatorProvider({
      model: (r: EmulatorRequest) => workload(1)(r),
      cacheStyle: "anthropic",
      clock,
      minCacheableTokens: 256,
    });
    const agent = agentWith({
      provider,
      tools: [read(4_000)],
      plugins: [prefixOf(words(600))],
      compaction: createCompaction({ contextWindow: 6_000, keepRecentTokens: 400, summaryMaxTokens: 100 }),
    });
    for (let i = 0; i < 8; i++) await agent.send(`task ${i}`);
    const summaries = ofType(agent.session.events, "compact/summary");
    expect(summaries.length).toBeGreaterThan(0);
    const usage = summaries[0]!.data.usage as {
      inputTokens: number;
      cacheReadTokens: number;
      cacheWriteTokens: number;
    };
    const total = usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
    expect(usage.cacheReadTokens / total).toBeGreaterThan(0.5);
  });

  test("a long scripted session (hundreds of steps) stays inside its window with every request reconstructable", async () => {
    const window = 6_000;
    const provider = new ScriptedProvider([], { fallback: workload(3) });
    const agent = agentWith({
      provider,
      tools: [read(400)],
      plugins: [prefixOf(words(300))],
      compaction: createCompaction({ contextWindow: window, keepRecentTokens: 800, summaryMaxTokens: 120 }),
    });
    for (let i = 0; i < 60; i++) expect((await agent.send(`task ${i}`)).reason).toEqual({ kind: "completed" });
    const loop: ProviderRequest[] = provider.requests.filter((r) => !isSummaryCall(r.messages));
    expect(loop.length).toBeGreaterThanOrEqual(240);
    const estimate = (r: ProviderRequest) =>
      Math.ceil(Buffer.byteLength(JSON.stringify({ s: r.system, t: r.tools, m: r.messages })) / 4);
    expect(Math.max(...loop.map(estimate))).toBeLessThan(window);
    expect(verifyLog(agent.session.events).ok).toBe(true);
    expect(reconstructRequests(agent.session.events)).toHaveLength(loop.length);
  });
});
