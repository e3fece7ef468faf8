// Requests are pure functions of the log (P13, P14, P17, P18) and are deep-frozen, loop-built
// values whose abort signal stays live (P19). Every request the scripted provider received is
// compared against `reconstructRequests` over the agent's log, never against the loop's caches.
import { describe, expect, test } from "vitest";
import type { EpochHeader } from "../../src/header/index.js";
import type { ProviderRequest } from "../../src/llm/index.js";
import { type AgentPlugin, isLoopBuilt } from "../../src/loop/index.js";
import type { Message } from "../../src/messages/index.js";
import { deriveEventMessage } from "../../src/session/index.js";
import {
  callsTo,
  deferred,
  eventsOf,
  expectClosedLog,
  expectRequestsMatchLog,
  rig,
  tool,
  undefinedPaths,
  unfrozenPaths,
} from "./loop-support.js";

const opener: Message = {
  role: "user",
  content: [{ type: "text", text: "<system-reminder>catalog</system-reminder>" }],
};

/** Contributes `opener` to the session prefix with the canonical prepend. */
const prefixPlugin: AgentPlugin = (host) => {
  host.on("agent/session-prefix", async (_payload, next) => [opener, ...(await next())]);
  return undefined;
};

/** Three turns with tool round trips, a prefix, a system prompt, tools and sampling options. */
async function threeTurns() {
  const r = rig({
    system: "You are terse.",
    tools: [tool("echo"), tool("shout")],
    temperature: 0.25,
    maxTokens: 512,
    stop: ["END"],
    plugins: [prefixPlugin],
    replies: [callsTo("echo", "shout"), { text: "both ran" }, callsTo("echo"), { text: "again" }, { text: "plain" }],
  });
  for (const prompt of ["one", "two", "three"])
    expect((await r.agent.send(prompt)).reason).toEqual({ kind: "completed" });
  return r;
}

/** The request's own fields except the live signal, each checked for frozenness. */
function unfrozenInRequest(request: ProviderRequest): string[] {
  const shell = Object.isFrozen(request) ? [] : ["$"];
  return [
    ...shell,
    ...Object.entries(request).flatMap(([key, v]) => (key === "signal" ? [] : unfrozenPaths(v, `$.${key}`))),
  ];
}

describe("P13/P14: every request equals its reconstruction from the log", () => {
  test("messages, model, system, tools and sampling of every request equal reconstructRequests for its step", async () => {
    const r = await threeTurns();
    expect(r.provider.requests).toHaveLength(5);
    expect(r.dispatches.map((d) => d.request)).toEqual(r.provider.requests);
    expectRequestsMatchLog(r);
    expectClosedLog(r.agent);
  });

  test("P13: messages are the logged prefix followed by the history derived from the events before step/start", async () => {
    const r = await threeTurns();
    const prefix = eventsOf(r.agent, "request/header")[0]!.data.header.messagePrefix;
    expect(prefix).toEqual([opener]);
    for (const { request, stepStartSeq } of r.dispatches) {
      // An independent fold: every surface event before the boundary, through the public projection.
      const history = r.agent.session.events
        .filter((e) => e.seq < stepStartSeq && e.surfaceOp !== undefined)
        .map((e) => deriveEventMessage(e));
      expect(request.messages).toEqual([opener, ...history]);
    }
  });

  test("P14: model and sampling come from the options, system and tools from the assembled header", async () => {
    const r = await threeTurns();
    for (const { request } of r.dispatches) {
      expect(request).toMatchObject({
        model: "scripted:test",
        temperature: 0.25,
        maxTokens: 512,
        stop: ["END"],
        system: "You are terse.",
      });
      expect(request.tools!.map((t) => t.name)).toEqual(["echo", "shout"]);
    }
  });

  test("P14: absent values are omitted keys, never undefined", async () => {
    const r = rig({ replies: [callsTo("nothing")] });
    await r.agent.send("hi");
    for (const { request } of r.dispatches) {
      expect(Object.keys(request).sort()).toEqual(["messages", "model", "sessionId", "signal"]);
      expect(undefinedPaths({ ...request, signal: null })).toEqual([]);
    }
    expectRequestsMatchLog(r);
  });

  test("P14: a config replaced by an agent/request listener is what the request carries and what the log folds to", async () => {
    const r = rig({ replies: [callsTo("echo")], tools: [tool("echo")] });
    r.agent.hooks.on("agent/request", async (_payload, next) => ({
      ...(await next()),
      model: "scripted:other",
      temperature: 0,
    }));
    await r.agent.send("hi");
    expect(r.dispatches.map((d) => [d.request.model, d.request.temperature])).toEqual([
      ["scripted:other", 0],
      ["scripted:other", 0],
    ]);
    expectRequestsMatchLog(r);
  });

  test("P14: every request is reconstructed also after provider errors and a turn ended by a throwing listener", async () => {
    const r = rig({
      replies: [
        { error: { message: "overloaded", code: "overloaded" } },
        { throws: new Error("socket hang up") },
        callsTo("echo"),
      ],
      tools: [tool("echo")],
    });
    let calls = 0;
    r.agent.hooks.on("llm/stream", (_payload, next) => {
      if (++calls === 5) throw new Error("listener failed after dispatching nothing");
      return next();
    });
    for (const prompt of ["a", "b", "c", "d"]) await r.agent.send(prompt);
    expect(r.provider.requests).toHaveLength(4);
    expectRequestsMatchLog(r);
    expectClosedLog(r.agent);
  });
});

describe("P17: canonical absence", () => {
  const snapshot = (r: ReturnType<typeof rig>): EpochHeader =>
    eventsOf(r.agent, "request/header")[0]!.data.header as unknown as EpochHeader;

  test("no system prompt, no tools and no prefix contributor: the header snapshot holds only config", async () => {
    const r = rig();
    await r.agent.send("hi");
    expect(Object.keys(snapshot(r))).toEqual(["config"]);
    expect(snapshot(r).config).toEqual({ model: "scripted:test" });
  });

  test("an empty system string, an empty tool list, a blank section and an empty prefix are stored as absent", async () => {
    const empty: AgentPlugin = (host) => {
      host.on("agent/session-prefix", async (_payload, next) => [...(await next())]);
      return undefined;
    };
    const r = rig({ system: [{ name: "blank", order: 0, text: "   \n  " }], tools: [], plugins: [empty] });
    await r.agent.send("hi");
    expect(Object.keys(snapshot(r))).toEqual(["config"]);
    expect("system" in r.provider.requests[0]! || "tools" in r.provider.requests[0]!).toBe(false);
  });

  test("a system prompt that becomes empty between turns is a change to absence, not to an empty string", async () => {
    const r = rig({ system: "Be brief." });
    await r.agent.send("one");
    r.agent.prompt.set({ name: "system", order: 0, text: "" });
    await r.agent.send("two");
    expect(r.provider.requests[1]).not.toHaveProperty("system");
    expect(eventsOf(r.agent, "request/header-delta").length + eventsOf(r.agent, "request/header").length).toBe(2);
    expectRequestsMatchLog(r);
  });
});

describe("P18: with an unchanged header every request extends the previous one", () => {
  test("within and across turns, with tool round trips, previous messages are a prefix and system and tools are equal", async () => {
    const r = await threeTurns();
    const requests = r.provider.requests;
    for (let i = 1; i < requests.length; i++) {
      const [prev, next] = [requests[i - 1]!, requests[i]!];
      expect(next.messages.slice(0, prev.messages.length), `request ${i + 1}`).toEqual(prev.messages);
      expect(next.messages.length).toBeGreaterThan(prev.messages.length);
      expect([next.system, next.tools, next.model]).toEqual([prev.system, prev.tools, prev.model]);
    }
    expect(eventsOf(r.agent, "request/header")).toHaveLength(1);
    expect(eventsOf(r.agent, "request/header-delta")).toHaveLength(0);
  });
});

describe("P19: requests are deep-frozen, loop-built, with a live signal", () => {
  test("every request is frozen all the way down (the signal aside) and branded loop-built", async () => {
    const r = await threeTurns();
    for (const { request } of r.dispatches) {
      expect(unfrozenInRequest(request)).toEqual([]);
      expect(isLoopBuilt(request)).toBe(true);
      expect(isLoopBuilt({ ...request })).toBe(false);
    }
  });

  const mutations: [string, (request: ProviderRequest) => void][] = [
    ["pushing to messages", (req) => (req.messages as Message[]).push(opener)],
    ["setting a field", (req) => ((req as { model: string }).model = "scripted:hijack")],
    ["adding a field", (req) => ((req as Record<string, unknown>).temperature = 2)],
    ["deleting a field", (req) => delete (req as { system?: string }).system],
    ["mutating a message", (req) => ((req.messages[0] as { content: unknown }).content = [])],
    [
      "mutating a message's content",
      (req) => (req.messages[0]!.content as unknown[]).push({ type: "text", text: "x" }),
    ],
    ["mutating a tool schema", (req) => ((req.tools![0] as { description: string }).description = "changed")],
  ];

  test.each(mutations)(
    "an llm/stream listener %s throws a TypeError and the turn ends error",
    async (_what, mutate) => {
      const r = rig({ system: "Be brief.", tools: [tool("echo")] });
      const seen = deferred<{ error: unknown; aborted: boolean; live: boolean }>();
      const off = r.agent.hooks.on("llm/stream", ({ request }, next) => {
        off(); // only the first turn's request is tampered with
        try {
          mutate(request);
        } catch (error) {
          seen.resolve({ error, aborted: request.signal.aborted, live: request.signal instanceof AbortSignal });
          throw error;
        }
        seen.resolve({ error: undefined, aborted: false, live: true });
        return next();
      });
      const outcome = await r.agent.send("hi");
      const { error, aborted, live } = await seen.promise;
      expect(error).toBeInstanceOf(TypeError);
      expect([aborted, live]).toEqual([false, true]);
      expect(outcome.reason).toMatchObject({ kind: "error", step: 1 });
      expect(r.provider.requests).toHaveLength(0);
      expectClosedLog(r.agent);
      expect((await r.agent.send("again")).reason).toEqual({ kind: "completed" });
    },
  );

  test("after a refused mutation the request's signal still aborts: cancel() reaches it and the turn ends aborted", async () => {
    const r = rig({ replies: ["hang"] });
    let signal: AbortSignal | undefined;
    r.agent.hooks.on("llm/stream", ({ request }, next) => {
      expect(() => (request.messages as Message[]).push(opener)).toThrow(TypeError);
      expect(isLoopBuilt(request)).toBe(true);
      signal = request.signal;
      const result = next();
      r.agent.cancel("stop now");
      return result;
    });
    const outcome = await r.agent.send("hi");
    expect(signal!.aborted).toBe(true);
    expect(outcome.reason).toEqual({ kind: "aborted", reason: "stop now" });
    expectClosedLog(r.agent);
  });
});
