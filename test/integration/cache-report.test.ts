// cacheReport over logs produced against the emulator through the real Anthropic adapter: the
// structural view (what changed first) agrees with what happened on the wire, and a long
// frozen-prefix session is reported as mostly cache reads.
import { describe, expect, test } from "vitest";
import { cacheReport } from "../../src/audit/index.js";
import { countTokens } from "../../src/emulator/index.js";
import { canonicalJson, type JsonValue } from "../../src/json/index.js";
import { ModelRegistry } from "../../src/llm/index.js";
import { createAgent, resumeAgent } from "../../src/loop/index.js";
import { reconstructRequests } from "../../src/reconstruct/index.js";
import {
  answered,
  catalog,
  emulator,
  expectHealthy,
  optionsFor,
  prefixPlugin,
  readingModel,
  tempStore,
  usages,
} from "./support.js";

const cacheServer = () => emulator({ model: readingModel(), minCacheableTokens: 64 });

describe("cacheReport over emulator sessions", () => {
  test("within one instance no request changes a segment; reported usage is what the emulator billed", async () => {
    const server = await cacheServer();
    const agent = createAgent(optionsFor("anthropic", server, { plugins: [prefixPlugin(catalog(300))] }));
    for (const prompt of ["read a.txt", "what is in it?", "read b.txt"]) await agent.send(prompt);
    const report = cacheReport(agent.session.events, { countTokens, models: new ModelRegistry() });
    expect(report.requests.map((r) => r.firstChange)).toEqual([null, null, null, null, null]);
    expect(report.requests.map((r) => r.usage)).toEqual(answered(server).map((r) => r.usage));
    for (const [i, line] of report.requests.entries()) {
      if (i > 0) expect(line.cacheableTokens).toBe(report.requests[i - 1]!.promptTokens);
      expect(line.cost).toBeGreaterThan(0);
    }
    expectHealthy(agent, server, "anthropic");
  });

  test("a resume whose prefix drifted is reported as 'prefix' on its first request only, matching the cache miss on the wire", async () => {
    const server = await cacheServer();
    const store = await tempStore();
    const first = createAgent(optionsFor("anthropic", server, { store, plugins: [prefixPlugin(catalog(300, "v1"))] }));
    await first.send("read a.txt");
    await first.dispose();
    const resumed = await resumeAgent(
      store,
      first.session.id,
      optionsFor("anthropic", server, { plugins: [prefixPlugin(catalog(300, "v2"))] }),
    );
    await resumed.send("read b.txt");
    await resumed.dispose();

    const lines = cacheReport(resumed.session.events, { countTokens }).requests;
    expect(lines.map((r) => r.firstChange)).toEqual([null, null, "prefix", null]);
    const drift = lines[2]!;
    expect(drift.cacheableTokens).toBeLessThan(drift.promptTokens / 2);
    const wire = usages(resumed);
    expect(wire[2]!.cacheWriteTokens).toBeGreaterThan(wire[3]!.cacheWriteTokens);
    expectHealthy(resumed, server, "anthropic");
  });

  test("a system prompt change is reported as 'system' on the request that carried it", async () => {
    const server = await cacheServer();
    const agent = createAgent(optionsFor("anthropic", server, { plugins: [prefixPlugin(catalog(300))] }));
    await agent.send("read a.txt");
    agent.prompt.set({ name: "style", order: 50, text: "Prefer bullet points." });
    await agent.send("what is in it?");
    await agent.send("thanks");
    const lines = cacheReport(agent.session.events, { countTokens }).requests;
    expect(lines.map((r) => r.firstChange)).toEqual([null, null, "system", null]);
    // Only the tools, which come before the system prompt, are still shared.
    const tools = reconstructRequests(agent.session.events)[2]!.request.tools!;
    expect(lines[2]!.cacheableTokens).toBe(countTokens(canonicalJson(tools as unknown as JsonValue)));
    expect(usages(agent)[2]!.cacheReadTokens).toBe(0);
    expectHealthy(agent, server, "anthropic");
  });

  test("a long frozen-prefix session is reported with a cache hit share above 0.8", async () => {
    const server = await cacheServer();
    const agent = createAgent(optionsFor("anthropic", server, { plugins: [prefixPlugin(catalog(2000))] }));
    for (let i = 0; i < 10; i++) await agent.send(i % 3 === 0 ? `read file-${i}.txt` : `question ${i}`);
    const report = cacheReport(agent.session.events, { countTokens, models: new ModelRegistry() });
    expect(report.requests.every((r) => r.firstChange === null)).toBe(true);
    expect(report.totals.cacheHitShare).toBeGreaterThan(0.8);
    // The same session billed without any cache reads would cost more.
    const registry = new ModelRegistry();
    const pricing = registry.get("claude-sonnet-4-5").pricing;
    const uncached = report.requests.reduce(
      (sum, r) =>
        sum +
        ((r.usage!.inputTokens + r.usage!.cacheReadTokens + r.usage!.cacheWriteTokens) * pricing.input +
          r.usage!.outputTokens * pricing.output) /
          1e6,
      0,
    );
    expect(report.totals.cost).toBeLessThan(uncached);
    expectHealthy(agent, server, "anthropic");
  });
});
