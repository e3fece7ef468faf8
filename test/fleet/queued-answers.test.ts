// Answers queued while no worker has run them yet (a page reloaded and answered again, a retried
// request): the same decision or answer queued again is the continuation already queued (its
// turn id, no second row); a different one is refused at once (`already-decided` /
// `already-answered`, nothing queued). `client.openTurns(id)` lists the session's queued and
// running turns with their decisions, which `uiMessagesFromLog(log, { queuedAnswers })` shows on
// the parts they answer until a worker logs them. Enqueues at the same instant are serialized
// per session: one row, the others its turn or refused at once; the tool runs at most once. A question asked while a call
// runs and an approval beside it, answered as two queued continuations: the call runs with its answer.
import pg from "pg";
import { describe, expect, test } from "vitest";
import { askUserTool } from "../../src/builtin-tools/index.js";
import { EmulatorProvider } from "../../src/emulator/index.js";
import { type AgentProfile, FleetError } from "../../src/fleet/index.js";
import { ApprovalError, type ApprovalDecision, InputError, type TurnEvent } from "../../src/loop/index.js";
import { verifyLog } from "../../src/reconstruct/index.js";
import { openTurnFrom, toUIMessageStream, uiMessagesFromLog } from "../../src/serve/index.js";
import { collect } from "../serve/support.js";
import { askingTool, deployTool, shipTool } from "../support/approval-tools.js";
import { ENQUEUE_DECISION, LOCK_SESSION_ANSWERS } from "../../src/fleet/turn-queries.js";
import { useFleetDatabase } from "./fleet-harness.js";

const database = useFleetDatabase();
/** What the deploy tool ran (emptied as each test pauses its session). */
const ran: string[] = [];
type Request = { readonly messages: readonly { readonly role: string }[] };

const profiles: Record<string, AgentProfile> = {
  gated: {
    provider: () =>
      new EmulatorProvider({
        model: (request: Request) =>
          request.messages.at(-1)?.role === "tool"
            ? { text: "finished" }
            : { text: "deploying", toolCalls: [{ name: "deploy", arguments: { target: "prod" } }] },
      }),
    model: "emulator:gated",
    tools: [deployTool(ran)],
    options: { invariants: true, maxSteps: 4 },
  },
  asking: {
    provider: () =>
      new EmulatorProvider({
        model: (request: Request) =>
          request.messages.at(-1)?.role === "tool"
            ? { text: "noted" }
            : { toolCalls: [{ name: "ask_user", arguments: { question: "Which region?" } }] },
      }),
    model: "emulator:asking",
    tools: [askUserTool()],
    options: { invariants: true, maxSteps: 4 },
  },
  plain: {
    provider: () => new EmulatorProvider({ model: () => ({ text: "sure" }) }),
    model: "emulator:plain",
    options: { invariants: true, maxSteps: 2 },
  },
  // A call that needs approval and, approved, asks where to before it runs.
  shipping: {
    provider: () =>
      new EmulatorProvider({
        model: (request: Request) =>
          request.messages.at(-1)?.role === "tool"
            ? { text: "shipped" }
            : { toolCalls: [{ name: "ship", arguments: { what: "v2" } }] },
      }),
    model: "emulator:shipping",
    tools: [shipTool()],
    options: { invariants: true, maxSteps: 4 },
  },
  // A step with a call that asks while it runs (an MCP elicitation does) and one that needs approval.
  both: {
    provider: () =>
      new EmulatorProvider({
        model: (request: Request) =>
          request.messages.at(-1)?.role === "tool"
            ? { text: "shipped" }
            : {
                toolCalls: [
                  { name: "region", arguments: {} },
                  { name: "deploy", arguments: { target: "prod" } },
                ],
              },
      }),
    model: "emulator:both",
    tools: [askingTool(), deployTool(ran)],
    options: { invariants: true, maxSteps: 4 },
  },
};

/** Runs `prompt` on a worker of `profile` until the session pauses, then stops that worker (continuations stay queued). */
async function paused(sessionId: string, profile: string) {
  const worker = await database().worker({ profiles });
  const client = await database().client();
  const record = await client.awaitTurn(await client.enqueueTurn({ sessionId, prompt: "go", profile }), {
    timeoutMs: 20_000,
  });
  expect(record.status).toBe("done");
  await worker.stop();
  ran.length = 0;
  const { session } = await database().store().load(sessionId, { readOnly: true });
  return { client, session };
}

const rowsOf = async (sessionId: string): Promise<number> =>
  (await database().query("SELECT 1 FROM keelson_turns WHERE session_id = $1", [sessionId])).length;

const refusal = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => "accepted",
    (e: unknown) => e,
  );

describe("queued answers", () => {
  test("a decision queued again is that continuation; another is refused at once; openTurns lists it for the page", async () => {
    const sessionId = "queued-decision";
    const { client, session } = await paused(sessionId, "gated");
    const [pending] = session.pendingApprovals();
    const callId = pending!.callId;
    expect(await client.openTurns(sessionId)).toEqual([]);

    const decide = (decision: ApprovalDecision) =>
      client.enqueueDecision({ sessionId, callId, decision, profile: "gated" });
    const first = await decide({ approve: true, by: "ana", note: "go ahead" });
    expect(await decide({ approve: true, by: "bo" })).toBe(first);
    const denied = await refusal(decide({ approve: false, by: "bo" }));
    expect(denied).toBeInstanceOf(ApprovalError);
    expect((denied as ApprovalError).code).toBe("already-decided");
    expect((denied as Error).message).toContain(`an approval queued already (turn ${first}`);
    const edited = await refusal(decide({ approve: true, arguments: { target: "staging" } }));
    expect((edited as ApprovalError).code).toBe("already-decided");
    expect((edited as Error).message).toContain("with other arguments");
    expect(await rowsOf(sessionId)).toBe(2); // the paused turn and one continuation

    const open = await client.openTurns(sessionId);
    expect(open).toMatchObject([
      { id: first, status: "queued", decision: { callId, approve: true, by: "ana", note: "go ahead" } },
    ]);
    const queuedAnswers = open.flatMap((t) => t.decision ?? []);
    const deployPart = (log = session) =>
      uiMessagesFromLog(log, { queuedAnswers })
        .at(-1)!
        .parts.find((p) => p.type === "tool-deploy");
    expect(deployPart()).toMatchObject({
      state: "approval-responded",
      approval: { id: callId, approved: true, reason: "go ahead" },
    });

    await database().worker({ profiles });
    const record = await client.awaitTurn(first, { timeoutMs: 20_000 });
    expect(record).toMatchObject({ status: "done", outcome: { reason: "completed" } });
    expect(ran).toEqual(["prod"]);
    expect(await client.openTurns(sessionId)).toEqual([]);
    const after = (await database().store().load(sessionId, { readOnly: true })).session;
    expect(deployPart(after)).toMatchObject({ state: "output-available", output: "deployed prod" });
    expect(verifyLog(after.events).issues).toEqual([]);
  });

  test("an answer queued again is that continuation; another answer is refused at once", async () => {
    const sessionId = "queued-answer";
    const { client, session } = await paused(sessionId, "asking");
    const [question] = session.pendingInputs();
    const answer = (value: unknown, by: string) =>
      client.enqueueResponse({
        sessionId,
        id: question!.id,
        answer: { value: value as string, by },
        profile: "asking",
      });
    const first = await answer("eu", "ana");
    expect(await answer("eu", "bo")).toBe(first);
    const other = await refusal(answer("us", "bo"));
    expect(other).toBeInstanceOf(InputError);
    expect((other as InputError).code).toBe("already-answered");
    expect(await rowsOf(sessionId)).toBe(2);
    const queuedAnswers = (await client.openTurns(sessionId)).flatMap((t) => t.decision ?? []);
    const part = uiMessagesFromLog(session, { queuedAnswers })
      .at(-1)!
      .parts.find((p) => "toolCallId" in p && p.toolCallId === question!.id);
    expect(part).toMatchObject({ state: "output-available", output: "eu" });

    await database().worker({ profiles });
    expect(await client.awaitTurn(first, { timeoutMs: 20_000 })).toMatchObject({
      status: "done",
      outcome: { reason: "completed" },
    });
    const log = (await database().store().load(sessionId, { readOnly: true })).session.events;
    expect(log.filter((e) => e.type === "input/response").map((e) => e.data)).toEqual([
      { id: question!.id, value: "eu", by: "ana" },
    ]);
  });

  test("clients deciding differently at the same instant: the first queued wins, the rest are its turn or refused at once", async () => {
    const sessionId = "queued-race";
    const { session } = await paused(sessionId, "gated");
    const callId = session.pendingApprovals()[0]!.callId;
    const clients = await Promise.all([0, 1, 2, 3, 4, 5].map(() => database().client()));
    const settled = await Promise.allSettled(
      clients.map((client, i) =>
        client.enqueueDecision({
          sessionId,
          callId,
          decision: { approve: i % 2 === 0, by: `person ${i}` },
          profile: "gated",
        }),
      ),
    );
    // One row: every enqueue that decided as it did returns its id, every other is refused now.
    const ids = new Set(settled.flatMap((s) => (s.status === "fulfilled" ? [s.value] : [])));
    expect(ids.size).toBe(1);
    const accepted = settled.map((s) => s.status === "fulfilled");
    expect(accepted.filter((a) => a)).toHaveLength(3);
    expect(new Set(accepted.filter((_, i) => i % 2 === 0)).size).toBe(1); // the approvals all alike
    for (const s of settled)
      if (s.status === "rejected") expect((s.reason as ApprovalError).code).toBe("already-decided");
    expect(await rowsOf(sessionId)).toBe(2); // the paused turn and the one continuation
    await database().worker({ profiles });
    const record = await clients[0]!.awaitTurn([...ids][0]!, { timeoutMs: 20_000 });
    expect(record.status).toBe("done");
    const log = (await database().store().load(sessionId, { readOnly: true })).session.events;
    expect(log.filter((e) => e.type === "approval/decision")).toHaveLength(1);
    expect(ran.length).toBe(accepted[0] ? 1 : 0);
    expect(verifyLog(log).issues).toEqual([]);
  });

  test("the race itself: a second enqueue waits for the first's commit and sees its row (without the lock it would insert too)", async () => {
    const sessionId = "queued-lock";
    const { session } = await paused(sessionId, "gated");
    const callId = session.pendingApprovals()[0]!.callId;
    const params = (approve: boolean) => [
      sessionId,
      `${approve ? "approve" : "deny"} ${callId}`,
      "gated",
      JSON.stringify({ callId, approve }),
      "decision",
      callId,
      null,
    ];
    const [a, b] = [
      new pg.Client({ connectionString: database().url }),
      new pg.Client({ connectionString: database().url }),
    ];
    await Promise.all([a.connect(), b.connect()]);
    try {
      // Control: two transactions that do not take the lock both insert (neither sees the other's row).
      await a.query("BEGIN");
      await b.query("BEGIN");
      expect((await a.query(ENQUEUE_DECISION, params(true))).rows[0].earlier).toBeNull();
      expect((await b.query(ENQUEUE_DECISION, params(false))).rows[0].earlier).toBeNull();
      await Promise.all([a.query("ROLLBACK"), b.query("ROLLBACK")]);
      // With the lock, as enqueueDecision runs it: the second waits, then finds the first.
      await a.query("BEGIN");
      await b.query("BEGIN");
      await a.query(LOCK_SESSION_ANSWERS, [sessionId]);
      const first = (await a.query(ENQUEUE_DECISION, params(true))).rows[0];
      let locked = false;
      const second = b.query(LOCK_SESSION_ANSWERS, [sessionId]).then(async () => {
        locked = true;
        return (await b.query(ENQUEUE_DECISION, params(false))).rows[0];
      });
      await new Promise((resolve) => setImmediate(resolve));
      expect(locked).toBe(false);
      await a.query("COMMIT");
      const row = await second;
      await b.query("COMMIT");
      expect(first.earlier).toBeNull();
      expect(row).toMatchObject({ id: first.id, earlier: { callId, approve: true } });
      expect(await rowsOf(sessionId)).toBe(2);
    } finally {
      await Promise.all([a.end(), b.end()]);
    }
  });

  test("openTurns: an unknown session has none; an id no session can have is not-found", async () => {
    const client = await database().client();
    expect(await client.openTurns("nobody-here")).toEqual([]);
    const error = await refusal(client.openTurns("../etc/passwd"));
    expect(error).toBeInstanceOf(FleetError);
    expect((error as FleetError).code).toBe("not-found");
  });

  test("a question asked while a call runs and an approval, answered as two queued continuations: the call runs with its answer", async () => {
    const sessionId = "queued-both";
    const { client, session } = await paused(sessionId, "both");
    const [question] = session.pendingInputs();
    const [approval] = session.pendingApprovals();
    // The answer first: its continuation logs it and pauses again for the approval, the asking
    // call kept (it was closed as an error once, and never ran with the answer).
    const answered = await client.enqueueResponse({
      sessionId,
      id: question!.id,
      answer: { value: "eu" },
      profile: "both",
    });
    const decided = await client.enqueueDecision({
      sessionId,
      callId: approval!.callId,
      decision: { approve: true, by: "page" },
      profile: "both",
    });
    await database().worker({ profiles });
    expect(await client.awaitTurn(answered, { timeoutMs: 20_000 })).toMatchObject({
      outcome: { reason: "awaiting-approval" },
    });
    expect(await client.awaitTurn(decided, { timeoutMs: 20_000 })).toMatchObject({ outcome: { reason: "completed" } });
    const log = (await database().store().load(sessionId, { readOnly: true })).session.events;
    const results = log.flatMap((e) =>
      e.type === "tool/result" ? [(e.data as { content: { text: string }[] }).content[0]!.text] : [],
    );
    expect(results).toEqual(["region eu", "deployed prod"]);
    expect(ran).toEqual(["prod"]);
    expect(verifyLog(log).issues).toEqual([]);
  });

  test("a call that asks only once approved: a follow of the paused message marks its part asking, live and from the log", async () => {
    const sessionId = "queued-ship";
    const { client, session } = await paused(sessionId, "shipping");
    const callId = session.pendingApprovals()[0]!.callId;
    const from = openTurnFrom(session, { queued: true })!;
    const continuation = await client.enqueueDecision({
      sessionId,
      callId,
      decision: { approve: true, by: "page" },
      profile: "shipping",
    });
    // A page's stream of the paused message into its continuation (queued), while a worker runs it.
    const following = collect(toUIMessageStream(client.streamSession(sessionId, { from })));
    await database().worker({ profiles });
    const live = await following;
    const asking = (chunks: readonly { type: string }[]) =>
      chunks.filter((c) => c.type === "tool-input-available" && (c as { toolCallId?: string }).toolCallId === callId);
    const marked = {
      input: { what: "v2" },
      providerMetadata: { keelson: { question: { message: "Where should v2 go?" } } },
    };
    expect(asking(live).at(-1)).toMatchObject(marked);
    // The same from the log alone (the worker done): the follower read the answer before the question.
    const stored = await collect(toUIMessageStream(client.streamSession(sessionId, { from })));
    expect(asking(stored).at(-1)).toMatchObject(marked);
    // A follower of the continuation alone starts after the answer that holds the call (it is the
    // paused turn's): it reads back for it, so the question still names its call.
    const events: TurnEvent[] = [];
    for await (const event of client.stream(continuation)) events.push(event);
    expect(events.find((e) => e.type === "input-request")).toMatchObject({
      id: callId,
      call: { name: "ship", arguments: '{"what":"v2"}' },
    });
    const log = (await database().store().load(sessionId, { readOnly: true })).session;
    expect(
      uiMessagesFromLog(log)
        .at(-1)!
        .parts.find((p) => p.type === "tool-ship"),
    ).toMatchObject({
      state: "input-available",
      callProviderMetadata: { keelson: { question: { message: "Where should v2 go?" } } },
    });
  });

  test("a page reloaded while its prompt waits for a worker: the prompt shows after the log's messages (queuedPrompts)", async () => {
    const sessionId = "queued-prompt";
    const { client, session } = await paused(sessionId, "plain");
    const turnId = await client.enqueueTurn({ sessionId, prompt: "and then?", profile: "plain" });
    const open = await client.openTurns(sessionId);
    const reloaded = uiMessagesFromLog(session, { queuedPrompts: open });
    expect(reloaded.slice(0, -1)).toEqual(uiMessagesFromLog(session));
    expect(reloaded.at(-1)).toEqual({
      id: `queued-${turnId}`,
      role: "user",
      parts: [{ type: "text", text: "and then?" }],
    });
    await database().worker({ profiles });
    expect(await client.awaitTurn(turnId, { timeoutMs: 20_000 })).toMatchObject({ status: "done" });
    const after = (await database().store().load(sessionId, { readOnly: true })).session;
    const messages = uiMessagesFromLog(after, { queuedPrompts: await client.openTurns(sessionId) });
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(messages.at(-2)!.parts).toEqual([{ type: "text", text: "and then?" }]);
  });
});
