// A new loop instance over a stored session (resume, fork) recomposes its session prefix and
// logs it on a `resume` snapshot, so drift is attributable by diffing consecutive snapshots; the
// compaction gate of the new instance counts the live prefix, not the previous instance's
// (PROPERTIES.md P8 — resume, restart after a crash, fork — with P7's durable record and P12's
// gate on a resumed instance).
import { writeFile } from "node:fs/promises";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { diffHeader } from "../../src/header/index.js";
import { type CompactionGate, forkAgent, resumeAgent } from "../../src/loop/index.js";
import type { Message } from "../../src/messages/index.js";
import { reconstructRequests, verifyLog } from "../../src/reconstruct/index.js";
import type { JsonlSessionStore } from "../../src/store/index.js";
import { type TempJsonlRoot, tempJsonlRoot } from "../store/jsonl-harness.js";
import {
  agentOptions,
  deferred,
  eventsOf,
  expectLogMatchesRequests,
  headerSnapshots,
  prefixContributor,
  readCalls,
  scripted,
  scriptedAgent,
  turnEnds,
  user,
} from "./support.js";

const completed = { kind: "completed" };

let dir: TempJsonlRoot;
let store: JsonlSessionStore;
beforeEach(async () => {
  dir = await tempJsonlRoot();
  store = dir.open();
});
afterEach(() => dir.cleanup());

/** Runs one stored session for a turn with a tool round trip under `catalog`, then disposes it. */
async function firstInstance(catalog: readonly Message[]) {
  const contributor = prefixContributor("catalog", catalog);
  const { agent, provider } = scriptedAgent({
    store,
    plugins: [contributor.plugin],
    replies: [readCalls("a.txt"), { text: "read it" }],
  });
  expect(await agent.send("one")).toEqual({ turn: 1, reason: completed, saved: true });
  await agent.dispose();
  return { id: agent.session.id, provider, events: agent.session.events };
}

describe("P8 resume", () => {
  test("a resumed instance recomposes and logs a 'resume' snapshot; diffing it against the previous one shows exactly the prefix drift", async () => {
    const before = await firstInstance([user("catalog v1")]);
    const v2 = prefixContributor("catalog", [user("catalog v2"), user("new skill")]);
    const provider2 = scripted([readCalls("b.txt"), { text: "read that too" }]);
    const resumed = await resumeAgent(store, before.id, agentOptions(provider2, { plugins: [v2.plugin] }));
    expect(await resumed.send("two")).toEqual({ turn: 2, reason: completed, saved: true });
    expect(await resumed.send("three")).toEqual({ turn: 3, reason: completed, saved: true });

    expect(v2.calls).toBe(1);
    const snapshots = headerSnapshots(resumed);
    expect(snapshots.map((s) => s.reason)).toEqual(["initial", "resume"]);
    expect(snapshots[0]!.header.messagePrefix).toEqual([user("catalog v1")]);
    expect(snapshots[1]!.header.messagePrefix).toEqual([user("catalog v2"), user("new skill")]);
    expect(diffHeader(snapshots[0]!.header, snapshots[1]!.header)).toEqual({
      messagePrefix: [user("catalog v2"), user("new skill")],
    });
    expect(eventsOf(resumed, "request/header-delta")).toEqual([]);
    // The old prefix is gone from the wire; the old history is not.
    for (const request of provider2.requests) {
      expect(request.messages.slice(0, 3)).toEqual([user("catalog v2"), user("new skill"), user("one")]);
      expect(JSON.stringify(request.messages)).not.toContain("catalog v1");
    }
    expectLogMatchesRequests(resumed, before.provider, provider2);
    await resumed.dispose();

    // The same holds for the log as stored: every request of both instances rebuilds from disk.
    const { session: stored } = await store.load(before.id, { readOnly: true });
    expect(verifyLog(stored.events).issues).toEqual([]);
    expect(reconstructRequests(stored.events).map((r) => r.request.messages)).toEqual(
      [...before.provider.requests, ...provider2.requests].map((r) => r.messages),
    );
  });

  test("an unchanged contributor still recomposes on resume; its 'resume' snapshot diffs to nothing", async () => {
    const before = await firstInstance([user("catalog")]);
    const again = prefixContributor("catalog", [user("catalog")]);
    const provider2 = scripted();
    const resumed = await resumeAgent(store, before.id, agentOptions(provider2, { plugins: [again.plugin] }));
    await resumed.send("two");
    expect(again.calls).toBe(1);
    const [initial, resume] = headerSnapshots(resumed);
    expect(resume!.reason).toBe("resume");
    expect(diffHeader(initial!.header, resume!.header)).toBeUndefined();
    // P25's cache condition: the new instance's first request extends the last one sent before.
    const last = before.provider.requests.at(-1)!;
    expect(provider2.requests[0]!.messages.slice(0, last.messages.length)).toEqual(last.messages);
    expectLogMatchesRequests(resumed, before.provider, provider2);
    await resumed.dispose();
  });

  test("a contributor removed on resume leaves a 'resume' snapshot with no messagePrefix key, and bare requests", async () => {
    const before = await firstInstance([user("catalog")]);
    const provider2 = scripted();
    const resumed = await resumeAgent(store, before.id, agentOptions(provider2));
    await resumed.send("two");
    const [initial, resume] = headerSnapshots(resumed);
    expect(Object.keys(resume!.header)).not.toContain("messagePrefix");
    expect(diffHeader(initial!.header, resume!.header)).toEqual({ messagePrefix: [] });
    expect(provider2.requests[0]!.messages[0]).toEqual(user("one"));
    expectLogMatchesRequests(resumed, before.provider, provider2);
    await resumed.dispose();
  });

  test("P7 the stored log holds the prefix once per instance: on its anchoring snapshot line", async () => {
    const before = await firstInstance([user("MARKER-A")]);
    const resumed = await resumeAgent(
      store,
      before.id,
      agentOptions(scripted(), { plugins: [prefixContributor("catalog", [user("MARKER-B")]).plugin] }),
    );
    await resumed.send("two");
    await resumed.send("three");
    await resumed.dispose();
    const lines = (await dir.bytesOf(before.id)).toString("utf8").trimEnd().split("\n");
    const withA = lines.filter((l) => l.includes("MARKER-A"));
    const withB = lines.filter((l) => l.includes("MARKER-B"));
    expect(withA.map((l) => JSON.parse(l).data.reason)).toEqual(["initial"]);
    expect(withB.map((l) => JSON.parse(l).data.reason)).toEqual(["resume"]);
  });

  test("P12 the resumed instance's compaction gate receives the live, grown prefix, not the previous instance's", async () => {
    const before = await firstInstance([user("small catalog")]);
    const grown = [user("grown catalog"), user("x".repeat(10_000))];
    const seen: (readonly Message[])[] = [];
    const compaction: CompactionGate = {
      compactIfNeeded: async (_agent, _system, prefix) => {
        seen.push(prefix);
      },
    };
    const provider2 = scripted();
    const resumed = await resumeAgent(
      store,
      before.id,
      agentOptions(provider2, { plugins: [prefixContributor("catalog", grown).plugin], compaction }),
    );
    await resumed.send("two");
    expect(seen).toEqual([grown]);
    expect(provider2.requests[0]!.messages.slice(0, 2)).toEqual(grown);
    expectLogMatchesRequests(resumed, before.provider, provider2);
    await resumed.dispose();
  });
});

describe("P8 restart", () => {
  test("a restart from the log a crashed instance left repairs it, recomposes, and logs the drift on its own 'resume' snapshot", async () => {
    const before = await firstInstance([user("catalog v1")]);
    // A second instance dies mid-step: keep the bytes it had made durable by then.
    const hung = scripted(["hang"]);
    const doomed = await resumeAgent(
      store,
      before.id,
      agentOptions(hung, { plugins: [prefixContributor("catalog", [user("catalog v2")]).plugin] }),
    );
    const streaming = deferred();
    doomed.hooks.on("llm/stream", (_payload, next) => {
      streaming.resolve();
      return next();
    });
    const lost = doomed.send("lost");
    await streaming.promise;
    await store.flush(before.id);
    const atCrash = await dir.bytesOf(before.id);
    doomed.cancel("test teardown");
    await lost;
    await doomed.dispose();

    const restartDir = await tempJsonlRoot();
    try {
      await writeFile(restartDir.fileOf(before.id), atCrash);
      const provider3 = scripted();
      const v3 = prefixContributor("catalog", [user("catalog v3")]);
      const restarted = await resumeAgent(
        restartDir.open(),
        before.id,
        agentOptions(provider3, { plugins: [v3.plugin] }),
      );
      expect(await restarted.send("three")).toEqual({ turn: 3, reason: completed, saved: true });

      expect(turnEnds(restarted).map((r) => r.kind)).toEqual(["completed", "interrupted", "completed"]);
      expect(v3.calls).toBe(1);
      const snapshots = headerSnapshots(restarted);
      expect(snapshots.map((s) => s.reason)).toEqual(["initial", "resume", "resume"]);
      expect(diffHeader(snapshots[1]!.header, snapshots[2]!.header)).toEqual({ messagePrefix: [user("catalog v3")] });
      expect(provider3.requests[0]!.messages[0]).toEqual(user("catalog v3"));
      expect(provider3.requests[0]!.messages.slice(-2)).toEqual([user("lost"), user("three")]);
      expectLogMatchesRequests(restarted, before.provider, hung, provider3);
      await restarted.dispose();
    } finally {
      await restartDir.cleanup();
    }
  });
});

describe("P8 fork", () => {
  test("a forked child instance composes its own prefix and logs it on a 'resume' snapshot; the parent is untouched", async () => {
    const parent = await firstInstance([user("catalog v1")]);
    const v2 = prefixContributor("catalog", [user("catalog v2")]);
    const provider2 = scripted();
    const child = await forkAgent(store, parent.id, agentOptions(provider2, { plugins: [v2.plugin] }));
    expect(child.session.id).not.toBe(parent.id);
    expect(await child.send("two")).toEqual({ turn: 2, reason: completed, saved: true });

    expect(v2.calls).toBe(1);
    const snapshots = headerSnapshots(child);
    expect(snapshots.map((s) => s.reason)).toEqual(["initial", "resume"]);
    expect(diffHeader(snapshots[0]!.header, snapshots[1]!.header)).toEqual({ messagePrefix: [user("catalog v2")] });
    expect(provider2.requests[0]!.messages.slice(0, 2)).toEqual([user("catalog v2"), user("one")]);
    expectLogMatchesRequests(child, parent.provider, provider2);
    await child.dispose();

    const { session: storedParent } = await store.load(parent.id, { readOnly: true });
    expect(storedParent.events).toEqual(parent.events);
  });

  test("forking at an earlier turn/end recomposes too, over the history up to that turn", async () => {
    const contributor = prefixContributor("catalog", (call) => [user(`catalog ${call}`)]);
    const { agent, provider } = scriptedAgent({ store, plugins: [contributor.plugin] });
    await agent.send("one");
    await agent.send("two");
    await agent.dispose();
    const turnOneEnd = eventsOf(agent, "turn/end")[0]!.seq;

    const provider2 = scripted();
    const child = await forkAgent(store, agent.session.id, {
      ...agentOptions(provider2, { plugins: [contributor.plugin] }),
      atSeq: turnOneEnd,
    });
    await child.send("branch");
    expect(contributor.calls).toBe(2);
    expect(provider2.requests[0]!.messages).toEqual([
      user("catalog 2"),
      user("one"),
      { role: "assistant", content: [{ type: "text", text: "done" }] },
      user("branch"),
    ]);
    expect(headerSnapshots(child).map((s) => [s.reason, s.header.messagePrefix])).toEqual([
      ["initial", [user("catalog 1")]],
      ["resume", [user("catalog 2")]],
    ]);
    expectLogMatchesRequests(child, { requests: provider.requests.slice(0, 1) }, provider2);
    await child.dispose();
  });
});
