// cacheReport: cacheable vs reported tokens per request, the first changed segment, cost.
import { describe, expect, test } from "vitest";
import { cacheReport } from "../../src/audit/index.js";
import { ModelRegistry, ScriptedProvider } from "../../src/llm/index.js";
import { createAgent } from "../../src/loop/index.js";

const prefixPlugin =
  (text: string) => (host: Parameters<NonNullable<Parameters<typeof createAgent>[0]["plugins"]>[number]>[0]) => {
    host.on("agent/session-prefix", async (_payload, next) => [
      { role: "user", content: [{ type: "text", text }] },
      ...(await next()),
    ]);
    return undefined;
  };

async function session(replies: number) {
  const provider = new ScriptedProvider([], {
    fallback: () => ({
      text: "answer",
      usage: { inputTokens: 10, cacheReadTokens: 90, cacheWriteTokens: 0, outputTokens: 5 },
    }),
  });
  const agent = createAgent({
    provider,
    model: "claude-sonnet-4-5",
    system: "Be brief.",
    plugins: [prefixPlugin("<system-reminder>catalog</system-reminder>")],
  });
  for (let i = 0; i < replies; i++) await agent.send(`question ${i}`);
  return agent;
}

describe("cacheReport", () => {
  test("within one instance every request after the first extends the previous one", async () => {
    const agent = await session(3);
    const report = cacheReport(agent.session.events);
    expect(report.requests.map((r) => r.firstChange)).toEqual([null, null, null]);
    expect(report.requests[0]!.cacheableTokens).toBe(0);
    for (let i = 1; i < 3; i++) {
      const r = report.requests[i]!;
      const prev = report.requests[i - 1]!;
      expect(r.cacheableTokens).toBe(prev.promptTokens);
      expect(r.promptTokens).toBeGreaterThan(r.cacheableTokens);
    }
  });

  test("a system prompt change is reported as the first changed segment; only tools stay cacheable", async () => {
    const agent = await session(1);
    agent.prompt.set({ name: "system", order: 0, text: "Be verbose." });
    await agent.send("again");
    const [first, second] = cacheReport(agent.session.events).requests;
    expect(second!.firstChange).toBe("system");
    expect(second!.cacheableTokens).toBe(0); // no tools in this session
    expect(first!.firstChange).toBeNull();
  });

  test("reported usage and cost come from the log and the model registry", async () => {
    const agent = await session(2);
    const report = cacheReport(agent.session.events, { models: new ModelRegistry() });
    expect(report.requests[0]!.usage).toEqual({
      inputTokens: 10,
      cacheReadTokens: 90,
      cacheWriteTokens: 0,
      outputTokens: 5,
    });
    // claude-sonnet-4-5: $3 input, $0.30 cache read, $15 output per million tokens
    expect(report.requests[0]!.cost).toBeCloseTo((10 * 3 + 90 * 0.3 + 5 * 15) / 1e6, 12);
    expect(report.totals.cacheHitShare).toBeCloseTo(0.9, 9);
    expect(report.totals.cost).toBeCloseTo(2 * ((10 * 3 + 90 * 0.3 + 5 * 15) / 1e6), 12);
  });

  test("without a registry, cost comes from the built-in price table (issue #20: it was 0)", async () => {
    const agent = await session(2);
    const report = cacheReport(agent.session.events);
    const perRequest = (10 * 3 + 90 * 0.3 + 5 * 15) / 1e6; // claude-sonnet-4-5 in DEFAULT_MODELS
    expect(report.requests[0]!.cost).toBeCloseTo(perRequest, 12);
    expect(report.totals.cost).toBeCloseTo(2 * perRequest, 12);
    expect(report.totals.cost).toBeCloseTo(
      cacheReport(agent.session.events, { models: new ModelRegistry() }).totals.cost,
      12,
    );
  });

  test("a custom token counter is used for the structural estimate", async () => {
    const agent = await session(1);
    const report = cacheReport(agent.session.events, { countTokens: () => 1 });
    // tools none, system 1, prefix 1 message, history 1 message
    expect(report.requests[0]!.promptTokens).toBe(3);
  });
});
