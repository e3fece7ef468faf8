// Approvals in the fleet (#23 §1): a turn that ends awaiting-approval is recorded done with that
// outcome and releases its lease; a decision is queued as a continuation any worker runs (the
// same one queued again is that continuation: test/fleet/queued-answers.test.ts); when two
// decisions for one call are queued, exactly one is logged and runs the tool, the other is
// recorded failed with `already-decided` (nothing logged), and `FleetClient.decide` rejects
// with that ApprovalError.
import { describe, expect, test } from "vitest";
import { EmulatorProvider } from "../../src/emulator/index.js";
import type { AgentProfile } from "../../src/fleet/index.js";
import { askUserTool } from "../../src/builtin-tools/index.js";
import { ApprovalError, InputError } from "../../src/loop/index.js";
import { verifyLog } from "../../src/reconstruct/index.js";
import { leaseOwner, useFleetDatabase } from "./fleet-harness.js";

const database = useFleetDatabase();

/** How many times the guarded tool ran, per session. */
const ran = new Map<string, number>();

const answer = (request: { readonly messages: readonly { readonly role: string }[] }) =>
  request.messages.at(-1)?.role === "tool"
    ? { text: "finished" }
    : { text: "deploying", toolCalls: [{ name: "deploy", arguments: { target: "prod" } }] };

const asking = (request: { readonly messages: readonly { readonly role: string }[] }) =>
  request.messages.at(-1)?.role === "tool"
    ? { text: "noted" }
    : { toolCalls: [{ name: "ask_user", arguments: { question: "Which region?" } }] };

const profiles: Record<string, AgentProfile> = {
  asking: {
    provider: () => new EmulatorProvider({ model: asking }),
    model: "emulator:asking",
    tools: [askUserTool()],
    options: { invariants: true, maxSteps: 4 },
  },
  gated: {
    provider: () => new EmulatorProvider({ model: answer }),
    model: "emulator:gated",
    tools: [
      {
        name: "deploy",
        description: "Deploys (needs approval).",
        input: { type: "object", properties: { target: { type: "string" } } },
        needsApproval: true,
        execute: (_args, { sessionId }) => {
          ran.set(sessionId, (ran.get(sessionId) ?? 0) + 1);
          return "deployed";
        },
      },
    ],
    options: { invariants: true, maxSteps: 4 },
  },
};

describe("approvals in the fleet", () => {
  test("a paused turn is done/awaiting-approval with its lease released; one of two racing decisions wins", async () => {
    const first = await database().worker({ profiles });
    const client = await database().client();
    const sessionId = "approve-race";
    const paused = await client.awaitTurn(await client.enqueueTurn({ sessionId, prompt: "ship", profile: "gated" }), {
      timeoutMs: 20_000,
    });
    expect(paused).toMatchObject({ status: "done", outcome: { reason: "awaiting-approval", saved: true } });
    expect(await leaseOwner(database(), sessionId)).toBeNull();
    await first.stop();
    const { session } = await database().store().load(sessionId, { readOnly: true });
    const [pending] = session.pendingApprovals();
    expect(pending).toMatchObject({ tool: "deploy" });

    // The same decision queued again while the first waits (a page reloaded and answered again)
    // is that continuation; two enqueues at the same instant can both insert (neither sees the
    // other's uncommitted row) — the row such a pair leaves is inserted here directly — and two
    // workers then race on them.
    const decide = (by: string) =>
      client.enqueueDecision({ sessionId, callId: pending!.callId, decision: { approve: true, by }, profile: "gated" });
    const queued = await decide("ana");
    expect(await decide("bo")).toBe(queued);
    const [raced] = await database().query<{ id: string }>(
      "INSERT INTO keelson_turns (session_id, prompt, profile, decision) VALUES ($1, $2, 'gated', $3::jsonb) RETURNING id::text AS id",
      [sessionId, `approve ${pending!.callId}`, JSON.stringify({ callId: pending!.callId, approve: true, by: "bo" })],
    );
    const ids = [queued, raced!.id];
    await database().worker({ profiles });
    await database().worker({ profiles });
    const records = await Promise.all(ids.map((id) => client.awaitTurn(id, { timeoutMs: 20_000 })));
    expect(records.map((r) => r.status)).toEqual(["done", "failed"]); // FIFO per session: the first queued wins
    expect(records[0]).toMatchObject({ outcome: { reason: "completed" } });
    expect(records[1]).toMatchObject({ errorCode: "already-decided", decision: { callId: pending!.callId } });
    expect(ran.get(sessionId)).toBe(1);

    const log = (await database().store().load(sessionId, { readOnly: true })).session.events;
    expect(verifyLog(log).issues).toEqual([]);
    expect(log.filter((e) => e.type === "approval/decision")).toHaveLength(1);
    const error = await client
      .decide({ sessionId, callId: pending!.callId, decision: { approve: false }, profile: "gated" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApprovalError);
    expect((error as ApprovalError).code).toBe("already-decided");
  });

  test("a prompt queued while the session awaits approval is failed awaiting-approval; a denial continues the turn", async () => {
    await database().worker({ profiles });
    const client = await database().client();
    const sessionId = "approve-deny";
    await client.awaitTurn(await client.enqueueTurn({ sessionId, prompt: "ship", profile: "gated" }), {
      timeoutMs: 20_000,
    });
    const refused = await client.awaitTurn(
      await client.enqueueTurn({ sessionId, prompt: "anything else?", profile: "gated" }),
      { timeoutMs: 20_000 },
    );
    expect(refused).toMatchObject({ status: "failed", errorCode: "awaiting-approval" });
    const { session } = await database().store().load(sessionId, { readOnly: true });
    const [pending] = session.pendingApprovals();
    const record = await client.decide(
      { sessionId, callId: pending!.callId, decision: { approve: false, note: "frozen" }, profile: "gated" },
      { timeoutMs: 20_000 },
    );
    expect(record).toMatchObject({ status: "done", outcome: { reason: "completed" } });
    expect(ran.get(sessionId)).toBeUndefined();
  });

  test("a prompt that could never fit the model's window is failed prompt-too-large (logged nothing); the session goes on", async () => {
    const small: AgentProfile = {
      provider: () => new EmulatorProvider({ model: () => ({ text: "ok" }), contextWindow: 1_000 }),
      model: "emulator:small",
      options: { invariants: true },
    };
    await database().worker({ profiles: { small } });
    const client = await database().client();
    const sessionId = "too-large";
    const huge = await client.awaitTurn(
      await client.enqueueTurn({ sessionId, prompt: "x".repeat(6_000), profile: "small" }),
      { timeoutMs: 20_000 },
    );
    expect(huge).toMatchObject({ status: "failed", errorCode: "prompt-too-large" });
    expect(huge.error).toMatch(
      /^the prompt is about 1,500 tokens \(estimated\), far over the 1,000-token context window/,
    );
    const next = await client.awaitTurn(await client.enqueueTurn({ sessionId, prompt: "hello", profile: "small" }), {
      timeoutMs: 20_000,
    });
    expect(next).toMatchObject({ status: "done", outcome: { reason: "completed" } });
    const { session } = await database().store().load(sessionId, { readOnly: true });
    expect(session.events.filter((e) => e.type === "user/message")).toHaveLength(1);
  });

  test("a question (ask_user) is answered through the queue; a bad answer is refused before anything is queued", async () => {
    await database().worker({ profiles });
    const client = await database().client();
    const sessionId = "ask-fleet";
    const first = await client.awaitTurn(await client.enqueueTurn({ sessionId, prompt: "go", profile: "asking" }), {
      timeoutMs: 20_000,
    });
    expect(first).toMatchObject({ status: "done", outcome: { reason: "awaiting-input" } });
    const { session } = await database().store().load(sessionId, { readOnly: true });
    const [question] = session.pendingInputs();
    const bad = await client
      .enqueueResponse({ sessionId, id: question!.id, answer: { value: 7 }, profile: "asking" })
      .catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(InputError);
    expect((bad as InputError).code).toBe("invalid-value");
    const id = await client.enqueueResponse({
      sessionId,
      id: question!.id,
      answer: { value: "eu", by: "ana" },
      profile: "asking",
    });
    const record = await client.awaitTurn(id, { timeoutMs: 20_000 });
    expect(record).toMatchObject({ status: "done", outcome: { reason: "completed" }, decision: { kind: "response" } });
    const log = (await database().store().load(sessionId, { readOnly: true })).session.events;
    expect(log.filter((e) => e.type === "input/response").map((e) => e.data)).toEqual([
      { id: question!.id, value: "eu", by: "ana" },
    ]);
  });
});
