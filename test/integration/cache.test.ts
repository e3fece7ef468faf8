// Keelson's layout against the emulator's cache models, through the real adapters and SDKs.
// Anthropic (explicit breakpoints): a frozen session prefix keeps everything before the newest
// tail cached; a prefix that drifts at a resume costs one re-write of what follows the system
// prompt; a system prompt that changes every step busts the cache every step; the 5-minute TTL
// runs on the emulator's clock. OpenAI (Chat Completions and Responses) / DeepSeek (automatic
// prefix caching): cached tokens in 128- / 64-token units, landing in Keelson's disjoint usage
// buckets; Responses' `prompt_cache_retention: 24h` keeps a prefix past the idle retention.
import { describe, expect, test } from "vitest";
import { type EmulatorServer, parseAnthropicRequest, type RecordedRequest } from "../../src/emulator/index.js";
import { OpenAIResponsesProvider } from "../../src/llm/index.js";
import { createAgent, resumeAgent } from "../../src/loop/index.js";
import type { Usage } from "../../src/messages/index.js";
import {
  agentOn,
  answered,
  catalog,
  emulator,
  expectHealthy,
  filler,
  optionsFor,
  prefixPlugin,
  readingModel,
  tempStore,
  totalInput,
  usages,
} from "./support.js";

const FIVE_MINUTES = 5 * 60_000;
/** A system prompt above the minimum cacheable length, so its own breakpoint writes an entry. */
const system = `You are a careful assistant. House rules:${filler(120, "rule")}`;

const cacheServer = (): Promise<EmulatorServer> => emulator({ model: readingModel(), minCacheableTokens: 64 });

type OpenAIWireUsage = {
  prompt_tokens: number;
  prompt_tokens_details: { cached_tokens: number };
  prompt_cache_hit_tokens?: number;
  prompt_cache_miss_tokens?: number;
};
const PROMPTS = ["read a.txt", "what is in it?", "read b.txt", "read c.txt", "thanks"];

/** cache_control markers anywhere in a recorded body. */
function breakpoints(record: RecordedRequest): number {
  let count = 0;
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (typeof value === "object" && value !== null) {
      for (const [key, v] of Object.entries(value)) {
        if (key === "cache_control") count++;
        else walk(v);
      }
    }
  };
  walk(record.body);
  return count;
}

/** Tokens of the tools and system blocks of a recorded request, as the cache model counts them. */
function toolsAndSystemTokens(record: RecordedRequest): number {
  const body = record.body as { tools?: unknown[]; system?: unknown[] };
  const units = (body.tools?.length ?? 0) + (body.system?.length ?? 0);
  return parseAnthropicRequest(record.body)
    .blocks.slice(0, units)
    .reduce((sum, b) => sum + b.tokens, 0);
}

/** Every request after the first reads at least everything the previous one sent. */
function expectEachReadsThePrevious(list: readonly Usage[]): void {
  for (let i = 1; i < list.length; i++) {
    expect(
      list[i]!.cacheReadTokens,
      `request ${i + 1} reads the previous request's ${totalInput(list[i - 1]!)} tokens`,
    ).toBeGreaterThanOrEqual(totalInput(list[i - 1]!));
    expect(list[i]!.cacheReadTokens).toBeLessThan(totalInput(list[i]!));
  }
}

describe("Anthropic prompt caching through the adapter", () => {
  test("a multi-turn session with a frozen prefix reads everything before the newest tail, with at most 4 breakpoints", async () => {
    const server = await cacheServer();
    const agent = agentOn("anthropic", server, { plugins: [prefixPlugin(catalog(400))] });
    for (const prompt of PROMPTS) expect((await agent.send(prompt)).reason).toEqual({ kind: "completed" });

    const list = usages(agent);
    expect(list).toHaveLength(8);
    expect(list).toEqual(answered(server).map((r) => r.usage));
    expect(list[0]).toMatchObject({ cacheReadTokens: 0, inputTokens: 0 });
    expect(list[0]!.cacheWriteTokens).toBe(totalInput(list[0]!));
    expectEachReadsThePrevious(list);
    for (const record of server.requests) expect(breakpoints(record)).toBeLessThanOrEqual(4);
    expect(breakpoints(server.requests.at(-1)!)).toBe(4); // system, prefix end, previous last block, new last block
    expectHealthy(agent, server, "anthropic");
  });

  test("a wide tool step (12 parallel calls, 24 new blocks) still reads everything before it despite the 20-block lookback", async () => {
    const server = await emulator({
      minCacheableTokens: 64,
      model: (request) =>
        request.messages.at(-1)?.role === "tool"
          ? { text: "Read them all." }
          : { toolCalls: Array.from({ length: 12 }, (_, i) => ({ name: "read", arguments: { path: `f${i}.txt` } })) },
    });
    const agent = agentOn("anthropic", server, { plugins: [prefixPlugin(catalog(400))] });
    await agent.send("read everything");
    await agent.send("read everything again");
    const list = usages(agent);
    expect(list).toHaveLength(4);
    expectEachReadsThePrevious(list);
    for (const record of server.requests) expect(breakpoints(record)).toBeLessThanOrEqual(4);
    expectHealthy(agent, server, "anthropic");
  });

  test("an unchanged prefix at a resume keeps the whole history cached (P25)", async () => {
    const server = await cacheServer();
    const store = await tempStore();
    const first = createAgent(optionsFor("anthropic", server, { store, plugins: [prefixPlugin(catalog(400))] }));
    await first.send("read a.txt");
    await first.dispose();
    server.clock.advance(60_000);
    const resumed = await resumeAgent(
      store,
      first.session.id,
      optionsFor("anthropic", server, { plugins: [prefixPlugin(catalog(400))] }),
    );
    await resumed.send("and now?");
    const list = usages(resumed);
    expectEachReadsThePrevious(list);
    await resumed.dispose();
    expectHealthy(resumed, server, "anthropic");
  });

  test("a prefix changed at a resume costs one write of everything after the system prompt; the next request reads all again", async () => {
    const server = await cacheServer();
    const store = await tempStore();
    const first = createAgent(
      optionsFor("anthropic", server, { store, system, plugins: [prefixPlugin(catalog(400, "v1"))] }),
    );
    await first.send("read a.txt");
    await first.send("what is in it?");
    await first.dispose();
    const before = server.requests.length;

    server.clock.advance(2 * 60_000); // well inside the TTL: only the drift can cause a miss
    const resumed = await resumeAgent(
      store,
      first.session.id,
      optionsFor("anthropic", server, { system, plugins: [prefixPlugin(catalog(400, "v2"))] }),
    );
    await resumed.send("read b.txt");
    await resumed.send("thanks");
    await resumed.dispose();

    const [drifted, next, last] = usages(resumed).slice(before);
    expect(usages(resumed)).toHaveLength(before + 3);
    const firstResumed = server.requests[before]!;
    expect(drifted!.cacheReadTokens).toBeGreaterThan(0);
    expect(drifted!.cacheReadTokens).toBe(toolsAndSystemTokens(firstResumed));
    expect(drifted!.cacheWriteTokens).toBe(totalInput(drifted!) - drifted!.cacheReadTokens);
    expect(next!.cacheReadTokens).toBeGreaterThanOrEqual(totalInput(drifted!));
    expect(last!.cacheReadTokens).toBeGreaterThanOrEqual(totalInput(next!));
    expectHealthy(resumed, server, "anthropic");
  });

  test("a system prompt that changes every step busts the cache every step", async () => {
    const server = await cacheServer();
    const agent = agentOn("anthropic", server, { system, plugins: [prefixPlugin(catalog(400))] });
    let step = 0;
    agent.hooks.on("system-prompt/assemble", async (_payload, next) => [
      ...(await next()),
      { name: "clock", order: 99, text: `Step counter: ${++step}.` },
    ]);
    await agent.send("read a.txt");
    await agent.send("read b.txt");

    const list = usages(agent);
    expect(list).toHaveLength(4);
    expect(list.map((u) => u.cacheReadTokens)).toEqual([0, 0, 0, 0]);
    for (const u of list) expect(u.cacheWriteTokens).toBe(totalInput(u));
    expectHealthy(agent, server, "anthropic");
  });

  test("entries live 5 minutes on the emulator's clock, refreshed by every read", async () => {
    const server = await cacheServer();
    const agent = agentOn("anthropic", server, { plugins: [prefixPlugin(catalog(400))] });
    await agent.send("one");
    server.clock.advance(FIVE_MINUTES - 1000);
    await agent.send("two");
    server.clock.advance(FIVE_MINUTES - 1000); // the read at "two" refreshed the entry
    await agent.send("three");
    server.clock.advance(FIVE_MINUTES + 1000);
    await agent.send("four");
    await agent.send("five");

    const [one, two, three, four, five] = usages(agent);
    expect(two!.cacheReadTokens).toBeGreaterThanOrEqual(totalInput(one!));
    expect(three!.cacheReadTokens).toBeGreaterThanOrEqual(totalInput(two!));
    expect(four).toMatchObject({ cacheReadTokens: 0, cacheWriteTokens: totalInput(four!) });
    expect(five!.cacheReadTokens).toBeGreaterThanOrEqual(totalInput(four!));
    expectHealthy(agent, server, "anthropic");
  });
});

describe("automatic prefix caching through the OpenAI-compatible adapter", () => {
  test("OpenAI: from the second request on, cached_tokens is the previous prompt rounded down to 128", async () => {
    const server = await emulator({ model: readingModel() });
    const agent = agentOn("openai", server, { plugins: [prefixPlugin(catalog(1200))] });
    for (const prompt of PROMPTS) expect((await agent.send(prompt)).reason).toEqual({ kind: "completed" });

    const wire = answered(server).map((r) => r.wireUsage as unknown as OpenAIWireUsage);
    const logged = usages(agent);
    expect(wire).toHaveLength(8);
    expect(wire[0]!.prompt_tokens).toBeGreaterThan(1024);
    expect(wire[0]!.prompt_tokens_details.cached_tokens).toBe(0);
    for (let i = 1; i < wire.length; i++) {
      const cached = wire[i]!.prompt_tokens_details.cached_tokens;
      expect(cached).toBeGreaterThan(0);
      expect(cached % 128).toBe(0);
      expect(cached).toBe(Math.floor(wire[i - 1]!.prompt_tokens / 128) * 128);
    }
    for (const [i, u] of logged.entries()) {
      expect(u.cacheReadTokens).toBe(wire[i]!.prompt_tokens_details.cached_tokens);
      expect(u.cacheWriteTokens).toBe(0);
      expect(totalInput(u)).toBe(wire[i]!.prompt_tokens);
    }
    expectHealthy(agent, server, "openai");
  });

  test("DeepSeek: hits come in 64-token units, hit + miss = prompt_tokens, mapped to cacheRead and uncached input", async () => {
    const server = await emulator({ style: "deepseek", model: readingModel() });
    const agent = agentOn("deepseek", server, { plugins: [prefixPlugin(catalog(300))] });
    for (const prompt of PROMPTS) expect((await agent.send(prompt)).reason).toEqual({ kind: "completed" });

    const wire = answered(server).map((r) => r.wireUsage as unknown as OpenAIWireUsage);
    const logged = usages(agent);
    expect(wire[0]!.prompt_cache_hit_tokens).toBe(0);
    for (let i = 1; i < wire.length; i++) {
      const hit = wire[i]!.prompt_cache_hit_tokens!;
      expect(hit % 64).toBe(0);
      expect(hit).toBeGreaterThanOrEqual(Math.floor(wire[i - 1]!.prompt_tokens / 64) * 64);
    }
    for (const [i, w] of wire.entries()) {
      expect(w.prompt_cache_hit_tokens! + w.prompt_cache_miss_tokens!).toBe(w.prompt_tokens);
      expect(logged[i]).toMatchObject({
        cacheReadTokens: w.prompt_cache_hit_tokens,
        inputTokens: w.prompt_cache_miss_tokens,
        cacheWriteTokens: 0,
      });
    }
    expectHealthy(agent, server, "openai");
  });
});

type ResponsesWireUsage = { input_tokens: number; input_tokens_details: { cached_tokens: number } };

describe("automatic prefix caching through the Responses adapter", () => {
  test("from the second request on, cached_tokens is the previous prompt rounded down to 128, normalized out of input", async () => {
    const server = await emulator({ model: readingModel() });
    const agent = agentOn("responses", server, { plugins: [prefixPlugin(catalog(1200))] });
    for (const prompt of PROMPTS) expect((await agent.send(prompt)).reason).toEqual({ kind: "completed" });

    const wire = answered(server).map((r) => r.wireUsage as unknown as ResponsesWireUsage);
    const logged = usages(agent);
    expect(wire).toHaveLength(8);
    expect(wire[0]!.input_tokens).toBeGreaterThan(1024);
    expect(wire[0]!.input_tokens_details.cached_tokens).toBe(0);
    for (let i = 1; i < wire.length; i++) {
      const cached = wire[i]!.input_tokens_details.cached_tokens;
      expect(cached % 128).toBe(0);
      expect(cached).toBe(Math.floor(wire[i - 1]!.input_tokens / 128) * 128);
    }
    for (const [i, u] of logged.entries()) {
      expect(u.cacheReadTokens).toBe(wire[i]!.input_tokens_details.cached_tokens);
      expect(u.cacheWriteTokens).toBe(0);
      expect(totalInput(u)).toBe(wire[i]!.input_tokens);
    }
    expectHealthy(agent, server, "responses");
  });

  test("a prompt under 1024 tokens is never cached", async () => {
    const server = await emulator({ model: readingModel() });
    const agent = agentOn("responses", server);
    await agent.send("one");
    await agent.send("two");
    expect(usages(agent).map((u) => u.cacheReadTokens)).toEqual([0, 0]);
    expectHealthy(agent, server, "responses");
  });

  test.each([
    ["without a retention option, a prefix idle for 30 minutes is gone", undefined, false],
    ["with prompt_cache_retention 24h, it is still read after 30 minutes", "24h", true],
  ] as const)("%s", async (_name, retention, kept) => {
    const server = await emulator({ model: readingModel() });
    const agent = createAgent({
      ...optionsFor("responses", server, { plugins: [prefixPlugin(catalog(1200))] }),
      provider: new OpenAIResponsesProvider({
        apiKey: "test-key",
        baseURL: server.openaiBaseURL,
        ...(retention === undefined ? {} : { promptCacheRetention: retention }),
      }),
    });
    await agent.send("one");
    server.clock.advance(30 * 60_000);
    await agent.send("two");
    const [first, second] = usages(agent);
    expect(bodyOfFirst(server)).toMatchObject(retention === undefined ? {} : { prompt_cache_retention: retention });
    if (kept) expect(second!.cacheReadTokens).toBe(Math.floor(totalInput(first!) / 128) * 128);
    else expect(second!.cacheReadTokens).toBe(0);
    expectHealthy(agent, server, "responses");
  });
});

const bodyOfFirst = (server: EmulatorServer): Record<string, unknown> =>
  server.requests[0]!.body as Record<string, unknown>;
