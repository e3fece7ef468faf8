// A cancel or dispose landing while the `agent/session-prefix` waterfall runs: the composition
// is discarded (never cached, logged or sent), no model is called, the turn ends
// `aborted{reason}` / `disposed`, and the next turn — or the next instance — recomposes under a
// live signal (PROPERTIES.md P9). Listeners are held on a gate; nothing sleeps.
import { describe, expect, test } from "vitest";
import type { Message } from "../../src/messages/index.js";
import { type AgentPlugin, resumeAgent } from "../../src/loop/index.js";
import { tempJsonlRoot } from "../store/jsonl-harness.js";
import {
  agentOptions,
  countPrefixRuns,
  eventsMentioning,
  eventsOf,
  expectLogMatchesRequests,
  type Gate,
  gate,
  headerSnapshots,
  prefixContributor,
  scripted,
  scriptedAgent,
  turnEnds,
  user,
} from "./support.js";

const completed = { kind: "completed" };

/**
 * An outer listener that holds the first composition at `held` (recording each signal), around
 * a contributor whose first opener is stale and whose later ones are fresh.
 */
function heldContributor(held: Gate) {
  const signals: AbortSignal[] = [];
  const contributor = prefixContributor("catalog", (call) =>
    call === 1 ? [user("STALE catalog")] : [user(`fresh catalog ${call}`)],
  );
  const waiting: AgentPlugin = (host) => {
    host.on("agent/session-prefix", async ({ signal }, next) => {
      signals.push(signal);
      if (signals.length === 1) await held.pass();
      return next();
    });
    return undefined;
  };
  // The gate runs outside the contributor, so the contributor composes after the cancel landed.
  return { plugins: [waiting, contributor.plugin], contributor, signals };
}

describe("P9 cancel during composition", () => {
  test("cancel('stop') while a listener holds the waterfall: no model call, aborted{stop}, nothing cached; the next turn recomposes", async () => {
    const held = gate();
    const { plugins, contributor, signals } = heldContributor(held);
    const { agent, provider } = scriptedAgent({ plugins });
    const waterfall = countPrefixRuns(agent);

    const first = agent.send("one");
    await held.reached;
    agent.cancel("stop");
    held.open();
    expect(await first).toEqual({ turn: 1, reason: { kind: "aborted", reason: "stop" } });
    expect(turnEnds(agent)).toEqual([{ kind: "aborted", reason: "stop" }]);
    expect(signals[0]!.aborted).toBe(true);
    expect(provider.requests).toHaveLength(0);
    expect(eventsOf(agent, "request/header")).toEqual([]);
    expect(eventsOf(agent, "step/start")).toEqual([]);

    expect(await agent.send("two")).toEqual({ turn: 2, reason: completed });
    expect(await agent.send("three")).toEqual({ turn: 3, reason: completed });
    expect(waterfall.count).toBe(2);
    expect(signals[1]!.aborted).toBe(false);
    expect(contributor.runs).toEqual([[user("STALE catalog")], [user("fresh catalog 2")]]);
    expect(headerSnapshots(agent)).toEqual([
      { reason: "initial", header: expect.objectContaining({ messagePrefix: [user("fresh catalog 2")] }) },
    ]);
    for (const request of provider.requests) expect(request.messages[0]).toEqual(user("fresh catalog 2"));
    expect(eventsMentioning(agent, "STALE")).toEqual([]);
    expectLogMatchesRequests(agent, provider);
    await agent.dispose();
  });

  test("an abort-aware listener's degraded fallback, returned after the cancel, is discarded", async () => {
    const held = gate();
    const { agent, provider } = scriptedAgent();
    let calls = 0;
    agent.hooks.on("agent/session-prefix", async ({ signal }, next) => {
      if (++calls > 1) return [user("full catalog"), ...(await next())];
      const aborted = new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
      void held.pass();
      await aborted;
      return [user("DEGRADED catalog"), ...(await next())];
    });

    const first = agent.send("one");
    await held.reached;
    agent.cancel("user pressed escape");
    expect(await first).toEqual({ turn: 1, reason: { kind: "aborted", reason: "user pressed escape" } });
    expect(provider.requests).toHaveLength(0);

    expect(await agent.send("two")).toEqual({ turn: 2, reason: completed });
    expect(calls).toBe(2);
    expect(provider.requests[0]!.messages).toEqual([user("full catalog"), user("one"), user("two")]);
    expect(eventsMentioning(agent, "DEGRADED")).toEqual([]);
    expectLogMatchesRequests(agent, provider);
    await agent.dispose();
  });

  test("a listener that rejects with the abort reason ends the turn aborted, not error", async () => {
    const held = gate();
    const { agent, provider } = scriptedAgent();
    let calls = 0;
    agent.hooks.on("agent/session-prefix", async ({ signal }, next) => {
      if (++calls > 1) return next();
      void held.pass();
      await new Promise((_resolve, reject) =>
        signal.addEventListener("abort", () => reject(signal.reason), { once: true }),
      );
      return next();
    });
    const first = agent.send("one");
    await held.reached;
    agent.cancel("stop");
    expect(await first).toEqual({ turn: 1, reason: { kind: "aborted", reason: "stop" } });
    expect(provider.requests).toHaveLength(0);
    expect(await agent.send("two")).toEqual({ turn: 2, reason: completed });
    expect(calls).toBe(2);
    expectLogMatchesRequests(agent, provider);
    await agent.dispose();
  });

  test("a cancel from inside the composing listener itself discards its own contribution", async () => {
    const { agent, provider } = scriptedAgent();
    const composed: (readonly Message[])[] = [];
    agent.hooks.on("agent/session-prefix", async ({ agent: a }, next) => {
      const out = [user(composed.length === 0 ? "SELF-CANCELLED" : "kept"), ...(await next())];
      composed.push(out);
      if (composed.length === 1) a.cancel("changed my mind");
      return out;
    });
    expect((await agent.send("one")).reason).toEqual({ kind: "aborted", reason: "changed my mind" });
    expect(await agent.send("two")).toEqual({ turn: 2, reason: completed });
    expect(composed).toHaveLength(2);
    expect(headerSnapshots(agent)[0]!.header.messagePrefix).toEqual([user("kept")]);
    expect(eventsMentioning(agent, "SELF-CANCELLED")).toEqual([]);
    expectLogMatchesRequests(agent, provider);
    await agent.dispose();
  });
});

describe("P9 dispose during composition", () => {
  test("dispose() while a listener holds the waterfall: no model call, turn/end disposed, nothing logged; the next instance composes fresh", async () => {
    const dir = await tempJsonlRoot();
    try {
      const store = dir.open();
      const held = gate();
      const { plugins, contributor } = heldContributor(held);
      const { agent, provider } = scriptedAgent({ store, plugins });
      const first = agent.send("one");
      await held.reached;
      const disposing = agent.dispose();
      held.open();
      await disposing;
      expect(await first).toEqual({ turn: 1, reason: { kind: "disposed" }, saved: true });
      expect(turnEnds(agent)).toEqual([{ kind: "disposed" }]);
      expect(agent.status).toBe("disposed");
      expect(provider.requests).toHaveLength(0);
      expect(eventsOf(agent, "request/header")).toEqual([]);
      expect(eventsMentioning(agent, "STALE")).toEqual([]);
      expectLogMatchesRequests(agent, provider);
      await expect(agent.send("too late")).rejects.toMatchObject({ code: "disposed" });

      // The stored log holds no prefix, so the next instance's first header is the initial one
      // and carries its own, fresh composition.
      const provider2 = scripted();
      const resumed = await resumeAgent(store, agent.session.id, agentOptions(provider2, { plugins }));
      expect(await resumed.send("two")).toEqual({ turn: 2, reason: completed, saved: true });
      expect(contributor.calls).toBe(2);
      expect(headerSnapshots(resumed)).toEqual([
        { reason: "initial", header: expect.objectContaining({ messagePrefix: [user("fresh catalog 2")] }) },
      ]);
      expect(provider2.requests[0]!.messages).toEqual([user("fresh catalog 2"), user("one"), user("two")]);
      expect(eventsMentioning(resumed, "STALE")).toEqual([]);
      expectLogMatchesRequests(resumed, provider2);
      await resumed.dispose();
    } finally {
      await dir.cleanup();
    }
  });
});
