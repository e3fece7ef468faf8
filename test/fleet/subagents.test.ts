// Subagents in the fleet (#27 §1): a worker runs a parent's subagent on itself — the child's
// session is created in the same PostgreSQL store under the worker's own lease, and released
// with it — so a fleet-run parent with a subagent completes and both logs verify. A child that
// waits for a person pauses the parent's turn (done, awaiting-approval, lease released); a
// decision queued for the child's request (naming its session) continues the child, then the
// parent, on any worker.
import { describe, expect, test } from "vitest";
import { EmulatorProvider } from "../../src/emulator/index.js";
import type { AgentProfile } from "../../src/fleet/index.js";
import { subagentTool } from "../../src/loop/index.js";
import { verifyLog } from "../../src/reconstruct/index.js";
import type { SessionEvent } from "../../src/session/index.js";
import { listPendingApprovals } from "../../src/store/index.js";
import { leaseOwner, useFleetDatabase } from "./fleet-harness.js";

const database = useFleetDatabase();

type Request = { readonly messages: readonly { readonly role: string }[] };
const afterTool = (request: Request): boolean => request.messages.at(-1)?.role === "tool";

/** The parent delegates once, then answers with what came back. */
const parentModel = (request: Request) =>
  afterTool(request)
    ? { text: "the subagent is done" }
    : { toolCalls: [{ name: "research", arguments: { task: "look it up" } }] };

const deployed: string[] = [];
const deploy = {
  name: "deploy",
  description: "Deploys (needs approval).",
  input: { type: "object", properties: { target: { type: "string" } } },
  needsApproval: true,
  execute: () => {
    deployed.push("prod");
    return "deployed";
  },
};

const profiles: Record<string, AgentProfile> = {
  delegating: {
    provider: () => new EmulatorProvider({ model: parentModel }),
    model: "emulator:parent",
    tools: [
      subagentTool({
        name: "research",
        description: "Researches.",
        agent: { provider: new EmulatorProvider({ model: () => ({ text: "found: 42" }) }), model: "emulator:child" },
      }),
    ],
    options: { invariants: true, maxSteps: 4 },
  },
  gated: {
    provider: () => new EmulatorProvider({ model: parentModel }),
    model: "emulator:parent",
    tools: [
      deploy,
      subagentTool({
        name: "research",
        description: "Researches and deploys.",
        agent: {
          provider: new EmulatorProvider({
            model: (request: Request) =>
              afterTool(request)
                ? { text: "deployed it" }
                : { toolCalls: [{ name: "deploy", arguments: { target: "prod" } }] },
          }),
          model: "emulator:child",
        },
      }),
    ],
    options: { invariants: true, maxSteps: 4 },
  },
};

describe("subagents in the fleet", () => {
  test("a fleet-run parent with a subagent completes; the child lives in the same store; both logs verify", async () => {
    await database().worker({ profiles });
    const client = await database().client();
    const sessionId = "fleet-parent";
    const record = await client.awaitTurn(
      await client.enqueueTurn({ sessionId, prompt: "find it", profile: "delegating" }),
      { timeoutMs: 20_000 },
    );
    expect(record).toMatchObject({ status: "done", outcome: { reason: "completed", saved: true } });
    const store = database().store();
    const parent = (await store.load(sessionId, { readOnly: true })).session;
    const childId = `${sessionId}.call_1_1_0`;
    const result = parent.events.find((e) => e.type === "tool/result") as SessionEvent<"tool/result">;
    expect(result.data.content).toEqual([{ type: "text", text: "found: 42" }]);
    expect(result.data.meta).toMatchObject({ subagent: { session: childId, reason: "completed" } });
    const child = (await store.load(childId, { readOnly: true })).session;
    expect(child.header.spawnedBy).toEqual({ session: sessionId, callId: "call_1_1_0" });
    expect(verifyLog(parent.events).issues).toEqual([]);
    expect(verifyLog(child.events).issues).toEqual([]);
    expect(await leaseOwner(database(), sessionId)).toBeNull();
    expect(await leaseOwner(database(), childId)).toBeNull(); // the worker released the child with its turn
  });

  test("a child's pause pauses the parent's turn; a queued decision for the child continues both", async () => {
    await database().worker({ profiles });
    const client = await database().client();
    const sessionId = "fleet-paused-parent";
    const paused = await client.awaitTurn(await client.enqueueTurn({ sessionId, prompt: "ship", profile: "gated" }), {
      timeoutMs: 20_000,
    });
    expect(paused).toMatchObject({ status: "done", outcome: { reason: "awaiting-approval" } });
    const childId = `${sessionId}.call_1_1_0`;
    const listed = (await listPendingApprovals(database().store())).approvals.filter((a) => a.path?.[0] === sessionId);
    expect(listed).toMatchObject([{ sessionId: childId, tool: "deploy", path: [sessionId, childId] }]);
    const record = await client.decide(
      {
        sessionId,
        callId: listed[0]!.callId,
        decision: { approve: true, by: "ana", session: childId },
        profile: "gated",
      },
      { timeoutMs: 20_000 },
    );
    expect(record).toMatchObject({ status: "done", outcome: { reason: "completed" } });
    expect(deployed).toEqual(["prod"]);
    const store = database().store();
    const parent = (await store.load(sessionId, { readOnly: true })).session;
    const child = (await store.load(childId, { readOnly: true })).session;
    expect(verifyLog(parent.events).issues).toEqual([]);
    expect(verifyLog(child.events).issues).toEqual([]);
    const result = parent.events.findLast((e) => e.type === "tool/result") as SessionEvent<"tool/result">;
    expect(result.data.content).toEqual([{ type: "text", text: "deployed it" }]);
    expect(await leaseOwner(database(), childId)).toBeNull();
  });
});
