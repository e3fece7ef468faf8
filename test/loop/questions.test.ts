// Questions to a person (#23 §2): a tool with a `question` (the built-in `ask_user`) logs
// `input/request` with the answer's schema; a live answerer replies at once, else the turn ends
// `awaiting-input`; `agent.respond(id, { value })` — here or in a resumed instance — validates the
// value against the schema, logs `input/response` and continues the turn: the tool gets the answer
// and the model sees it. Bad answers are typed `InputError`s and log nothing.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { z } from "zod";
import { askUserTool } from "../../src/builtin-tools/index.js";
import {
  type Agent,
  createAgent,
  InputError,
  resumeAgent,
  type TurnEvent,
  AskingCalls,
  committedTurnEvent,
} from "../../src/loop/index.js";
import type { SessionEvent } from "../../src/session/index.js";
import { verifyLog } from "../../src/reconstruct/index.js";
import { JsonlSessionStore } from "../../src/store/index.js";
import { defineTool } from "../../src/tools/index.js";
import { askingTool, deployTool, shipTool } from "../support/approval-tools.js";
import { agentOptions, eventsOf, expectLogMatchesRequests, scripted } from "./support.js";

const asking = (schema?: object) =>
  scripted([
    {
      toolCalls: [
        { name: "ask_user", arguments: { question: "Which region?", ...(schema === undefined ? {} : { schema }) } },
      ],
    },
  ]);

function askingAgent(extra: Parameters<typeof agentOptions>[1] = {}, schema?: object) {
  const provider = asking(schema);
  return { agent: createAgent(agentOptions(provider, { tools: [askUserTool()], ...extra })), provider };
}

async function thrown(p: Promise<unknown>): Promise<InputError> {
  const e = await p.then(
    () => undefined,
    (error: unknown) => error,
  );
  if (!(e instanceof InputError)) throw new Error(`expected an InputError, got ${String(e)}`);
  return e;
}

const toolResultText = (agent: Agent): string[] =>
  eventsOf(agent, "tool/result").map((e) => e.data.content.map((p) => (p.type === "text" ? p.text : "")).join(""));

describe("ask_user", () => {
  test("with nobody to answer the turn ends awaiting-input; respond continues it and the model reads the answer", async () => {
    const { agent, provider } = askingAgent();
    const outcome = await agent.send("deploy");
    expect(outcome.reason).toEqual({ kind: "awaiting-input" });
    const [question] = agent.pendingInputs();
    expect(question).toMatchObject({ source: "ask_user", message: "Which region?", schema: { type: "string" } });
    expect(eventsOf(agent, "tool/call")).toEqual([]);
    const done = await agent.respond(question!.id, { value: "eu-west-1", by: "ana" });
    expect(done.reason).toEqual({ kind: "completed" });
    expect(toolResultText(agent)).toEqual(["eu-west-1"]);
    const tool = provider.requests.at(-1)!.messages.at(-1)!;
    expect(tool.role).toBe("tool");
    expect(eventsOf(agent, "input/response").map((e) => e.data)).toEqual([
      { id: question!.id, value: "eu-west-1", by: "ana" },
    ]);
    expectLogMatchesRequests(agent, provider);
  });

  test("a live answerer replies at once; an answer that fails the schema counts as none", async () => {
    const { agent } = askingAgent({ answerer: async () => ({ value: "us-east-1", by: "live" }) });
    expect((await agent.send("deploy")).reason).toEqual({ kind: "completed" });
    expect(toolResultText(agent)).toEqual(["us-east-1"]);
    const bad = askingAgent({ answerer: async () => ({ value: 42 }) }).agent;
    expect((await bad.send("deploy")).reason).toEqual({ kind: "awaiting-input" });
  });

  test("a schema'd answer is checked: a wrong one is invalid-value and logs nothing, a right one reaches the tool as JSON", async () => {
    const schema = {
      type: "object",
      properties: { region: { type: "string", enum: ["eu", "us"] } },
      required: ["region"],
    };
    const { agent } = askingAgent({}, schema);
    await agent.send("deploy");
    const [question] = agent.pendingInputs();
    const length = agent.session.length;
    const error = await thrown(agent.respond(question!.id, { value: { region: "mars" } }));
    expect(error.code).toBe("invalid-value");
    expect(agent.session.length).toBe(length);
    await agent.respond(question!.id, { value: { region: "eu" } });
    expect(toolResultText(agent)).toEqual(['{"region":"eu"}']);
  });

  test("an answer (or a denial's note) far over the model's context window is refused, logging nothing", async () => {
    const provider = Object.assign(asking(), { contextWindow: () => 1_000 }); // refused over 1,250 tokens (~5,000 bytes)
    const agent = createAgent(agentOptions(provider, { tools: [askUserTool()] }));
    expect((await agent.send("deploy")).reason).toEqual({ kind: "awaiting-input" });
    const [question] = agent.pendingInputs();
    const before = agent.session.length;
    const error = await thrown(agent.respond(question!.id, { value: "x".repeat(6_000) }));
    expect(error).toMatchObject({
      code: "invalid-value",
      message: expect.stringMatching(/far over the model's 1,000-token context window/),
    });
    expect(agent.session.length).toBe(before);
    expect((await agent.respond(question!.id, { value: "eu-west-1" })).reason).toEqual({ kind: "completed" });
    const ran: string[] = [];
    const gated = createAgent(
      agentOptions(
        Object.assign(scripted([{ toolCalls: [{ name: "deploy", arguments: { target: "prod" } }] }]), {
          contextWindow: () => 1_000,
        }),
        { tools: [deployTool(ran)] },
      ),
    );
    expect((await gated.send("ship")).reason).toEqual({ kind: "awaiting-approval" });
    const [pending] = gated.pendingApprovals();
    const before2 = gated.session.length;
    const denied = gated.decide(pending!.callId, { approve: false, note: "y".repeat(6_000) }); // the model reads the note
    await expect(denied).rejects.toMatchObject({ code: "invalid-decision" });
    expect(gated.session.length).toBe(before2);
    expect((await gated.decide(pending!.callId, { approve: true })).reason.kind).toBe("completed");
    expect(ran).toEqual(["prod"]);
  });

  test("unknown id, a second answer, and an answer after cancel are typed errors that log nothing", async () => {
    const { agent } = askingAgent();
    await agent.send("deploy");
    const [question] = agent.pendingInputs();
    expect((await thrown(agent.respond("nope", { value: "x" }))).code).toBe("unknown-request");
    await agent.respond(question!.id, { value: "eu" });
    expect((await thrown(agent.respond(question!.id, { value: "us" }))).code).toBe("already-answered");

    const other = askingAgent().agent;
    await other.send("deploy");
    const [q2] = other.pendingInputs();
    other.cancel("never mind");
    await other.whenIdle();
    expect(eventsOf(other, "turn/end").at(-1)!.data.reason).toEqual({ kind: "aborted", reason: "never mind" });
    const length = other.session.length;
    expect((await thrown(other.respond(q2!.id, { value: "eu" }))).code).toBe("cancelled");
    expect(other.session.length).toBe(length);
    expect(verifyLog(other.session.events).ok).toBe(true);
  });

  test("a call that needs approval and asks a question: approval first, then the question", async () => {
    const ask = defineTool({
      name: "deploy",
      description: "Deploys where the person says.",
      input: z.object({}),
      needsApproval: true,
      question: () => ({ message: "Where to?" }),
      execute: (_args, { answer }) => `deployed to ${String(answer)}`,
    });
    const provider = scripted([{ toolCalls: [{ name: "deploy", arguments: {} }] }]);
    const agent = createAgent(agentOptions(provider, { tools: [ask] }));
    expect((await agent.send("go")).reason).toEqual({ kind: "awaiting-approval" });
    expect(agent.pendingInputs()).toEqual([]);
    const [approval] = agent.pendingApprovals();
    expect((await agent.decide(approval!.callId, { approve: true })).reason).toEqual({ kind: "awaiting-input" });
    const [question] = agent.pendingInputs();
    expect((await agent.respond(question!.id, { value: "prod" })).reason).toEqual({ kind: "completed" });
    expect(toolResultText(agent)).toEqual(["deployed to prod"]);
    expectLogMatchesRequests(agent, provider);
  });

  test("a question asked before its call runs carries the call (name, arguments) — in a continuation's stream and a follow", async () => {
    const ship = shipTool();
    const provider = scripted([{ toolCalls: [{ name: "ship", arguments: { what: "v2" } }] }]);
    const agent = createAgent(agentOptions(provider, { tools: [ship] }));
    await agent.send("go");
    const paused = agent.session.length - 1;
    const callId = agent.pendingApprovals()[0]!.callId;
    // The continuation's stream starts after the answer that holds the call: the event carries it.
    const events: TurnEvent[] = [];
    for await (const event of agent.streamAnswers({ decisions: [{ callId, approve: true }] })) events.push(event);
    const call = { name: "ship", arguments: JSON.stringify({ what: "v2" }) };
    expect(events.find((e) => e.type === "input-request")).toMatchObject({ id: callId, call });
    const followed: TurnEvent[] = [];
    for await (const event of agent.follow({ from: paused })) followed.push(event);
    expect(followed.find((e) => e.type === "input-request")).toMatchObject({ id: callId, call });
    // A question asked while a call runs names its call (`callId`) and carries none.
    const { agent: other } = askingAgent();
    const asked: TurnEvent[] = [];
    for await (const event of other.stream("deploy")) asked.push(event);
    expect(asked.find((e) => e.type === "input-request")).toMatchObject({
      source: "ask_user",
      call: { name: "ask_user" },
    });
  });

  test("AskingCalls: the call from the latest answer passed, or read back for once; without it at hand, as it was", () => {
    const answer = (seq: number, callId: string): SessionEvent =>
      ({
        seq,
        time: 0,
        type: "assistant/message",
        data: {
          turn: 1,
          step: 1,
          content: [
            { type: "text", text: "on it" },
            { type: "tool-call", callId, name: "ship", arguments: `{"n":${seq}}` },
          ],
        },
      }) as unknown as SessionEvent;
    const question = (seq: number, id = "c1") =>
      ({ type: "input-request", seq, id, source: "ship", schema: {}, message: "Where?" }) as const;
    const log = new Map<number, SessionEvent>([[4, answer(4, "c1")]]);
    for (let seq = 5; seq < 9; seq++)
      log.set(seq, { seq, time: 0, type: "tool/call", data: {} } as unknown as SessionEvent);
    // Started after the answer: read back for it once; a second question needs no second read.
    let reads = 0;
    const reader = new AskingCalls((seq) => {
      reads++;
      return log.get(seq);
    });
    expect(reader.pass(question(9))).toEqual({ ...question(9), call: { name: "ship", arguments: '{"n":4}' } });
    const afterFirst = reads;
    expect(reader.pass(question(10, "other"))).toEqual(question(10, "other")); // no such call in that answer
    expect(reads).toBe(afterFirst);
    // An answer passed in order replaces the one read back.
    const passed = committedTurnEvent(answer(11, "c2"));
    expect(reader.pass(passed)).toBe(passed);
    expect(reader.pass(question(12, "c2"))).toMatchObject({ call: { arguments: '{"n":11}' } });
    // The log before the question not at hand: as it was. A question asked while a call runs: as it was.
    expect(new AskingCalls((seq) => (seq > 6 ? log.get(seq) : undefined)).pass(question(9))).toEqual(question(9));
    const running = { ...question(9), id: "c1#ask-1", callId: "c1" };
    expect(new AskingCalls((seq) => log.get(seq)).pass(running)).toBe(running);
  });

  test("stream() carries the question and the answer with their seqs", async () => {
    const { agent } = askingAgent();
    const events: TurnEvent[] = [];
    for await (const event of agent.stream("deploy")) events.push(event);
    const request = events.find((e) => e.type === "input-request");
    expect(request).toMatchObject({ message: "Which region?", source: "ask_user" });
    expect(events.at(-1)).toMatchObject({ type: "turn-end", reason: { kind: "awaiting-input" } });
    await agent.respond(agent.pendingInputs()[0]!.id, { value: "eu" });
    const followed: TurnEvent[] = [];
    for await (const event of agent.follow({
      from: events.at(-1)!.type === "turn-end" ? (events.at(-1) as { seq: number }).seq : 0,
    }))
      followed.push(event);
    expect(followed.find((e) => e.type === "input-response")).toMatchObject({ value: "eu" });
  });
});

/** `region` asks while it runs (as an MCP server's elicitation does), then answers with what it was told. */
const region = askingTool();

/** A step that makes a `region` call (it asks while it runs) and a `deploy` call (it needs approval). */
function askingAndGated(store?: JsonlSessionStore) {
  const ran: string[] = [];
  const provider = scripted([
    {
      toolCalls: [
        { name: "region", arguments: {} },
        { name: "deploy", arguments: { target: "prod" } },
      ],
    },
  ]);
  const tools = [region, deployTool(ran)];
  const agent = createAgent(agentOptions(provider, { tools, ...(store === undefined ? {} : { store }) }));
  return { agent, provider, ran, tools };
}

describe("a question asked while a call runs, beside an approval", () => {
  // The question answered first used to end the answer's turn with the asking call closed as an
  // error ("Tool call not completed: the turn ended with an error.") while the approval still
  // waited: the answer was logged, and the call never ran with it.
  test("answered before the approval is decided: the call waits, then runs with the answer", async () => {
    const { agent, provider, ran } = askingAndGated();
    expect((await agent.send("go")).reason).toEqual({ kind: "awaiting-approval" });
    const [question] = agent.pendingInputs();
    const [approval] = agent.pendingApprovals();
    expect(question).toMatchObject({ source: "region", message: "Which region?" });
    expect((await agent.respond(question!.id, { value: "eu" })).reason).toEqual({ kind: "awaiting-approval" });
    expect(eventsOf(agent, "tool/result")).toEqual([]); // nothing ran, nothing was closed
    expect(verifyLog(agent.session.events).issues).toEqual([]);
    expect((await agent.decide(approval!.callId, { approve: true })).reason).toEqual({ kind: "completed" });
    expect(toolResultText(agent)).toEqual(["region eu", "deployed prod"]);
    expect(ran).toEqual(["prod"]);
    expect(verifyLog(agent.session.events).issues).toEqual([]);
    expectLogMatchesRequests(agent, provider);
  });

  test("decided before the question is answered: the same results, in model order", async () => {
    const { agent, ran } = askingAndGated();
    await agent.send("go");
    const [question] = agent.pendingInputs();
    const [approval] = agent.pendingApprovals();
    expect((await agent.decide(approval!.callId, { approve: true })).reason).toEqual({ kind: "awaiting-input" });
    expect((await agent.respond(question!.id, { value: "us" })).reason).toEqual({ kind: "completed" });
    expect(toolResultText(agent)).toEqual(["region us", "deployed prod"]);
    expect(ran).toEqual(["prod"]);
  });

  for (const answered of [true, false])
    test(`a cancel while both wait (the question ${answered ? "answered" : "not answered"}) closes both calls`, async () => {
      // With the question unanswered this cancel used to throw inside its turn (the held call's
      // tool/call came before the suspended call's result, against model order): turn 3 never ended.
      const { agent, ran } = askingAndGated();
      await agent.send("go");
      if (answered) await agent.respond(agent.pendingInputs()[0]!.id, { value: "eu" });
      agent.cancel("never mind");
      await agent.whenIdle();
      expect(eventsOf(agent, "turn/end").at(-1)!.data.reason).toEqual({ kind: "aborted", reason: "never mind" });
      expect(toolResultText(agent)).toEqual([
        "Tool call not completed: the turn was cancelled (never mind).",
        "Tool call not completed: the turn was cancelled (never mind).",
      ]);
      expect(eventsOf(agent, "input/response").map((e) => e.data.value)).toEqual(answered ? ["eu"] : []);
      expect([agent.pendingApprovals(), agent.pendingInputs()]).toEqual([[], []]);
      expect(ran).toEqual([]);
      expect(verifyLog(agent.session.events).issues).toEqual([]);
    });
});

describe("across a restart", () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "keelson-questions-"));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  test("the question survives a dispose and a resumed agent answers it", async () => {
    const store = new JsonlSessionStore({ root });
    const { agent } = askingAgent({ store });
    await agent.send("deploy");
    const [question] = agent.pendingInputs();
    await agent.dispose();
    const resumed = await resumeAgent(store, agent.session.id, agentOptions(scripted(), { tools: [askUserTool()] }));
    expect(resumed.pendingInputs().map((q) => q.id)).toEqual([question!.id]);
    const outcome = await resumed.respond(question!.id, { value: "ap-south-1" });
    expect(outcome).toMatchObject({ reason: { kind: "completed" }, saved: true });
    expect(toolResultText(resumed)).toEqual(["ap-south-1"]);
    await resumed.dispose();
    await store.close();
  });

  test("an answered question whose call waits behind an approval survives a dispose; the resumed agent runs it", async () => {
    const store = new JsonlSessionStore({ root });
    const { agent, tools } = askingAndGated(store);
    await agent.send("go");
    await agent.respond(agent.pendingInputs()[0]!.id, { value: "eu" });
    const [approval] = agent.pendingApprovals();
    await agent.dispose();
    const resumed = await resumeAgent(store, agent.session.id, agentOptions(scripted(), { tools }));
    expect(resumed.pendingApprovals().map((a) => a.callId)).toEqual([approval!.callId]);
    expect(eventsOf(resumed, "tool/result")).toEqual([]); // the load's repair closed nothing
    const outcome = await resumed.decide(approval!.callId, { approve: true });
    expect(outcome).toMatchObject({ reason: { kind: "completed" }, saved: true });
    expect(toolResultText(resumed)).toEqual(["region eu", "deployed prod"]);
    expect(verifyLog(resumed.session.events).issues).toEqual([]);
    await resumed.dispose();
    await store.close();
  });
});
