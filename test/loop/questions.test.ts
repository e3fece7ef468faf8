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
import { type Agent, createAgent, InputError, resumeAgent, type TurnEvent } from "../../src/loop/index.js";
import { verifyLog } from "../../src/reconstruct/index.js";
import { JsonlSessionStore } from "../../src/store/index.js";
import { defineTool } from "../../src/tools/index.js";
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
});
