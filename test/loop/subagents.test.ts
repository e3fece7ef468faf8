// Subagents (#27 §1, P30): a subagent tool's call runs a child agent in a session of its own in
// the parent's store — meta `spawnedBy`, id `<parent>.<callId>` — to the end of one turn, and
// the call's result is the child's final text (or structured output) naming the child in
// `meta.subagent`. Only that result lands in the parent: its next request extends the previous.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { z } from "zod";
import { ScriptedProvider, type ScriptedStep } from "../../src/llm/index.js";
import {
  type Agent,
  ApprovalError,
  createAgent,
  resumeAgent,
  subagentTool,
  type TurnEvent,
  type TurnOutcome,
} from "../../src/loop/index.js";
import { cacheReport } from "../../src/audit/index.js";
import { verifyLog } from "../../src/reconstruct/index.js";
import type { SessionEvent } from "../../src/session/index.js";
import { JsonlSessionStore, listPendingApprovals } from "../../src/store/index.js";
import { defineTool } from "../../src/tools/index.js";
import { askingTool, deployTool } from "../support/approval-tools.js";
import { fixedClock } from "../support/builders.js";
import { deferred } from "../support/deferred.js";
import { eventsOf, expectLogMatchesRequests, readTool, turnEnds } from "./support.js";

let root: string;
let store: JsonlSessionStore;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "keelson-subagents-"));
  store = new JsonlSessionStore({ root });
});

afterEach(async () => {
  await store.close();
  rmSync(root, { recursive: true, force: true });
});

const model = (steps: readonly ScriptedStep[]): ScriptedProvider =>
  new ScriptedProvider(steps, { fallback: { text: "done" } });

const research = (child: ScriptedProvider, extra: Partial<Parameters<typeof subagentTool>[0]> = {}) =>
  subagentTool({ name: "research", description: "Researches a question.", agent: { provider: child }, ...extra });

function parentAgent(provider: ScriptedProvider, tools = [readTool, research(model([]))], extra = {}): Agent {
  return createAgent({
    provider,
    model: "scripted:parent",
    system: "You delegate.",
    tools,
    store,
    clock: fixedClock(),
    ...extra,
  });
}

const resultOf = (agent: Agent, callId: string): SessionEvent<"tool/result">["data"] =>
  eventsOf(agent, "tool/result").find((e) => e.data.callId === callId)!.data;

describe("a subagent call", () => {
  test("runs a child session in the parent's store and returns its final text as the tool result", async () => {
    const child = model([
      { toolCalls: [{ name: "read", arguments: { path: "notes.txt" } }] },
      { text: "notes say 42" },
    ]);
    const parent = model([{ toolCalls: [{ name: "research", arguments: { task: "What do the notes say?" } }] }]);
    const agent = parentAgent(parent, [readTool, research(child)]);
    const outcome = await agent.send("Find out.");
    expect(outcome.reason).toEqual({ kind: "completed" });
    const childId = `${agent.session.id}.call_1_1_0`;
    const result = resultOf(agent, "call_1_1_0");
    expect(result.content).toEqual([{ type: "text", text: "notes say 42" }]);
    expect(result.isError).toBe(false);
    expect(result.meta).toMatchObject({ subagent: { session: childId, turn: 1, reason: "completed" } });
    // The child: its own log in the same store, pointing back at the call.
    const { session: stored } = await store.load(childId, { readOnly: true });
    expect(stored.header.spawnedBy).toEqual({ session: agent.session.id, callId: "call_1_1_0" });
    expect(verifyLog(stored.events).issues).toEqual([]);
    expect(stored.events.filter((e) => e.type === "tool/call").map((e) => (e.data as { name: string }).name)).toEqual([
      "read",
    ]);
    // It got the task as its prompt, and the parent's read tool (as the parent's definition).
    expect(child.requests[0]!.messages[0]).toEqual({
      role: "user",
      content: [{ type: "text", text: "What do the notes say?" }],
    });
    expect(child.requests[0]!.tools?.map((t) => t.name)).toEqual(["read"]);
    expectLogMatchesRequests(agent, parent);
    await agent.dispose();
  });

  test("an empty or blank task is an error result; no child session is created and no child request sent", async () => {
    const child = model([]);
    const parent = model([{ toolCalls: [{ name: "research", arguments: { task: "  " } }] }]);
    const agent = parentAgent(parent, [readTool, research(child)]);
    expect((await agent.send("Find out.")).reason).toEqual({ kind: "completed" });
    const result = resultOf(agent, "call_1_1_0");
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toMatch(/could not start: .*the task is empty/);
    expect(child.requests).toHaveLength(0);
    expect((await store.list()).map((s) => s.id)).toEqual([agent.session.id]);
    await agent.dispose();
  });

  test("lands only its result in the parent: the parent's next request extends the previous one", async () => {
    const child = model([{ text: "a long investigation, summarized" }]);
    const parent = model([{ toolCalls: [{ name: "research", arguments: { task: "dig" } }] }, { text: "thanks" }]);
    const agent = parentAgent(parent, [readTool, research(child)]);
    await agent.send("Go.");
    const [first, second] = parent.requests;
    expect(second!.system).toEqual(first!.system);
    expect(second!.tools).toEqual(first!.tools);
    expect(second!.messages.slice(0, first!.messages.length)).toEqual(first!.messages);
    // What follows is the answer that called the tool and the one result: nothing of the child's work.
    expect(second!.messages.slice(first!.messages.length).map((m) => m.role)).toEqual(["assistant", "tool"]);
    expect(JSON.stringify(second!.messages)).not.toContain('investigation, summarized"}],"usage');
    await agent.dispose();
  });

  test("with output, returns the child's validated structured output as JSON", async () => {
    const Finding = z.object({ answer: z.number(), confidence: z.enum(["low", "high"]) });
    const child = model([{ text: '{"answer": 42, "confidence": "high"}' }]);
    const parent = model([{ toolCalls: [{ name: "research", arguments: { task: "q" } }] }]);
    const agent = parentAgent(parent, [research(child, { output: Finding })]);
    await agent.send("Go.");
    expect(resultOf(agent, "call_1_1_0").content).toEqual([
      { type: "text", text: '{"answer":42,"confidence":"high"}' },
    ]);
    // The child's request asked for it natively (logged on its header).
    expect(child.requests[0]!.output?.schema).toMatchObject({ type: "object" });
    await agent.dispose();
  });

  test("parallel subagent calls of one step run concurrently; results are logged in model order", async () => {
    const bothStarted = deferred();
    let started = 0;
    const child = new ScriptedProvider([], {
      fallback: async (request) => {
        started++;
        if (started === 2) bothStarted.resolve();
        await bothStarted.promise; // neither child answers before the other has started
        const task = JSON.stringify(request.messages[0]!.content);
        return { text: task.includes("first") ? "one" : "two" };
      },
    });
    const parent = model([
      {
        toolCalls: [
          { name: "research", arguments: { task: "first" } },
          { name: "research", arguments: { task: "second" } },
        ],
      },
    ]);
    const agent = parentAgent(parent, [research(child)]);
    const outcome = await agent.send("Go.");
    expect(outcome.reason).toEqual({ kind: "completed" });
    expect(started).toBe(2);
    const order = agent.session.events
      .filter((e) => e.type === "tool/call" || e.type === "tool/result")
      .map((e) => `${e.type} ${(e.data as { callId: string }).callId}`);
    expect(order).toEqual([
      "tool/call call_1_1_0",
      "tool/result call_1_1_0",
      "tool/call call_1_1_1",
      "tool/result call_1_1_1",
    ]);
    expect(resultOf(agent, "call_1_1_0").content).toEqual([{ type: "text", text: "one" }]);
    expect(resultOf(agent, "call_1_1_1").content).toEqual([{ type: "text", text: "two" }]);
    expect(verifyLog(agent.session.events).issues).toEqual([]);
    await agent.dispose();
  });

  test("the parent's stream carries the child's committed events with the session path", async () => {
    const child = model([{ text: "child answer" }]);
    const parent = model([{ toolCalls: [{ name: "research", arguments: { task: "q" } }] }]);
    const agent = parentAgent(parent, [research(child)]);
    const events: TurnEvent[] = [];
    for await (const event of agent.stream("Go.")) events.push(event);
    const childId = `${agent.session.id}.call_1_1_0`;
    const forwarded = events.filter((e) => e.type === "subagent");
    expect(forwarded.length).toBeGreaterThan(0);
    for (const e of forwarded) expect(e).toMatchObject({ callId: "call_1_1_0", path: [agent.session.id, childId] });
    expect(forwarded.map((e) => e.event.type)).toContain("assistant-message");
    expect(forwarded.at(-1)!.event.type).toBe("turn-end");
    // They arrive between the call's answer and its result.
    const at = (type: string) => events.findIndex((e) => e.type === type);
    expect(at("subagent")).toBeGreaterThan(at("assistant-message"));
    expect(events.findIndex((e) => e.type === "tool-result")).toBeGreaterThan(
      events.findLastIndex((e) => e.type === "subagent"),
    );
    await agent.dispose();
  });
});

describe("cancelling the parent", () => {
  for (const how of ["cancel", "dispose"] as const)
    test(`${how} of the parent cancels the running child: its log closes aborted`, async () => {
      const hanging = deferred();
      const child = new ScriptedProvider([
        async () => {
          hanging.resolve();
          return "hang" as const;
        },
      ]);
      const parent = model([{ toolCalls: [{ name: "research", arguments: { task: "q" } }] }]);
      const agent = parentAgent(parent, [research(child)]);
      const sent = agent.send("Go.");
      await hanging.promise;
      if (how === "cancel") agent.cancel("stop");
      else void agent.dispose();
      const outcome = await sent;
      expect(outcome.reason.kind).toBe(how === "cancel" ? "aborted" : "disposed");
      await agent.dispose();
      const childId = `${agent.session.id}.call_1_1_0`;
      const { session } = await store.load(childId, { readOnly: true });
      const end = session.events.at(-1) as SessionEvent<"turn/end">;
      expect(end.type).toBe("turn/end");
      expect(end.data.reason.kind).toBe("aborted");
      expect(verifyLog(session.events).issues).toEqual([]);
      // The parent's log names the child on the call's (aborted) result.
      const { session: parentLog } = await store.load(agent.session.id, { readOnly: true });
      const result = parentLog.events.find((e) => e.type === "tool/result")!
        .data as SessionEvent<"tool/result">["data"];
      expect(result.isError).toBe(true);
      expect(result.meta).toMatchObject({ subagent: { session: childId } });
      expect(verifyLog(parentLog.events).issues).toEqual([]);
      expect(turnEnds(agent).at(-1)!.kind).toBe(how === "cancel" ? "aborted" : "disposed");
    });
});

describe("permissions narrow from parent to child", () => {
  /** `deploy`: needs approval for every call; records what ran. */
  const deployed: string[] = [];
  const deploy = deployTool(deployed);
  const childDeploys = (): ScriptedProvider =>
    model([{ toolCalls: [{ name: "deploy", arguments: { target: "prod" } }] }, { text: "deploy handled" }]);
  const delegates = (): ScriptedProvider => model([{ toolCalls: [{ name: "research", arguments: { task: "ship" } }] }]);

  beforeEach(() => {
    deployed.length = 0;
  });

  test("a child holds only the parent's tools, as the parent's definitions", async () => {
    const ownRead = defineTool({ ...readTool, execute: () => "the child's own read" });
    const extra = defineTool({
      name: "rm_rf",
      description: "Deletes everything.",
      input: z.object({}),
      execute: () => "gone",
    });
    const child = model([{ toolCalls: [{ name: "read", arguments: { path: "x" } }] }, { text: "ok" }]);
    const agent = parentAgent(delegates(), [
      readTool,
      research(child, { agent: { provider: child, tools: [ownRead, extra] } }),
    ]);
    await agent.send("Go.");
    expect(child.requests[0]!.tools?.map((t) => t.name)).toEqual(["read"]);
    const { session } = await store.load(`${agent.session.id}.call_1_1_0`, { readOnly: true });
    const result = session.events.find((e) => e.type === "tool/result")!.data as SessionEvent<"tool/result">["data"];
    expect(result.content).toEqual([{ type: "text", text: "contents of x" }]); // the parent's read ran
    await agent.dispose();
  });

  test("a child's approvals go to the parent's deciders with the session path; the child's own listeners never decide", async () => {
    const asked: unknown[] = [];
    const agent = parentAgent(delegates(), [deploy, research(childDeploys())], {
      approver: async (request: { path?: readonly string[]; tool: string; callId: string }) => {
        asked.push({ path: request.path, tool: request.tool, callId: request.callId });
        return { approve: false, by: "parent-policy", note: "not today" };
      },
    });
    // The child brings a listener that would approve everything: it is never asked.
    const childAgent = research(childDeploys(), {
      agent: {
        provider: childDeploys(),
        plugins: [
          (host) => {
            host.on("approval/ask", () => Promise.resolve({ approve: true, by: "child-listener" }));
            return undefined;
          },
        ],
      },
    });
    agent.tools.remove("research");
    agent.tools.register(childAgent);
    const outcome = await agent.send("Go.");
    expect(outcome.reason).toEqual({ kind: "completed" });
    const childId = `${agent.session.id}.call_1_1_0`;
    expect(asked).toEqual([{ path: [agent.session.id, childId], tool: "deploy", callId: "call_1_1_0" }]);
    expect(deployed).toEqual([]);
    const { session } = await store.load(childId, { readOnly: true });
    const decision = session.events.find((e) => e.type === "approval/decision")!.data;
    expect(decision).toMatchObject({ approve: false, by: "parent-policy" });
    await agent.dispose();
  });

  test("with nobody to ask, the parent pauses on the call; deciding the child's request continues the child, then the parent", async () => {
    const childModel = childDeploys();
    const parentModel = model([
      { toolCalls: [{ name: "research", arguments: { task: "ship" } }] },
      { text: "shipped, says the subagent" },
    ]);
    const options = {
      provider: parentModel,
      model: "scripted:parent",
      system: "You delegate.",
      tools: [deploy, research(childModel)],
      clock: fixedClock(),
    };
    const agent = createAgent({ ...options, store });
    const paused = await agent.send("Go.");
    expect(paused.reason).toEqual({ kind: "awaiting-approval" });
    const parentId = agent.session.id;
    const childId = `${parentId}.call_1_1_0`;
    const [proxy] = agent.pendingApprovals();
    expect(proxy).toMatchObject({ callId: "call_1_1_0", tool: "research" });
    expect(proxy!.reason).toContain(`subagent session ${childId} awaits approval of deploy`);
    await agent.dispose();

    // The approvals API lists the child's request with its path, and marks the parent's as the child's pause.
    const { approvals } = await listPendingApprovals(store);
    expect(approvals.map((a) => [a.sessionId, a.callId, a.path, a.subagent])).toEqual([
      [childId, "call_1_1_0", [parentId, childId], undefined],
      [parentId, "call_1_1_0", undefined, childId],
    ]);

    // In a new process: approving the parent's call alone is refused while the child waits.
    const resumed = await resumeAgent(store, parentId, options);
    await expect(resumed.decide("call_1_1_0", { approve: true })).rejects.toMatchObject({
      code: "awaits-subagent",
    });
    await expect(resumed.decide("call_1_1_0", { approve: true })).rejects.toBeInstanceOf(ApprovalError);
    // Deciding the child's request (naming its session) continues the child, then the parent.
    const done = await resumed.decide("call_1_1_0", { approve: true, by: "ana", session: childId });
    expect(done.reason).toEqual({ kind: "completed" });
    expect(done.text).toBe("shipped, says the subagent");
    expect(deployed).toEqual(["prod"]);
    const result = resultOf(resumed, "call_1_1_0");
    expect(result.content).toEqual([{ type: "text", text: "deploy handled" }]);
    expect(result.meta).toMatchObject({ subagent: { session: childId, reason: "completed" } });
    const parentDecision = eventsOf(resumed, "approval/decision")[0]!.data;
    expect(parentDecision).toMatchObject({ callId: "call_1_1_0", approve: true, by: "ana" });
    expect(verifyLog(resumed.session.events).issues).toEqual([]);
    await resumed.dispose();
    const { session: child } = await store.load(childId, { readOnly: true });
    expect(verifyLog(child.events).issues).toEqual([]);
    expect(
      child.events
        .filter((e) => e.type === "turn/end")
        .map((e) => (e.data as { reason: { kind: string } }).reason.kind),
    ).toEqual(["awaiting-approval", "completed"]);
    expect((await listPendingApprovals(store)).approvals).toEqual([]);
  });

  test("the pause reaches the parent's stream as the child's approval-request with its path", async () => {
    const agent = parentAgent(delegates(), [deploy, research(childDeploys())]);
    const events: TurnEvent[] = [];
    for await (const event of agent.stream("Go.")) events.push(event);
    const childId = `${agent.session.id}.call_1_1_0`;
    const request = events.find((e) => e.type === "subagent" && e.event.type === "approval-request");
    expect(request).toMatchObject({
      path: [agent.session.id, childId],
      event: { tool: "deploy", callId: "call_1_1_0" },
    });
    expect(events.at(-1)).toMatchObject({ type: "turn-end", reason: { kind: "awaiting-approval" } });
    await agent.dispose();
  });
});

describe("a paused subagent, cancelled or asked", () => {
  const deploy = deployTool([]);
  const region = defineTool({
    name: "region",
    description: "Picks a region (asks the person).",
    input: z.object({}),
    question: () => ({ message: "Which region?", schema: { type: "string", enum: ["eu", "us"] } }),
    execute: (_args, { answer }) => `region ${String(answer)}`,
  });

  test("cancelling the paused parent cancels the paused child: nothing is left pending", async () => {
    const child = model([{ toolCalls: [{ name: "deploy", arguments: { target: "prod" } }] }]);
    const agent = parentAgent(model([{ toolCalls: [{ name: "research", arguments: { task: "ship" } }] }]), [
      deploy,
      research(child),
    ]);
    expect((await agent.send("Go.")).reason).toEqual({ kind: "awaiting-approval" });
    expect((await listPendingApprovals(store)).approvals).toHaveLength(2);
    agent.cancel("never mind");
    await agent.whenIdle();
    expect(turnEnds(agent).at(-1)).toEqual({ kind: "aborted", reason: "never mind" });
    expect((await listPendingApprovals(store)).approvals).toEqual([]);
    const { session } = await store.load(`${agent.session.id}.call_1_1_0`, { readOnly: true });
    expect(verifyLog(session.events).issues).toEqual([]);
    expect((session.events.at(-1) as SessionEvent<"turn/end">).data.reason.kind).toBe("aborted");
    // Deciding the child's request now is `cancelled`, as for the parent's own calls (it was
    // `unknown-call`: found from outside); nothing is logged anywhere.
    const childId = `${agent.session.id}.call_1_1_0`;
    const length = agent.session.length;
    await expect(agent.decide("call_1_1_0", { approve: true, session: childId })).rejects.toMatchObject({
      name: "ApprovalError",
      code: "cancelled",
    });
    expect(agent.session.length).toBe(length);
    expect((await store.load(childId, { readOnly: true })).session.length).toBe(session.length);
    await agent.dispose();
  });

  // Found in review: cancel() while answers ran through a child closed the parent's pause (its
  // call logged aborted) while the child ran on, and the answer's outcome rejected.
  for (const how of [
    "agent.cancel() during decide",
    "stream.cancel() during streamAnswers",
    "agent.cancel() during streamAnswers",
  ] as const)
    test(`${how}: the child's continuation is cancelled, the parent stays paused`, async () => {
      let arrived!: () => void;
      const calling = new Promise<void>((resolve) => {
        arrived = resolve;
      });
      const child = model([
        { toolCalls: [{ name: "deploy", arguments: { target: "prod" } }] },
        async (request) => {
          arrived();
          await new Promise<void>((resolve) =>
            request.signal.addEventListener("abort", () => resolve(), { once: true }),
          );
          return { text: "too late" };
        },
      ]);
      const agent = parentAgent(model([{ toolCalls: [{ name: "research", arguments: { task: "ship" } }] }]), [
        deploy,
        research(child),
      ]);
      expect((await agent.send("Go.")).reason).toEqual({ kind: "awaiting-approval" });
      const childId = `${agent.session.id}.call_1_1_0`;
      const parentLength = agent.session.length;
      const decision = { callId: "call_1_1_0", approve: true, session: childId };
      let outcome: Promise<TurnOutcome>;
      if (how === "agent.cancel() during decide") outcome = agent.decide("call_1_1_0", decision);
      else {
        const stream = agent.streamAnswers({ decisions: [decision] });
        outcome = stream.outcome;
        await calling;
        if (how === "stream.cancel() during streamAnswers") stream.cancel("stop");
        else agent.cancel("stop");
      }
      if (how === "agent.cancel() during decide") {
        await calling;
        agent.cancel("stop");
      }
      expect((await outcome).reason).toEqual({ kind: "awaiting-approval" });
      await agent.whenIdle();
      expect(agent.session.length).toBe(parentLength); // the parent's pause was not closed under the child
      const { session } = await store.load(childId, { readOnly: true });
      expect(verifyLog(session.events).issues).toEqual([]);
      expect((session.events.at(-1) as SessionEvent<"turn/end">).data.reason).toEqual({
        kind: "aborted",
        reason: "stop",
      });
      expect(verifyLog(agent.session.events).issues).toEqual([]);
      await agent.dispose();
    });

  test("a child's question waits in the child; answering it through the parent continues both", async () => {
    const child = model([{ toolCalls: [{ name: "region", arguments: {} }] }, { text: "picked" }]);
    const agent = parentAgent(model([{ toolCalls: [{ name: "research", arguments: { task: "pick" } }] }]), [
      region,
      research(child),
    ]);
    expect((await agent.send("Go.")).reason).toEqual({ kind: "awaiting-approval" });
    const childId = `${agent.session.id}.call_1_1_0`;
    const { inputs } = await listPendingApprovals(store);
    expect(inputs).toMatchObject([{ sessionId: childId, id: "call_1_1_0", path: [agent.session.id, childId] }]);
    const done = await agent.respond("call_1_1_0", { value: "eu", by: "ana", session: childId });
    expect(done.reason).toEqual({ kind: "completed" });
    expect(resultOf(agent, "call_1_1_0").content).toEqual([{ type: "text", text: "picked" }]);
    const { session } = await store.load(childId, { readOnly: true });
    const toolResult = session.events.find((e) => e.type === "tool/result")!
      .data as SessionEvent<"tool/result">["data"];
    expect(toolResult.content).toEqual([{ type: "text", text: "region eu" }]);
    await agent.dispose();
  });

  test("a child's question asked while its call runs, answered before the child's approval: the call waits, then runs with it", async () => {
    const ran: string[] = [];
    const locate = askingTool("locate", "Where?");
    const child = model([
      {
        toolCalls: [
          { name: "locate", arguments: {} },
          { name: "deploy", arguments: { target: "prod" } },
        ],
      },
      { text: "shipped" },
    ]);
    const agent = parentAgent(model([{ toolCalls: [{ name: "research", arguments: { task: "ship" } }] }]), [
      locate,
      deployTool(ran),
      research(child),
    ]);
    expect((await agent.send("Go.")).reason).toEqual({ kind: "awaiting-approval" });
    const childId = `${agent.session.id}.call_1_1_0`;
    const [question] = agent.pendingInputs();
    expect(question).toMatchObject({ id: "call_1_1_0#ask-1", path: [agent.session.id, childId] });
    expect((await agent.respond(question!.id, { value: "eu", session: childId })).reason).toEqual({
      kind: "awaiting-approval",
    });
    const childLog = async () => (await store.load(childId, { readOnly: true })).session.events;
    expect((await childLog()).filter((e) => e.type === "tool/result")).toEqual([]); // nothing closed
    const done = await agent.decide("call_1_1_1", { approve: true, session: childId });
    expect(done.reason).toEqual({ kind: "completed" });
    expect(ran).toEqual(["prod"]);
    const results = (await childLog()).flatMap((e) =>
      e.type === "tool/result" ? [(e.data as SessionEvent<"tool/result">["data"]).content] : [],
    );
    expect(results).toEqual([[{ type: "text", text: "locate eu" }], [{ type: "text", text: "deployed prod" }]]);
    expect(verifyLog(await childLog()).issues).toEqual([]);
    await agent.dispose();
  });
});

describe("a child's cost", () => {
  test("the child's cache economics are reported like any session's", async () => {
    const child = model([
      { toolCalls: [{ name: "read", arguments: { path: "a" } }], usage: { inputTokens: 1200, outputTokens: 20 } },
      { text: "ok", usage: { inputTokens: 50, cacheReadTokens: 1200, outputTokens: 5 } },
    ]);
    const agent = parentAgent(model([{ toolCalls: [{ name: "research", arguments: { task: "q" } }] }]), [
      readTool,
      research(child),
    ]);
    await agent.send("Go.");
    const { session } = await store.load(`${agent.session.id}.call_1_1_0`, { readOnly: true });
    const report = cacheReport(session.events);
    expect(report.requests).toHaveLength(2);
    expect(report.requests.map((r) => r.usage?.cacheReadTokens)).toEqual([0, 1200]);
    expect(report.requests[1]!.firstChange).toBeNull(); // the child's own second request extends its first
    expect(report.totals.cacheReadTokens).toBe(1200);
    // The parent's result says what the child spent, for roll-ups.
    expect(resultOf(agent, "call_1_1_0").meta).toMatchObject({ subagent: { tokens: 1200 + 20 + 50 + 1200 + 5 } });
    await agent.dispose();
  });
});

describe("a child's budget", () => {
  test("a child that spent its token budget sends no further request; the call's result says so", async () => {
    const child = model([
      { toolCalls: [{ name: "read", arguments: { path: "a" } }], usage: { inputTokens: 600, outputTokens: 10 } },
      { text: "never sent" },
    ]);
    const agent = parentAgent(model([{ toolCalls: [{ name: "research", arguments: { task: "q" } }] }]), [
      readTool,
      research(child, { tokenBudget: 500 }),
    ]);
    await agent.send("Go.");
    expect(child.requests).toHaveLength(1);
    const result = resultOf(agent, "call_1_1_0");
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain("token-budget");
    await agent.dispose();
  });

  test("maxSteps bounds the child's turn", async () => {
    const child = model([]);
    for (let i = 0; i < 5; i++) child.push({ toolCalls: [{ name: "read", arguments: { path: `f${i}` } }] });
    const agent = parentAgent(model([{ toolCalls: [{ name: "research", arguments: { task: "q" } }] }]), [
      readTool,
      research(child, { maxSteps: 2 }),
    ]);
    await agent.send("Go.");
    expect(child.requests).toHaveLength(2);
    expect(JSON.stringify(resultOf(agent, "call_1_1_0").content)).toContain("max-steps");
    await agent.dispose();
  });
});
