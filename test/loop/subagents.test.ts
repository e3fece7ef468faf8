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
import { type Agent, createAgent, subagentTool, type TurnEvent } from "../../src/loop/index.js";
import { verifyLog } from "../../src/reconstruct/index.js";
import type { SessionEvent } from "../../src/session/index.js";
import { JsonlSessionStore } from "../../src/store/index.js";
import { defineTool } from "../../src/tools/index.js";
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
          return "hang";
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

void defineTool;
