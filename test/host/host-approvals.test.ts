// The agent host and approvals (#23 §1): a turn that pauses ends awaiting-approval; a prompt
// while it waits is refused (awaiting-approval: at the host's door when the agent is open, else by the loop); host.decide queues the decision as a
// turn of the session's FIFO and resolves with the continued turn's outcome — also after the
// agent was evicted and the session is reopened from the store. host.streamAnswers does the same
// for a batch (what a UI sends) and streams the continued turn; host.pending says what waits.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { askUserTool } from "../../src/builtin-tools/index.js";
import { createAgentHost } from "../../src/host/index.js";
import { ScriptedProvider } from "../../src/llm/core.js";
import { ApprovalError, type AgentProfile, type TurnEvent } from "../../src/loop/index.js";
import { JsonlSessionStore } from "../../src/store/index.js";
import { deployingProfile } from "./support.js";

let root: string;
const ran: string[] = [];
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "keelson-host-approvals-"));
  ran.length = 0;
});
afterEach(() => rm(root, { recursive: true, force: true }));

const profile = deployingProfile(ran);

describe("host.decide", () => {
  test("continues a paused session in its FIFO, across an eviction; a second decision is refused", async () => {
    const store = new JsonlSessionStore({ root });
    const host = createAgentHost({ store, profile, maxOpen: 1 });
    const paused = await host.send("s1", "ship it");
    expect(paused.reason).toEqual({ kind: "awaiting-approval" });
    await expect(host.send("s1", "anything?")).rejects.toMatchObject({ code: "awaiting-approval" });
    // Open and idle: refused at the door (a server answers 409 before any header), nothing logged.
    const before = (await host.log("s1")).length;
    expect(() => host.stream("s1", "anything?")).toThrow(
      expect.objectContaining({ name: "LoopError", code: "awaiting-approval" }), // the loop's own error, open or not
    );
    expect((await host.log("s1")).length).toBe(before);
    expect((await host.send("s2", "other session")).reason).toEqual({ kind: "awaiting-approval" }); // evicts s1
    const { session } = await store.load("s1", { readOnly: true });
    const [pending] = session.pendingApprovals();
    const outcome = await host.decide("s1", pending!.callId, { approve: true, by: "ana" });
    expect(outcome).toMatchObject({ reason: { kind: "completed" }, saved: true });
    expect(outcome.text).toBe("shipped");
    expect(ran).toEqual(["prod"]);
    const again = await host.decide("s1", pending!.callId, { approve: false }).catch((e: unknown) => e);
    expect(again).toBeInstanceOf(ApprovalError);
    expect((again as ApprovalError).code).toBe("already-decided");
    await host.close();
    await store.close();
  });

  test("host.respond answers a pending question", async () => {
    const store = new JsonlSessionStore({ root });
    const asking: AgentProfile = {
      provider: () =>
        new ScriptedProvider([], {
          fallback: (request) =>
            request.messages.at(-1)?.role === "tool"
              ? { text: "ok" }
              : { toolCalls: [{ name: "ask_user", arguments: { question: "Name?" } }] },
        }),
      model: "scripted:host",
      tools: [askUserTool()],
    };
    const host = createAgentHost({ store, profile: asking });
    expect((await host.send("q1", "hello")).reason).toEqual({ kind: "awaiting-input" });
    const { session } = await store.load("q1", { readOnly: true });
    const outcome = await host.respond("q1", session.pendingInputs()[0]!.id, { value: "Ada" });
    expect(outcome.reason).toEqual({ kind: "completed" });
    await host.close();
    await store.close();
  });

  test("host.streamAnswers queues a batch in the FIFO, streams the continued turn; host.pending reads open and stored sessions", async () => {
    const store = new JsonlSessionStore({ root });
    const host = createAgentHost({ store, profile, maxOpen: 1 });
    expect(await host.pending("never-made")).toEqual({ approvals: [], inputs: [] });
    expect((await host.send("s1", "ship it")).reason).toEqual({ kind: "awaiting-approval" });
    const open = await host.pending("s1"); // from the open agent
    expect(open.approvals.map((p) => p.tool)).toEqual(["deploy"]);
    expect((await host.send("s2", "other session")).reason).toEqual({ kind: "awaiting-approval" }); // evicts s1
    const stored = await host.pending("s1"); // read from the store, read-only
    expect(stored).toEqual(open);
    const callId = stored.approvals[0]!.callId;
    // A refused batch fails its stream (the log is checked when the turn's time comes), nothing logged.
    const bad = host.streamAnswers("s1", {
      decisions: [
        { callId, approve: true },
        { callId: "call_7_7_7", approve: true },
      ],
    });
    const badEvents = (async () => {
      for await (const _ of bad);
    })();
    await expect(badEvents).rejects.toMatchObject({ name: "ApprovalError", code: "unknown-call" });
    await expect(bad.outcome).rejects.toBeInstanceOf(ApprovalError);
    expect((await host.pending("s1")).approvals.map((p) => p.callId)).toEqual([callId]);
    const stream = host.streamAnswers("s1", { decisions: [{ callId, approve: true, by: "ana" }] });
    const events: TurnEvent[] = [];
    for await (const event of stream) events.push(event);
    expect(events[0]).toMatchObject({ type: "turn-start", trigger: "approval" });
    expect(events.map((e) => e.type)).toContain("approval-decision");
    expect((await stream.outcome).reason).toEqual({ kind: "completed" });
    expect(ran).toEqual(["prod"]);
    expect(await host.pending("s1")).toEqual({ approvals: [], inputs: [] });
    await host.close();
    await store.close();
  });
});
