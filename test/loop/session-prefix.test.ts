// The session prefix on the wire: composed once per loop instance, in prepend order, placed in
// front of the whole derived history of every request, immutable once composed, and recorded
// only on the instance's anchoring header snapshot (PROPERTIES.md P1–P4, P6, P7).
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { globalHooks } from "../../src/loop/index.js";
import type { Message } from "../../src/messages/index.js";
import { reconstructRequests } from "../../src/reconstruct/index.js";
import {
  countPrefixRuns,
  eventsMentioning,
  eventsOf,
  expectLogMatchesRequests,
  headerSnapshots,
  prefixContributor,
  readCalls,
  scriptedAgent,
  user,
} from "./support.js";

const completed = { kind: "completed" };

describe("composition", () => {
  test("P1 composes the prefix once per loop instance, across turns and tool round trips, with no header delta", async () => {
    // Each turn: some tool steps (each calling `read` 1–3 times), then a text answer.
    const turnsArb = fc.array(fc.array(fc.integer({ min: 1, max: 3 }), { maxLength: 3 }), {
      minLength: 1,
      maxLength: 4,
    });
    await fc.assert(
      fc.asyncProperty(turnsArb, async (turns) => {
        const catalog = prefixContributor("catalog", [user("<system-reminder>skills: a, b</system-reminder>")]);
        const replies = turns.flatMap((steps) => [
          ...steps.map((n) => readCalls(...Array.from({ length: n }, (_, i) => `f${i}.txt`))),
          { text: "done" },
        ]);
        const { agent, provider } = scriptedAgent({ replies, plugins: [catalog.plugin] });
        const waterfall = countPrefixRuns(agent);
        for (const [i] of turns.entries())
          expect(await agent.send(`turn ${i + 1}`)).toEqual({ turn: i + 1, reason: completed });

        expect(waterfall.count).toBe(1);
        expect(catalog.runs).toHaveLength(1);
        expect(provider.requests).toHaveLength(turns.flat().length + turns.length);
        for (const request of provider.requests) expect(request.messages[0]).toEqual(catalog.runs[0]![0]);
        expect(headerSnapshots(agent).map((s) => s.reason)).toEqual(["initial"]);
        expect(eventsOf(agent, "request/header-delta")).toEqual([]);
        expectLogMatchesRequests(agent, provider);
        await agent.dispose();
      }),
      { numRuns: 25 },
    );
  });

  test("P2 composition completes before the first agent/pre-step, which receives the prefix every request carries", async () => {
    const order: string[] = [];
    const catalog = user("catalog");
    const { agent, provider } = scriptedAgent({
      replies: [readCalls("a.txt"), { text: "read it" }, { text: "hello again" }],
      plugins: [
        (host) => {
          host.on("agent/session-prefix", async (_payload, next) => {
            order.push("compose:start");
            const out = [catalog, ...(await next())];
            order.push("compose:end");
            return out;
          });
          return undefined;
        },
      ],
    });
    const seen: (readonly Message[])[] = [];
    agent.hooks.on("agent/pre-step", ({ turn, step, sessionPrefix: prefix }) => {
      order.push(`pre-step ${turn}.${step}`);
      seen.push(prefix);
    });
    agent.hooks.on("session/event", ({ event }) => {
      if (event.type === "turn/start" || event.type === "user/message" || event.type === "step/start")
        order.push(event.type);
    });
    await agent.send("one");
    await agent.send("two");

    expect(order).toEqual([
      ...[
        "turn/start",
        "user/message",
        "compose:start",
        "compose:end",
        "pre-step 1.1",
        "step/start",
        "pre-step 1.2",
        "step/start",
      ],
      ...["turn/start", "user/message", "pre-step 2.1", "step/start"],
    ]);
    expect(seen).toHaveLength(provider.requests.length);
    for (const [i, request] of provider.requests.entries()) {
      expect(seen[i]).toEqual([catalog]);
      expect(request.messages.slice(0, seen[i]!.length)).toEqual(seen[i]);
    }
    // The cached product itself is handed through: one frozen object for the whole instance.
    expect(new Set(seen).size).toBe(1);
    expect(Object.isFrozen(seen[0]) && Object.isFrozen(seen[0]![0]) && Object.isFrozen(seen[0]![0]!.content)).toBe(
      true,
    );
    expectLogMatchesRequests(agent, provider);
    await agent.dispose();
  });

  test("P2 composition is lazy: turns that reach no pre-step (inject-only, every prompt blocked) do not compose", async () => {
    const catalog = prefixContributor("catalog", [user("catalog")]);
    const { agent, provider } = scriptedAgent({ plugins: [catalog.plugin] });
    agent.hooks.on("agent/prompt-submit", ({ prompt }, next) =>
      prompt.content[0]?.type === "text" && prompt.content[0].text === "blocked"
        ? { action: "block", reason: "no" }
        : next(),
    );
    await agent.inject("some context");
    expect((await agent.send("blocked")).reason.kind).toBe("rejected");
    expect(catalog.calls).toBe(0);
    expect(await agent.send("hello")).toEqual({ turn: 3, reason: completed });
    expect(catalog.calls).toBe(1);
    expect(provider.requests[0]!.messages).toEqual([user("catalog"), user("some context"), user("hello")]);
    expectLogMatchesRequests(agent, provider);
    await agent.dispose();
  });
});

describe("wire shape", () => {
  test("P3 contributors A then B (prepend pattern) put A's messages, then B's, then the derived history on every request", async () => {
    const a = prefixContributor("A", [user("A1"), user("A2")]);
    const b = prefixContributor("B", [user("B1")]);
    const { agent, provider } = scriptedAgent({
      replies: [readCalls("x.txt", "y.txt"), { text: "ok" }],
      plugins: [a.plugin, b.plugin],
    });
    await agent.send("one");
    await agent.send("two");

    const expected = [user("A1"), user("A2"), user("B1")];
    const rebuilt = reconstructRequests(agent.session.events);
    expect(provider.requests).toHaveLength(3);
    for (const [i, request] of provider.requests.entries())
      expect(request.messages).toEqual([...expected, ...rebuilt[i]!.history]);
    expect(headerSnapshots(agent)[0]!.header.messagePrefix).toEqual(expected);
    expectLogMatchesRequests(agent, provider);
    await agent.dispose();
  });

  test("P3 a global contributor is outermost: its messages come before the agent's own", async () => {
    const unload = globalHooks.on("agent/session-prefix", async (_payload, next) => [user("G"), ...(await next())]);
    try {
      const { agent, provider } = scriptedAgent({ plugins: [prefixContributor("A", [user("A")]).plugin] });
      await agent.send("hi");
      expect(provider.requests[0]!.messages).toEqual([user("G"), user("A"), user("hi")]);
      expectLogMatchesRequests(agent, provider);
      await agent.dispose();
    } finally {
      unload();
    }
  });

  test("P3 any number of contributors appear in registration order", async () => {
    const textsArb = fc.array(fc.array(fc.string({ maxLength: 8 }), { maxLength: 2 }), { minLength: 1, maxLength: 4 });
    await fc.assert(
      fc.asyncProperty(textsArb, async (perContributor) => {
        const contributors = perContributor.map((texts, i) => prefixContributor(`c${i}`, texts.map(user)));
        const { agent, provider } = scriptedAgent({ plugins: contributors.map((c) => c.plugin) });
        await agent.send("hi");
        const expected = perContributor.flat().map(user);
        expect(provider.requests[0]!.messages).toEqual([...expected, user("hi")]);
        expect("messagePrefix" in headerSnapshots(agent)[0]!.header).toBe(expected.length > 0);
        expectLogMatchesRequests(agent, provider);
        await agent.dispose();
      }),
      { numRuns: 30 },
    );
  });

  const emptyCompositions: [string, (a: ReturnType<typeof scriptedAgent>["agent"]) => void][] = [
    ["no listener at all", () => {}],
    ["a pass-through listener", (agent) => void agent.hooks.on("agent/session-prefix", (_payload, next) => next())],
    ["a listener returning []", (agent) => void agent.hooks.on("agent/session-prefix", () => [])],
  ];
  test.each(emptyCompositions)(
    "P4 with %s, the header has no messagePrefix key and every request is the bare derivation",
    async (_name, register) => {
      const { agent, provider } = scriptedAgent({ replies: [readCalls("a.txt"), { text: "ok" }] });
      register(agent);
      const atBoundary: Message[][] = [];
      agent.hooks.on("agent/request", ({ agent: a }, next) => {
        atBoundary.push(a.session.deriveMessages());
        return next();
      });
      expect(await agent.send("one")).toEqual({ turn: 1, reason: completed });
      await agent.send("two");

      for (const snapshot of headerSnapshots(agent))
        expect(Object.keys(snapshot.header)).not.toContain("messagePrefix");
      const rebuilt = reconstructRequests(agent.session.events);
      expect(provider.requests.map((r) => r.messages)).toEqual(atBoundary);
      expect(provider.requests.map((r) => r.messages)).toEqual(rebuilt.map((r) => r.history));
      expectLogMatchesRequests(agent, provider);
      await agent.dispose();
    },
  );
});

describe("immutability and the durable record", () => {
  test("P6 mutating a returned message, its content or the returned list after composition changes no request and logs no header event", async () => {
    const held = { role: "user" as const, content: [{ type: "text" as const, text: "catalog v1" }] };
    let returned: Message[] = [];
    const { agent, provider } = scriptedAgent({
      replies: [readCalls("a.txt"), { text: "ok" }, readCalls("b.txt"), { text: "ok" }],
    });
    agent.hooks.on("agent/session-prefix", async (_payload, next) => {
      returned = [held, ...(await next())];
      return returned;
    });
    let mutations = 0;
    agent.hooks.on("agent/pre-step", () => {
      // Before the instance's first request, then again in every later step.
      held.content[0]!.text = `catalog MUTATED ${++mutations}`;
      held.content.push({ type: "text", text: "smuggled block" });
      returned.push(user("smuggled message"));
      (held as { role: string }).role = "assistant";
    });
    expect(await agent.send("one")).toEqual({ turn: 1, reason: completed });
    expect(await agent.send("two")).toEqual({ turn: 2, reason: completed });

    expect(mutations).toBe(4);
    for (const request of provider.requests) {
      expect(request.messages[0]).toEqual(user("catalog v1"));
      expect(request.messages[1]).toEqual(user("one"));
    }
    expect(headerSnapshots(agent)).toHaveLength(1);
    expect(headerSnapshots(agent)[0]!.header.messagePrefix).toEqual([user("catalog v1")]);
    expect(eventsOf(agent, "request/header-delta")).toEqual([]);
    expect(eventsMentioning(agent, "smuggled")).toEqual([]);
    expectLogMatchesRequests(agent, provider);
    await agent.dispose();
  });

  test("P7 deriveMessages never contains the prefix; its one durable record is the anchoring snapshot's messagePrefix", async () => {
    const marker = "PREFIX-MARKER-P7";
    const catalog = prefixContributor("catalog", [user(`<system-reminder>${marker}</system-reminder>`)]);
    const { agent, provider } = scriptedAgent({
      replies: [readCalls("a.txt"), { text: "ok" }],
      plugins: [catalog.plugin],
    });
    const atBoundary: Message[][] = [];
    agent.hooks.on("agent/request", ({ agent: a }, next) => {
      atBoundary.push(a.session.deriveMessages());
      return next();
    });
    await agent.send("one");
    // A mid-instance header change logs a delta: it must not repeat the prefix.
    agent.prompt.set({ name: "style", order: 1, text: "Answer in one line." });
    await agent.send("two");

    for (const history of [...atBoundary, agent.session.deriveMessages()])
      expect(JSON.stringify(history)).not.toContain(marker);
    const deltas = eventsOf(agent, "request/header-delta");
    expect(deltas.map((d) => Object.keys(d.data))).toEqual([["system"]]);
    const anchoring = eventsOf(agent, "request/header");
    expect(anchoring.map((e) => e.data.reason)).toEqual(["initial"]);
    expect(eventsMentioning(agent, marker)).toEqual(anchoring);
    for (const request of provider.requests) expect(request.messages[0]).toEqual(catalog.runs[0]![0]);
    expectLogMatchesRequests(agent, provider);
    await agent.dispose();
  });
});
