// agent.streamAnswers (#23 §1/§2, what a UI sends): several decisions and answers to questions,
// checked first — any refusal throws (or fails the stream) and logs nothing, all or nothing —
// then logged together in ONE continuation turn, whose stream (like agent.stream's) the caller
// gets: the held calls run in model order and the model is called again.
import { describe, expect, test } from "vitest";
import { askUserTool } from "../../src/builtin-tools/index.js";
import { type Agent, ApprovalError, createAgent, type TurnEvent } from "../../src/loop/index.js";
import { writeAndBash } from "../support/approval-tools.js";
import { agentOptions, eventsOf, expectLogMatchesRequests, scripted } from "./support.js";

const ran: string[] = [];

const { write: writeTool, bash: bashTool } = writeAndBash(ran);

/** An agent whose model calls write, bash and ask_user in one step (all wait for a person), then says "done". */
async function paused(extra: Parameters<typeof agentOptions>[1] = {}) {
  ran.length = 0;
  const provider = scripted([
    {
      toolCalls: [
        { name: "write", arguments: { path: "b" } },
        { name: "bash", arguments: { command: "rm x" } },
        { name: "ask_user", arguments: { question: "Which region?", schema: { type: "string", enum: ["eu", "us"] } } },
      ],
    },
  ]);
  const agent = createAgent(agentOptions(provider, { tools: [writeTool, bashTool, askUserTool()], ...extra }));
  expect((await agent.send("go")).reason).toEqual({ kind: "awaiting-approval" });
  const [write, bash] = agent.pendingApprovals().map((p) => p.callId);
  const [question] = agent.pendingInputs().map((p) => p.id);
  return { agent, provider, write: write!, bash: bash!, question: question! };
}

async function drain(events: AsyncIterable<TurnEvent>): Promise<TurnEvent[]> {
  const out: TurnEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

function refusal(act: () => unknown): unknown {
  try {
    act();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

const logged = (agent: Agent) => agent.session.events.map((e) => e.type);

describe("agent.streamAnswers", () => {
  test("one continuation turn logs every answer in the order asked, runs the held calls and streams it all", async () => {
    const { agent, provider, write, bash, question } = await paused();
    const stream = agent.streamAnswers({
      responses: [{ id: question, value: "eu", by: "ana" }],
      decisions: [
        { callId: bash, approve: false, by: "ana", note: "no deletes" },
        { callId: write, approve: true, by: "ana" },
      ],
    });
    const events = await drain(stream);
    const outcome = await stream.outcome;
    expect(outcome.reason).toEqual({ kind: "completed" });
    expect(outcome.text).toBe("done");
    expect(ran).toEqual(["write b"]);
    // One turn (trigger approval) holds all three answers, in the order they were asked.
    expect(eventsOf(agent, "turn/start").map((e) => e.data.trigger)).toEqual(["send", "approval"]);
    const start = eventsOf(agent, "turn/start")[1]!.seq;
    expect(
      agent.session.events
        .filter((e) => e.seq > start && (e.type === "approval/decision" || e.type === "input/response"))
        .map((e) => e.type),
    ).toEqual(["approval/decision", "approval/decision", "input/response"]);
    // The stream is that turn's, from its turn-start to its turn-end.
    expect(events[0]).toMatchObject({ type: "turn-start", trigger: "approval", seq: start });
    expect(events.filter((e) => e.type === "approval-decision").map((e) => [e.callId, e.approve])).toEqual([
      [write, true],
      [bash, false],
    ]);
    expect(events.filter((e) => e.type === "input-response").map((e) => e.value)).toEqual(["eu"]);
    expect(events.filter((e) => e.type === "tool-result").map((e) => [e.callId, e.isError])).toEqual([
      [write, false],
      [bash, true],
      [question, false],
    ]);
    expect(events.at(-1)).toMatchObject({ type: "turn-end", reason: { kind: "completed" } });
    for (const e of events) if ("seq" in e) expect(agent.session.eventAt(e.seq)?.type).toBeDefined();
    expect(provider.requests).toHaveLength(2);
    expectLogMatchesRequests(agent, provider);
  });

  test("any refusal throws at once and logs nothing: the batch is all or nothing", async () => {
    const { agent, write, bash, question } = await paused();
    const before = logged(agent);
    const cases: [() => unknown, string, string][] = [
      [
        () =>
          agent.streamAnswers({
            decisions: [{ callId: write, approve: true }],
            responses: [{ id: question, value: "mars" }],
          }),
        "InputError",
        "invalid-value",
      ],
      [
        () =>
          agent.streamAnswers({
            decisions: [
              { callId: write, approve: true },
              { callId: "call_9_9_9", approve: true },
            ],
          }),
        "ApprovalError",
        "unknown-call",
      ],
      [
        () =>
          agent.streamAnswers({
            decisions: [
              { callId: write, approve: true },
              { callId: write, approve: false },
            ],
          }),
        "ApprovalError",
        "invalid-decision",
      ],
      [
        () => agent.streamAnswers({ decisions: [{ callId: bash, approve: "yes" as never }] }),
        "ApprovalError",
        "invalid-decision",
      ],
      [() => agent.streamAnswers({}), "LoopError", "invalid-options"],
      [() => agent.streamAnswers({ decisions: "all" as never }), "LoopError", "invalid-options"],
    ];
    for (const [act, name, code] of cases) expect(refusal(act)).toMatchObject({ name, code });
    expect(logged(agent)).toEqual(before);
    expect(agent.pendingApprovals()).toHaveLength(2);
    expect(agent.pendingInputs()).toHaveLength(1);
  });

  test("an approval/decide refusal fails the stream and its outcome, logging nothing; a later batch goes through", async () => {
    const { agent, write, bash, question } = await paused();
    const off = agent.hooks.on("approval/decide", async ({ decision }, next) =>
      decision.by === "mallory" ? { action: "refuse", reason: "not an approver" } : next(),
    );
    const before = logged(agent);
    const stream = agent.streamAnswers({
      decisions: [
        { callId: write, approve: true, by: "ana" },
        { callId: bash, approve: true, by: "mallory" },
      ],
      responses: [{ id: question, value: "us" }],
    });
    await expect(drain(stream)).rejects.toMatchObject({ name: "ApprovalError", code: "refused" });
    await expect(stream.outcome).rejects.toBeInstanceOf(ApprovalError);
    expect(logged(agent)).toEqual(before);
    off();
    const again = agent.streamAnswers({
      decisions: [
        { callId: write, approve: false },
        { callId: bash, approve: false },
      ],
      responses: [{ id: question, value: "us" }],
    });
    await drain(again);
    expect((await again.outcome).reason).toEqual({ kind: "completed" });
    expect(ran).toEqual([]);
  });

  test("two batches queued together: the one that lost the race is refused whole at claim time, its other answers unlogged", async () => {
    const { agent, write, bash, question } = await paused();
    const first = agent.streamAnswers({ decisions: [{ callId: write, approve: true }] });
    const second = agent.streamAnswers({
      decisions: [
        { callId: write, approve: false },
        { callId: bash, approve: true },
      ],
    });
    await expect(drain(second)).rejects.toMatchObject({ name: "ApprovalError", code: "already-decided" });
    await drain(first);
    expect((await first.outcome).reason).toEqual({ kind: "awaiting-approval" });
    expect(eventsOf(agent, "approval/decision").map((e) => e.data.callId)).toEqual([write]);
    expect(agent.pendingApprovals().map((p) => p.callId)).toEqual([bash]);
    // what is left can still be answered, by the same path
    const rest = agent.streamAnswers({
      decisions: [{ callId: bash, approve: true }],
      responses: [{ id: question, value: "eu" }],
    });
    await drain(rest);
    expect((await rest.outcome).reason).toEqual({ kind: "completed" });
    expect(ran).toEqual(["write b", "bash rm x"]);
  });

  test("decide and respond still answer one at a time; a disposed agent refuses", async () => {
    const { agent, write, bash, question } = await paused();
    expect((await agent.decide(write, { approve: true })).reason).toEqual({ kind: "awaiting-approval" });
    expect((await agent.decide(bash, { approve: false })).reason).toEqual({ kind: "awaiting-input" });
    const answer = await agent.respond(question, { value: "eu" });
    expect(answer.reason).toEqual({ kind: "completed" });
    const other = await paused();
    await other.agent.dispose();
    const stream = other.agent.streamAnswers({ responses: [{ id: other.question, value: "eu" }] });
    await expect(drain(stream)).rejects.toMatchObject({ name: "LoopError", code: "disposed" });
    await expect(other.agent.decide(other.write, { approve: true })).rejects.toMatchObject({ code: "disposed" });
  });
});
