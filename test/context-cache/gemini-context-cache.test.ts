// Explicit Gemini context caching end to end (#24 §2): the geminiContextCache plugin over
// GeminiProvider (the official @google/genai SDK) against the emulator's cachedContents. The
// cache is created once for a long frozen prefix and named on every request; not created below
// the minimum; an expired cache fails the request (403), is recreated, logged and the turn still
// completes; a resumed agent reuses the logged name; every request the emulator received is
// rebuilt byte-for-byte from the log (cachedContent included).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import {
  type GeminiContextCacheEvent,
  type GeminiContextCacheOptions,
  geminiContextCache,
} from "../../src/context-cache/index.js";
import { type EmulatorServer, startEmulator } from "../../src/emulator/index.js";
import type { EmulatorRequest } from "../../src/emulator/types.js";
import { GeminiProvider, geminiRequestBody, type ProviderRequest } from "../../src/llm/index.js";
import { createAgent, resumeAgent } from "../../src/loop/index.js";
import { reconstructRequests, verifyLog } from "../../src/reconstruct/index.js";
import type { SessionEvent } from "../../src/session/index.js";
import { JsonlSessionStore } from "../../src/store/index.js";
import { defineTool } from "../../src/tools/index.js";

const MODEL = "gemini:gemini-2.5-flash";
let emulator: EmulatorServer;
let root: string;

/** Reads a file on a new prompt; answers once the result is in (two requests per turn). */
function model(request: EmulatorRequest) {
  if (request.messages.at(-1)?.role === "tool") return { text: `done after ${request.messages.length} messages` };
  return { toolCalls: [{ name: "read", arguments: { path: "a.txt" } }] };
}

const read = defineTool({
  name: "read",
  description: "Read a file",
  input: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  execute: () => "42 words",
});

/** ~6,000 tokens of varied text: over Gemini 2.5 Flash's 2,048 minimum by any count. */
const LONG_SYSTEM = Array.from(
  { length: 1500 },
  (_, i) => `Rule ${i}: keep file ${i % 97} tidy and name ${(i * 31) % 113} clearly.`,
).join("\n");

beforeAll(async () => {
  emulator = await startEmulator({ keepRawBodies: true, model });
  root = await mkdtemp(join(tmpdir(), "keelson-gemini-cache-"));
}, 60_000); // startEmulator loads the tokenizer: slow on a busy machine
afterAll(async () => {
  await emulator.close();
  await rm(root, { recursive: true, force: true });
});
let firstRequest = 0;
beforeEach(() => {
  firstRequest = emulator.requests.length;
});

const recorded = () => emulator.requests.slice(firstRequest);
const creates = () => recorded().filter((r) => r.method === "POST" && r.path === "/v1beta/cachedContents");
const generates = () => recorded().filter((r) => r.path.includes(":streamGenerateContent"));
const provider = () => new GeminiProvider({ apiKey: "k", baseURL: emulator.geminiBaseURL });

/** The raw body of every answered generate request equals the wire body of the request the log rebuilds for its step. */
function expectRebuiltBytes(events: readonly SessionEvent[], answered = generates().filter((r) => r.status === 200)) {
  const rebuilt = reconstructRequests(events).map((r) =>
    JSON.stringify(geminiRequestBody(r.request as unknown as ProviderRequest)),
  );
  expect(answered.map((r) => r.rawBody)).toEqual(rebuilt);
  expect(verifyLog(events).issues).toEqual([]);
}

/** An agent with the plugin (on the emulator's clock unless `now` says otherwise) and the plugin's events. */
function cachedAgent(options: Partial<GeminiContextCacheOptions> = {}, system = LONG_SYSTEM) {
  const events: GeminiContextCacheEvent[] = [];
  const cache = geminiContextCache({
    client: provider(),
    now: () => emulator.clock.now(),
    onEvent: (e) => events.push(e),
    ...options,
  });
  const agent = createAgent({ provider: provider(), model: MODEL, system, tools: [read], plugins: [cache] });
  return { agent, events };
}

describe("geminiContextCache", () => {
  it("creates one cache for a long frozen prefix and names it on every request of the session", async () => {
    const { agent, events } = cachedAgent();
    expect((await agent.send("read a.txt")).reason.kind).toBe("completed");
    expect((await agent.send("and again")).reason.kind).toBe("completed");
    const log = agent.session.events;
    await agent.dispose();

    expect(creates()).toHaveLength(1);
    const name = events.find((e) => e.kind === "created")!;
    expect(name).toMatchObject({ kind: "created", name: expect.stringMatching(/^cachedContents\//) });
    const tokens = (name as { tokens: number }).tokens;
    expect(tokens).toBeGreaterThan(2048);
    expect(generates()).toHaveLength(4);
    for (const r of generates()) {
      const body = r.body as Record<string, unknown>;
      expect(body.cachedContent).toBe((name as { name: string }).name);
      expect(body.systemInstruction).toBeUndefined(); // the API refuses them next to a cache
      expect(body.tools).toBeUndefined();
      expect(r.usage?.cacheReadTokens).toBe(tokens);
    }
    // The name is on the log (one header record for the session), before the first request.
    const headers = log.filter((e) => e.type === "request/header" || e.type === "request/header-delta");
    expect(headers).toHaveLength(1);
    expect(JSON.stringify(headers[0]!.data)).toContain((name as { name: string }).name);
    expectRebuiltBytes(log);
  }, 60_000);

  it("makes no cache below the minimum", async () => {
    const { agent, events } = cachedAgent({}, "Short.");
    expect((await agent.send("read a.txt")).reason.kind).toBe("completed");
    const log = agent.session.events;
    await agent.dispose();
    expect(creates()).toHaveLength(0);
    expect(generates().every((r) => (r.body as Record<string, unknown>).cachedContent === undefined)).toBe(true);
    expect(events[0]).toMatchObject({ kind: "skipped" });
    expectRebuiltBytes(log);
  }, 60_000);

  it("recreates an expired cache when the request fails, logs the new name and completes the turn", async () => {
    const frozen = emulator.clock.now(); // the plugin's clock does not see the cache expire
    const { agent, events } = cachedAgent({ now: () => frozen });
    expect((await agent.send("read a.txt")).reason.kind).toBe("completed");
    emulator.clock.advance(2 * 3600_000); // past the 1-hour TTL
    expect((await agent.send("and again")).reason.kind).toBe("completed");
    const log = agent.session.events;
    await agent.dispose();

    expect(creates()).toHaveLength(2);
    const [first, second] = events.filter((e) => e.kind === "created" || e.kind === "recreated") as {
      kind: string;
      name: string;
    }[];
    expect(second!.kind).toBe("recreated");
    expect(second!.name).not.toBe(first!.name);
    const refused = generates().filter((r) => r.status === 403);
    expect(refused).toHaveLength(1);
    expect((refused[0]!.body as Record<string, unknown>).cachedContent).toBe(first!.name);
    // Logged: the retry, then the new name, before the request that used it.
    const retry = log.findIndex((e) => e.type === "llm/retry");
    expect(log[retry]!.data).toMatchObject({ code: "cache-missing", delayMs: 0 });
    expect(log[retry + 1]!.type).toBe("request/header-delta");
    expect(JSON.stringify(log[retry + 1]!.data)).toContain(second!.name);
    const after = generates().slice(generates().indexOf(refused[0]!) + 1);
    expect(after.every((r) => (r.body as Record<string, unknown>).cachedContent === second!.name)).toBe(true);
    // Every answered request rebuilds byte-for-byte, and the refused one is the fold before the new name.
    expectRebuiltBytes(log);
    const before = reconstructRequests(log.slice(0, retry).concat()).at(-1)!;
    expect(refused[0]!.rawBody).toBe(JSON.stringify(geminiRequestBody(before.request as unknown as ProviderRequest)));
  }, 60_000);

  it("refreshes a cache near expiry and replaces one it knows expired, before the request", async () => {
    const { agent, events } = cachedAgent();
    await agent.send("one");
    emulator.clock.advance(58 * 60_000); // within refreshBeforeSeconds (300) of the 1-hour TTL
    await agent.send("two");
    emulator.clock.advance(2 * 3600_000);
    expect((await agent.send("three")).reason.kind).toBe("completed");
    await agent.dispose();
    expect(events.map((e) => e.kind).filter((k) => k !== "reused")).toEqual(["created", "refreshed", "recreated"]);
    expect(recorded().filter((r) => r.method === "PATCH")).toHaveLength(1);
    expect(generates().every((r) => r.status === 200)).toBe(true); // no request failed
  }, 60_000);

  it("a resumed session in a new agent reuses the logged cache (no second create) until it fails", async () => {
    const store = new JsonlSessionStore({ root });
    const frozen = emulator.clock.now();
    const plugin = () => geminiContextCache({ client: provider(), now: () => frozen, deleteOnDispose: false });
    const options = { provider: provider(), model: MODEL, system: LONG_SYSTEM, tools: [read] };
    const first = createAgent({ ...options, store, plugins: [plugin()] });
    expect((await first.send("read a.txt")).reason.kind).toBe("completed");
    const id = first.session.id;
    await first.dispose();
    const name = (generates()[0]!.body as Record<string, unknown>).cachedContent;

    const resumed = await resumeAgent(store, id, { ...options, plugins: [plugin()] });
    expect((await resumed.send("and again")).reason.kind).toBe("completed");
    expect(creates()).toHaveLength(1);
    expect(generates().every((r) => (r.body as Record<string, unknown>).cachedContent === name)).toBe(true);

    emulator.clock.advance(2 * 3600_000);
    expect((await resumed.send("once more")).reason.kind).toBe("completed");
    const log = resumed.session.events;
    await resumed.dispose();
    expect(creates()).toHaveLength(2);
    expectRebuiltBytes(log);
  }, 60_000);

  it("a resumed agent whose frozen prefix changed makes a new cache instead of naming the logged one", async () => {
    const store = new JsonlSessionStore({ root });
    const plugin = () => geminiContextCache({ client: provider(), now: () => emulator.clock.now() });
    const options = { provider: provider(), model: MODEL, tools: [read] };
    const first = createAgent({ ...options, system: LONG_SYSTEM, store, plugins: [plugin()] });
    await first.send("read a.txt");
    await first.dispose();
    const resumed = await resumeAgent(store, first.session.id, {
      ...options,
      system: `${LONG_SYSTEM}\nOne more rule.`,
      plugins: [plugin()],
    });
    expect((await resumed.send("and again")).reason.kind).toBe("completed");
    const log = resumed.session.events;
    await resumed.dispose();
    expect(creates()).toHaveLength(2);
    const names = generates().map((r) => (r.body as Record<string, unknown>).cachedContent);
    expect(new Set(names).size).toBe(2);
    expectRebuiltBytes(log);
  }, 60_000);

  it("deletes the caches it made when the agent is disposed, with deleteOnDispose", async () => {
    const { agent, events } = cachedAgent({ deleteOnDispose: true });
    const deleted = () => events.filter((e) => e.kind === "deleted");
    await agent.send("one");
    const live = emulator.caches.geminiExplicit.size;
    await agent.dispose();
    await vi.waitFor(() => expect(deleted()).toHaveLength(1));
    expect(emulator.caches.geminiExplicit.size).toBe(live - 1);
    expect(recorded().filter((r) => r.method === "DELETE")).toHaveLength(1);
  }, 60_000);
});
