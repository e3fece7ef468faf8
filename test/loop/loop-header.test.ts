// The header writer as the loop drives it (P15, P16), a persisted session resumed with unchanged
// options (P25), and the store wiring: a flush after every turn/end and the lock released on
// dispose. Stores live in a fresh temp dir per test.
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { foldRequestHeader } from "../../src/header/index.js";
import { canonicalJson, type JsonValue } from "../../src/json/index.js";
import type { ScriptedStep } from "../../src/llm/index.js";
import {
  type Agent,
  type AgentOptions,
  type AgentPlugin,
  createAgent,
  forkAgent,
  resumeAgent,
} from "../../src/loop/index.js";
import { composeRequest } from "../../src/reconstruct/index.js";
import { StoreError } from "../../src/store/index.js";
import { tempJsonlRoot, type TempJsonlRoot } from "../store/jsonl-harness.js";
import {
  callsTo,
  comparable,
  eventsOf,
  expectClosedLog,
  expectRequestsMatchLog,
  type Rig,
  rig,
  taggedProvider,
  tool,
  types,
} from "./loop-support.js";

/** The header events appended since `from` (a seq), as `type:reason|arms`. */
function headerEventsSince(agent: Agent, from = 0): string[] {
  return agent.session.events
    .filter((e) => e.seq >= from && (e.type === "request/header" || e.type === "request/header-delta"))
    .map((e) =>
      e.type === "request/header"
        ? `snapshot:${(e.data as { reason: string }).reason}`
        : `delta:${Object.keys(e.data).sort().join(",")}`,
    );
}

/** The header the log folds to equals the non-message part of `request`. */
function expectFoldEquals(agent: Agent, request: Rig["dispatches"][number]["request"]): void {
  const fold = foldRequestHeader(agent.session.events)!;
  expect(canonicalJson(composeRequest(fold, []) as unknown as JsonValue)).toBe(
    canonicalJson({ ...(comparable(request) as object), messages: [] }),
  );
}

describe("P15: each instance's first request appends exactly one full snapshot", () => {
  test("a new agent logs one request/header, reason initial, and nothing more over turns and tool round trips", async () => {
    const r = rig({
      system: "Be brief.",
      tools: [tool("echo")],
      replies: [callsTo("echo"), { text: "a" }, callsTo("echo", "echo"), { text: "b" }],
    });
    await r.agent.send("one");
    await r.agent.send("two");
    expect(r.provider.requests).toHaveLength(4);
    expect(headerEventsSince(r.agent)).toEqual(["snapshot:initial"]);
    // The snapshot sits between the first step's boundary and its model output.
    const t = types(r.agent);
    expect(t.indexOf("request/header")).toBe(t.indexOf("step/start") + 1);
  });

  test("an instance whose first turn failed before dispatch still logs initial on its first request", async () => {
    const r = rig({ system: "Be brief." });
    const off = r.agent.hooks.on("agent/pre-step", () => {
      throw new Error("not yet");
    });
    expect((await r.agent.send("one")).reason).toMatchObject({ kind: "error" });
    off();
    await r.agent.send("two");
    expect(headerEventsSince(r.agent)).toEqual(["snapshot:initial"]);
    expectRequestsMatchLog(r);
  });
});

describe("P16: within an instance, a changed header appends exactly one event", () => {
  test("a system prompt changed between turns (agent.prompt.set) appends one delta or fallback; the fold equals the header used", async () => {
    const r = rig({ system: "Line one.\nLine two.", replies: [{ text: "a" }, { text: "b" }, { text: "c" }] });
    await r.agent.send("one");
    const before = r.agent.session.length;
    r.agent.prompt.set({ name: "system", order: 0, text: "Line one.\nLine 2.\nLine three." });
    await r.agent.send("two");
    const added = headerEventsSince(r.agent, before);
    expect(added).toHaveLength(1);
    expect(added[0]).toMatch(/^(delta:system|snapshot:fallback)$/);
    expect(r.provider.requests[1]!.system).toBe("Line one.\nLine 2.\nLine three.");
    expectFoldEquals(r.agent, r.provider.requests[1]!);
    const unchanged = r.agent.session.length;
    await r.agent.send("three");
    expect(headerEventsSince(r.agent, unchanged)).toEqual([]);
    expectRequestsMatchLog(r);
  });

  test("a system-prompt/assemble listener changing the prompt every step appends one event per step", async () => {
    const r = rig({
      system: "Base.",
      tools: [tool("echo")],
      replies: [callsTo("echo"), callsTo("echo"), { text: "done" }],
    });
    let n = 0;
    r.agent.hooks.on("system-prompt/assemble", async (_payload, next) => [
      ...(await next()),
      { name: "clock", order: 9, text: `step ${++n}` },
    ]);
    await r.agent.send("go");
    expect(headerEventsSince(r.agent)).toEqual(["snapshot:initial", "delta:system", "delta:system"]);
    expect(r.provider.requests.map((q) => q.system)).toEqual(["Base.\n\nstep 1", "Base.\n\nstep 2", "Base.\n\nstep 3"]);
    // Each delta lies inside its step, before the step's model output.
    for (const delta of eventsOf(r.agent, "request/header-delta"))
      expect(r.agent.session.events[delta.seq - 1]!.type).toBe("step/start");
    expectFoldEquals(r.agent, r.provider.requests[2]!);
    expectRequestsMatchLog(r);
  });

  test("a config replaced by an agent/request listener appends a delta with only the config arm, and stays in force", async () => {
    const r = rig({ system: "Be brief.", replies: [{ text: "a" }, { text: "b" }, { text: "c" }] });
    await r.agent.send("one");
    const off = r.agent.hooks.on("agent/request", async (_payload, next) => ({
      ...(await next()),
      temperature: 0.5,
    }));
    await r.agent.send("two");
    off();
    await r.agent.send("three");
    expect(headerEventsSince(r.agent)).toEqual(["snapshot:initial", "delta:config"]);
    expect(eventsOf(r.agent, "request/header-delta")[0]!.data).toEqual({
      config: { model: "scripted:test", temperature: 0.5 },
    });
    // Later steps seed their config from the fold, so the replacement persists without new events.
    expect(r.provider.requests.map((q) => q.temperature ?? null)).toEqual([null, 0.5, 0.5]);
    expectFoldEquals(r.agent, r.provider.requests[2]!);
    expectRequestsMatchLog(r);
  });

  test("a tool registered between turns appends a delta with the tools arm", async () => {
    const r = rig({ tools: [tool("echo")] });
    await r.agent.send("one");
    r.agent.tools.register(tool("shout"));
    await r.agent.send("two");
    expect(headerEventsSince(r.agent)).toEqual(["snapshot:initial", "delta:tools"]);
    expectFoldEquals(r.agent, r.provider.requests[1]!);
  });
});

describe("with a JSONL store", () => {
  let dir: TempJsonlRoot;
  beforeEach(async () => {
    dir = await tempJsonlRoot();
  });
  afterEach(async () => {
    await dir.cleanup();
  });

  const prefix: AgentPlugin = (host) => {
    host.on("agent/session-prefix", async (_payload, next) => [
      { role: "user", content: [{ type: "text", text: "catalog v1" }] },
      ...(await next()),
    ]);
    return undefined;
  };
  const extra = (): Partial<AgentOptions> => ({
    system: "You are terse.",
    tools: [tool("echo")],
    plugins: [prefix],
    temperature: 0.5,
  });

  /** A first instance over a new stored session, run through `prompts`, then disposed. */
  async function firstInstance(replies: readonly ScriptedStep[], prompts: readonly string[]): Promise<Rig> {
    let agent: Agent | undefined;
    const tagged = taggedProvider(replies, () => agent);
    agent = createAgent({
      provider: tagged.provider,
      model: "scripted:test",
      store: dir.open(),
      sessionId: "s-loop",
      ...extra(),
    });
    for (const prompt of prompts) await agent.send(prompt);
    await agent.dispose();
    return { agent, ...tagged };
  }

  async function resumed(replies: readonly ScriptedStep[] = []): Promise<Rig> {
    let agent: Agent | undefined;
    const tagged = taggedProvider(replies, () => agent);
    agent = await resumeAgent(dir.open(), "s-loop", { provider: tagged.provider, model: "scripted:test", ...extra() });
    return { agent, ...tagged };
  }

  test("P15: a resumed instance logs a resume snapshot on its first request even when identical to the fold", async () => {
    const first = await firstInstance([callsTo("echo"), { text: "a" }], ["one"]);
    const second = await resumed();
    const before = second.agent.session.length;
    await second.agent.send("two");
    await second.agent.send("three");
    expect(headerEventsSince(second.agent, before)).toEqual(["snapshot:resume"]);
    const [a, b] = eventsOf(second.agent, "request/header").map((e) => canonicalJson(e.data.header));
    expect(b).toBe(a);
    expect(headerEventsSince(first.agent)).toEqual(["snapshot:initial"]);
    expectRequestsMatchLog(second);
    expectClosedLog(second.agent);
    await second.agent.dispose();
  });

  test("P15: a forked instance logs a resume snapshot on its first request", async () => {
    await firstInstance([{ text: "a" }], ["one"]);
    const tagged = taggedProvider([], () => undefined);
    const child = await forkAgent(dir.open(), "s-loop", {
      provider: tagged.provider,
      model: "scripted:test",
      sessionId: "s-child",
      ...extra(),
    });
    const before = child.session.length;
    await child.send("two");
    expect(headerEventsSince(child, before)).toEqual(["snapshot:resume"]);
    expectClosedLog(child);
    await child.dispose();
  });

  test("P25: the resumed instance's first request extends the last request before the restart", async () => {
    const first = await firstInstance(
      [callsTo("echo"), { text: "a" }, callsTo("echo", "echo"), { text: "b" }],
      ["one", "two"],
    );
    const second = await resumed();
    await second.agent.send("three");
    const last = first.provider.requests.at(-1)!;
    const next = second.provider.requests[0]!;
    expect(next.messages.slice(0, last.messages.length)).toEqual(last.messages);
    expect(next.messages.length).toBeGreaterThan(last.messages.length);
    expect(next.messages[0]).toEqual({ role: "user", content: [{ type: "text", text: "catalog v1" }] });
    expect([next.system, next.tools, next.model, next.temperature]).toEqual([
      last.system,
      last.tools,
      last.model,
      last.temperature,
    ]);
    await second.agent.dispose();
  });

  test("turn/end is followed by a flush: the file holds the turn/end when send resolves", async () => {
    const store = dir.open();
    const agent = createAgent({
      provider: taggedProvider([callsTo("echo")], () => undefined).provider,
      model: "scripted:test",
      store,
      sessionId: "s-flush",
      tools: [tool("echo")],
    });
    for (const prompt of ["one", "two"]) {
      const outcome = await agent.send(prompt);
      const lines = (await dir.bytesOf("s-flush")).toString("utf8").trim().split("\n");
      const tail = JSON.parse(lines.at(-1)!) as { type: string; data: { turn: number } };
      expect([tail.type, tail.data.turn]).toEqual(["turn/end", outcome.turn]);
      expect(lines.length - 1).toBe(agent.session.length);
    }
    await agent.dispose();
  });

  test("an aborted turn is flushed too", async () => {
    const agent = createAgent({
      provider: taggedProvider(["hang"], () => undefined).provider,
      model: "scripted:test",
      store: dir.open(),
      sessionId: "s-abort",
    });
    agent.hooks.on("llm/stream", (_payload, next) => {
      const result = next();
      agent.cancel("user");
      return result;
    });
    await agent.send("one");
    const lines = (await dir.bytesOf("s-abort")).toString("utf8").trim().split("\n");
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({
      type: "turn/end",
      data: { reason: { kind: "aborted", reason: "user" } },
    });
    await agent.dispose();
  });

  test("dispose releases the store's lock: another store instance can then load the session writable", async () => {
    const agent = createAgent({
      provider: taggedProvider([], () => undefined).provider,
      model: "scripted:test",
      store: dir.open(),
      sessionId: "s-lock",
    });
    await agent.send("one");
    const refused = await dir
      .open()
      .load("s-lock")
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(refused).toBeInstanceOf(StoreError);
    expect((refused as StoreError).code).toBe("locked");
    await agent.dispose();
    const { session } = await dir.open().load("s-lock");
    expect(session.events.map((e) => e.type)).toEqual(agent.session.events.map((e) => e.type));
  });
});
