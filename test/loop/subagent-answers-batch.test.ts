// Answers for several subagents in one batch are all or nothing (#27 §1): `streamAnswers` (and
// `checkAnswers`) checks every answer — the parent's own and every child's, each in its child,
// recursively: ids known and pending, the right kind, a question's value valid for its schema —
// before anything is logged; a batch whose LAST answer is bad refuses with a typed error and
// leaves every log (parent and children) as it was. A good batch answers both children and the
// parent continues once.
import { describe, expect, test } from "vitest";
import { askUserTool } from "../../src/builtin-tools/index.js";
import { type Agent, type AnswerBatch, createAgent, subagentTool } from "../../src/loop/index.js";
import { verifyLog } from "../../src/reconstruct/index.js";
import { deployTool } from "../support/approval-tools.js";
import { delegateTool, scripted, useTempStore } from "../support/subagents.js";

const ran: string[] = [];
const store = useTempStore("keelson-subagent-batch-");

/**
 * A parent whose one step calls `research` (its child deploys: an approval) and `survey` (its
 * child asks the user: a question) — both children pause, the parent holds both calls.
 */
async function pausedParent(): Promise<{ agent: Agent; research: string; survey: string }> {
  ran.length = 0;
  const research = delegateTool("research", { name: "deploy", arguments: { target: "prod" } }, "deployed");
  const survey = delegateTool("survey", { name: "ask_user", arguments: { question: "Region?" } }, "noted");
  const calls = [
    { name: "research", arguments: { task: "a" } },
    { name: "survey", arguments: { task: "b" } },
  ];
  const agent = createAgent({
    provider: scripted([{ toolCalls: calls }], "all done"),
    model: "scripted:parent",
    tools: [deployTool(ran), askUserTool(), research, survey],
    store: store(),
  });
  const outcome = await agent.send("go");
  expect(outcome.reason.kind).toBe("awaiting-approval");
  const id = agent.session.id;
  return { agent, research: `${id}.call_1_1_0`, survey: `${id}.call_1_1_1` };
}

/** The stored length of every session: what "nothing was logged" compares. */
async function lengths(ids: readonly string[]): Promise<number[]> {
  const out: number[] = [];
  for (const id of ids) out.push((await store().load(id, { readOnly: true })).session.length);
  return out;
}

describe("a batch answering several children is checked whole before anything is logged", () => {
  const bad: [string, (research: string, survey: string) => AnswerBatch, string][] = [
    [
      "the last answer names a call the child does not have",
      (research, survey) => ({
        decisions: [
          { callId: "call_1_1_0", approve: true, session: research },
          { callId: "call_9_9_9", approve: true, session: survey },
        ],
      }),
      "unknown-call",
    ],
    [
      "the last answer's value does not match the child's question schema",
      (research, survey) => ({
        decisions: [{ callId: "call_1_1_0", approve: true, session: research }],
        responses: [{ id: "call_1_1_0", value: 42, session: survey }],
      }),
      "invalid-value",
    ],
    [
      "the last answer decides a question (the wrong kind)",
      (research, survey) => ({
        decisions: [
          { callId: "call_1_1_0", approve: true, session: research },
          { callId: "call_1_1_0", approve: true, session: survey },
        ],
      }),
      "not-pending",
    ],
  ];
  test.each(bad)("%s: typed refusal, every log unchanged, nothing ran", async (_name, batch, code) => {
    const { agent, research, survey } = await pausedParent();
    const ids = [agent.session.id, research, survey];
    await agent.flush();
    const before = await lengths(ids);
    await expect(agent.checkAnswers(batch(research, survey))).rejects.toMatchObject({ code });
    await expect(agent.streamAnswers(batch(research, survey)).outcome).rejects.toMatchObject({ code });
    expect(await lengths(ids)).toEqual(before);
    expect(agent.session.length).toBe(before[0]);
    expect(ran).toEqual([]);
    // Still answerable: both children's requests are pending as before.
    expect(
      agent
        .pendingApprovals()
        .filter((p) => p.path !== undefined)
        .map((p) => p.tool),
    ).toEqual(["deploy"]);
    expect(agent.pendingInputs().map((p) => p.source)).toEqual(["ask_user"]);
    await agent.dispose();
  });

  test("a good batch answers both children; the parent continues once", async () => {
    const { agent, research, survey } = await pausedParent();
    const batch: AnswerBatch = {
      decisions: [{ callId: "call_1_1_0", approve: true, session: research }],
      responses: [{ id: "call_1_1_0", value: "eu-west-1", session: survey }],
    };
    await agent.checkAnswers(batch);
    expect(agent.session.length).toBe((await lengths([agent.session.id]))[0]); // checking logged nothing
    const stream = agent.streamAnswers(batch);
    const outcome = await stream.outcome;
    expect(outcome.reason.kind).toBe("completed");
    expect(outcome.text).toBe("all done");
    // How far the parent's log is durable (its SSE ids): through the continuation's end, flushed.
    expect(stream.durableThrough?.()).toBe(agent.session.length - 1);
    expect(ran).toEqual(["prod"]);
    expect(agent.pendingApprovals()).toEqual([]);
    const continued = agent.session.events.filter((e) => e.type === "turn/start").map((e) => e.data);
    expect(continued).toEqual([
      { turn: 1, trigger: "send" },
      { turn: 2, trigger: "approval" },
    ]);
    await agent.dispose();
    for (const id of [agent.session.id, research, survey]) {
      const { session } = await store().load(id, { readOnly: true });
      expect(verifyLog(session.events).issues, id).toEqual([]);
    }
  });
});

describe("a batch's own answers are size-checked against this agent's model on the subagent path too", () => {
  test("an own answer far over the window beside a child's decision: checkAnswers and streamAnswers refuse it, nothing logged", async () => {
    ran.length = 0;
    const research = delegateTool("research", { name: "deploy", arguments: { target: "prod" } }, "deployed");
    const calls = [
      { name: "research", arguments: { task: "a" } }, // its child pauses on deploy's approval
      { name: "ask_user", arguments: { question: "Why?" } }, // the parent's own question
    ];
    const provider = Object.assign(scripted([{ toolCalls: calls }], "all done"), { contextWindow: () => 1_000 });
    const agent = createAgent({
      provider,
      model: "scripted:parent",
      tools: [deployTool(ran), askUserTool(), research],
      store: store(),
    });
    expect((await agent.send("go")).reason.kind).toBe("awaiting-approval");
    const child = `${agent.session.id}.call_1_1_0`;
    const batch = (value: string): AnswerBatch => ({
      decisions: [{ callId: "call_1_1_0", approve: true, session: child }],
      responses: [{ id: "call_1_1_1", value }],
    });
    await agent.flush();
    const before = await lengths([agent.session.id, child]);
    const huge = "v".repeat(6_000); // ~1,500 tokens: over 1.25 × 1,000
    await expect(agent.checkAnswers(batch(huge))).rejects.toMatchObject({ code: "invalid-value" });
    expect(() => agent.streamAnswers(batch(huge))).toThrow(expect.objectContaining({ code: "invalid-value" })); // own answers: at the call
    expect(await lengths([agent.session.id, child])).toEqual(before);
    expect(ran).toEqual([]);
    await agent.checkAnswers(batch("because")); // a fitting one passes
    await agent.dispose();
  });
});

describe("a child's answers are size-checked against the child's model before anything is logged", () => {
  test("a child's answer far over its model's window: checkAnswers and streamAnswers refuse it, every log unchanged", async () => {
    // The child runs on the tool's own provider, whose model has a 1,000-token window; the parent's knows none.
    const childProvider = Object.assign(
      scripted([{ toolCalls: [{ name: "ask_user", arguments: { question: "Region?" } }] }], "noted"),
      {
        contextWindow: () => 1_000,
      },
    );
    const survey = subagentTool({
      name: "survey",
      description: "Delegates to survey.",
      agent: { provider: childProvider },
    });
    const agent = createAgent({
      provider: scripted([{ toolCalls: [{ name: "survey", arguments: { task: "b" } }] }], "all done"),
      model: "scripted:parent",
      tools: [askUserTool(), survey],
      store: store(),
    });
    expect((await agent.send("go")).reason.kind).toBe("awaiting-approval");
    const child = `${agent.session.id}.call_1_1_0`;
    const batch = (value: string): AnswerBatch => ({ responses: [{ id: "call_1_1_0", value, session: child }] });
    await agent.flush();
    const before = await lengths([agent.session.id, child]);
    const huge = "v".repeat(6_000); // ~1,500 tokens: over 1.25 × 1,000
    await expect(agent.checkAnswers(batch(huge))).rejects.toMatchObject({ code: "invalid-value" });
    await expect(agent.streamAnswers(batch(huge)).outcome).rejects.toMatchObject({ code: "invalid-value" });
    expect(await lengths([agent.session.id, child])).toEqual(before);
    await agent.checkAnswers(batch("eu-west-1")); // a fitting one passes
    const outcome = await agent.streamAnswers(batch("eu-west-1")).outcome;
    expect(outcome.reason.kind).toBe("completed");
    await agent.dispose();
  });
});

describe("a child made from a profile is not size-checked against another model's window", () => {
  test("a small-window parent, a large-window profile child: a fitting answer to the child passes checkAnswers and streams", async () => {
    // Found in review: an unknown child model fell back to the parent's (a default parameter).
    const childProvider = Object.assign(
      scripted([{ toolCalls: [{ name: "ask_user", arguments: { question: "Region?" } }] }], "noted"),
      { contextWindow: () => 1_000_000 },
    );
    const survey = subagentTool({
      name: "survey",
      description: "Delegates to survey.",
      profile: { provider: childProvider, model: "scripted:child", tools: [askUserTool()] },
    });
    const agent = createAgent({
      provider: Object.assign(scripted([{ toolCalls: [{ name: "survey", arguments: { task: "b" } }] }], "all done"), {
        contextWindow: () => 1_000,
      }),
      model: "scripted:parent",
      tools: [askUserTool(), survey],
      store: store(),
    });
    expect((await agent.send("go")).reason.kind).toBe("awaiting-approval");
    const child = `${agent.session.id}.call_1_1_0`;
    const answer = "v".repeat(6_000); // ~1,500 tokens: far over the parent's window, nothing to the child's
    const batch: AnswerBatch = { responses: [{ id: "call_1_1_0", value: answer, session: child }] };
    await agent.checkAnswers(batch);
    expect((await agent.streamAnswers(batch).outcome).reason.kind).toBe("completed");
    await agent.dispose();
  });
});
