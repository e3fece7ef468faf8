// An agent per turn over a prepared session (the server pattern of issue #13): a fork shares the
// parent's events, the loop over it still sends only requests the log reconstructs (the dev-mode
// invariant runs on every request here), and the parent never changes.
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { createAgent, forkAgent, resumeAgent } from "../../src/loop/index.js";
import type { ScriptedProvider } from "../../src/llm/index.js";
import type { Agent } from "../../src/loop/index.js";
import { reconstructRequests, verifyLog } from "../../src/reconstruct/index.js";
import { forkSession } from "../../src/session/index.js";
import type { JsonlSessionStore } from "../../src/store/index.js";
import { agentOptions, readCalls, scripted } from "../loop/support.js";
import { type TempJsonlRoot, tempJsonlRoot } from "../store/jsonl-harness.js";
import { twoTurnLog } from "../support/builders.js";
import { logState } from "./log-assertions.js";

/** The log verifies, and its last requests rebuild to exactly what `provider` was sent. */
function expectLogMatchesRequests(agent: Agent, provider: ScriptedProvider): void {
  expect(verifyLog(agent.session.events).issues).toEqual([]);
  const sent = provider.requests.map(({ signal: _s, sessionId: _i, prefixLength: _p, ...rest }) => rest);
  const rebuilt = reconstructRequests(agent.session.events).map((r) => r.request);
  expect(rebuilt.slice(rebuilt.length - sent.length)).toEqual(sent);
}

describe("an agent over a shared fork", () => {
  test("runs a tool turn whose every request the child's log reconstructs, and leaves the parent as it was", async () => {
    const parent = twoTurnLog();
    const before = logState(parent);
    for (let round = 0; round < 3; round++) {
      const provider = scripted([readCalls("a.txt"), readCalls("b.txt"), { text: "done" }]);
      const child = forkSession(parent, { id: `child-${round}` });
      const agent = createAgent(agentOptions(provider, { session: child }));
      expect((await agent.send(`round ${round}`)).reason).toEqual({ kind: "completed" });
      await agent.dispose();
      for (let i = 0; i < parent.length; i++) expect(child.events[i]).toBe(parent.events[i]);
      expect(provider.requests).toHaveLength(3);
      // The history sent is the parent's, then this round's turn.
      expect(provider.requests[0]!.messages.slice(0, before.messages.length)).toEqual(before.messages);
      expectLogMatchesRequests(agent, provider);
    }
    const after = logState(parent);
    expect(after).toEqual(before);
    expect(after.events).toBe(before.events);
  });
});

describe("resume and fork of a stored session", () => {
  let dir: TempJsonlRoot;
  let store: JsonlSessionStore;
  beforeEach(async () => {
    dir = await tempJsonlRoot();
    store = dir.open();
  });
  afterEach(async () => {
    await dir.cleanup();
  });

  test("forkAgent stores a child that verifies, runs on it, and leaves the parent's file as it was", async () => {
    const parent = twoTurnLog();
    await store.create(parent.header, parent.events);
    await store.release(parent.id);
    const parentBytes = await dir.bytesOf(parent.id);

    const provider = scripted([readCalls("a.txt"), { text: "done" }]);
    const agent = await forkAgent(store, parent.id, agentOptions(provider, { sessionId: "child" }));
    expect(agent.session.header.parentSession).toBe(parent.id);
    expect(agent.session.events).toEqual(parent.events);
    expect((await agent.send("go")).reason).toEqual({ kind: "completed" });
    expectLogMatchesRequests(agent, provider);
    await agent.dispose();

    expect(await dir.bytesOf(parent.id)).toEqual(parentBytes);
    const { session: stored } = await store.load("child", { readOnly: true });
    expect(stored.events).toEqual(agent.session.events);
    expect(verifyLog(stored.events).issues).toEqual([]);
  });

  test("resumeAgent runs on the loaded events themselves and appends to the same log", async () => {
    const parent = twoTurnLog();
    await store.create(parent.header, parent.events);
    await store.release(parent.id);
    const provider = scripted([readCalls("a.txt"), { text: "done" }]);
    const agent = await resumeAgent(store, parent.id, agentOptions(provider));
    expect(agent.session.events.slice(0, parent.length)).toEqual(parent.events);
    expect((await agent.send("go")).reason).toEqual({ kind: "completed" });
    expectLogMatchesRequests(agent, provider);
    await agent.dispose();
    const { session: stored } = await store.load(parent.id, { readOnly: true });
    expect(stored.events).toEqual(agent.session.events);
  });
});
