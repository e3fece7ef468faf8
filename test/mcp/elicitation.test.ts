// MCP elicitation through the pause for a person (#23 §2, #25): a server's `elicitation/create`
// during a call is a logged `input/request` (its schema MCP's ElicitResult around the server's
// requestedSchema, `callId` the call) answered live — logged `input/response`, the server gets it —
// or, with nobody to answer, the server gets `cancel`, the call is suspended (no result) and the
// turn ends awaiting-input; `respond` (here or in a resumed instance, another "process") runs the
// call again, the server's repeated question answered from the log. Offered only when the agent
// can answer (a store or a live answerer).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { ScriptedProvider } from "../../src/llm/index.js";
import { type Agent, createAgent, InputError, resumeAgent } from "../../src/loop/index.js";
import { mcpTools } from "../../src/mcp/index.js";
import { verifyLog } from "../../src/reconstruct/index.js";
import { JsonlSessionStore } from "../../src/store/index.js";
import { elicited } from "./fixtures/tools-server.mjs";
import { inProcessServer, textOf, toolResults } from "./support.js";

const REQUESTED = {
  type: "object",
  properties: { name: { type: "string" }, loud: { type: "boolean", default: false } },
  required: ["name"],
};

const plugin = () => mcpTools({ servers: { fx: inProcessServer(["ask"]) }, permissions: { mode: "allow" } });
const calling = () =>
  new ScriptedProvider([{ toolCalls: [{ name: "mcp__fx__ask", arguments: {} }] }], { fallback: { text: "done" } });

const of = <T>(agent: Agent, type: string): T[] =>
  agent.session.events.filter((e) => e.type === type).map((e) => e.data as T);

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "keelson-mcp-elicit-"));
  elicited.length = 0;
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("MCP elicitation", () => {
  test("answered live: the question and answer are logged, the server gets the answer (defaults filled)", async () => {
    const agent = createAgent({
      provider: calling(),
      model: "scripted:test",
      plugins: [plugin()],
      answerer: async () => ({ value: { action: "accept", content: { name: "Ada" } }, by: "ana" }),
    });
    expect((await agent.send("go")).reason).toEqual({ kind: "completed" });
    const [call] = of<{ callId: string }>(agent, "tool/call");
    const [request] = of<{
      id: string;
      callId: string;
      message: string;
      schema: { oneOf: { properties: { content?: unknown } }[] };
    }>(agent, "input/request");
    expect(request).toMatchObject({
      id: `${call!.callId}#ask-1`,
      callId: call!.callId,
      message: "Which name?",
      source: "mcp__fx__ask",
    });
    expect(request!.schema.oneOf[0]!.properties.content).toEqual(REQUESTED);
    expect(of(agent, "input/response")).toEqual([
      { id: request!.id, value: { action: "accept", content: { name: "Ada" } }, by: "ana" },
    ]);
    expect(elicited).toEqual([{ action: "accept", content: { name: "Ada", loud: false } }]);
    expect(textOf(toolResults(agent.session.events)[0]!)).toBe('ask got accept {"name":"Ada","loud":false}');
    expect(verifyLog(agent.session.events).ok).toBe(true);
    await agent.dispose();
  });

  test("nobody to answer, a store: the server gets cancel, the call waits; a resumed agent's respond runs it again, answered from the log", async () => {
    const store = new JsonlSessionStore({ root });
    const first = createAgent({ provider: calling(), model: "scripted:test", store, plugins: [plugin()] });
    expect((await first.send("go")).reason).toEqual({ kind: "awaiting-input" });
    expect(elicited).toEqual([{ action: "cancel" }]);
    const [call] = of<{ callId: string }>(first, "tool/call");
    expect(toolResults(first.session.events)).toEqual([]);
    const [pending] = first.pendingInputs();
    expect(pending).toMatchObject({ id: `${call!.callId}#ask-1`, callId: call!.callId });
    await first.dispose();

    const provider = new ScriptedProvider([], { fallback: { text: "done" } });
    const resumed = await resumeAgent(store, first.session.id, {
      provider,
      model: "scripted:test",
      plugins: [plugin()],
    });
    const length = resumed.session.length;
    const bad = await resumed
      .respond(pending!.id, { value: { action: "accept", content: { loud: true } } })
      .catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(InputError);
    expect((bad as InputError).code).toBe("invalid-value");
    expect(resumed.session.length).toBe(length);

    const outcome = await resumed.respond(pending!.id, { value: { action: "accept", content: { name: "Grace" } } });
    expect(outcome.reason).toEqual({ kind: "completed" });
    // The server asked again in the re-run and got the logged answer; nothing was asked twice.
    expect(elicited).toEqual([{ action: "cancel" }, { action: "accept", content: { name: "Grace", loud: false } }]);
    expect(of(resumed, "input/request")).toHaveLength(1);
    expect(of<{ callId: string }>(resumed, "tool/call").filter((c) => c.callId === call!.callId)).toHaveLength(1);
    expect(toolResults(resumed.session.events).map(textOf)).toEqual(['ask got accept {"name":"Grace","loud":false}']);
    // The model saw one result for the call.
    const tools = provider.requests[0]!.messages.filter((m) => m.role === "tool");
    expect(tools).toHaveLength(1);
    expect(verifyLog(resumed.session.events).ok).toBe(true);
    await resumed.dispose();
    await store.close();
  });

  test("cancelling the paused turn closes the suspended call; a later answer is cancelled", async () => {
    const store = new JsonlSessionStore({ root });
    const agent = createAgent({ provider: calling(), model: "scripted:test", store, plugins: [plugin()] });
    await agent.send("go");
    const [pending] = agent.pendingInputs();
    agent.cancel("never mind");
    await agent.whenIdle();
    expect(toolResults(agent.session.events)).toMatchObject([{ isError: true, error: "aborted" }]);
    expect(agent.pendingInputs()).toEqual([]);
    const late = await agent.respond(pending!.id, { value: { action: "decline" } }).catch((e: unknown) => e);
    expect((late as InputError).code).toBe("cancelled");
    expect(verifyLog(agent.session.events).ok).toBe(true);
    await agent.dispose();
    await store.close();
  });

  test("a dispose while the live answerer is asked leaves the question pending; a resumed agent's answer runs the call", async () => {
    const store = new JsonlSessionStore({ root });
    let reached!: () => void;
    const asked = new Promise<void>((resolve) => {
      reached = resolve;
    });
    const agent = createAgent({
      provider: calling(),
      model: "scripted:test",
      store,
      plugins: [plugin()],
      answerer: (_request, signal) =>
        new Promise((resolve) => {
          reached();
          signal.addEventListener("abort", () => resolve(undefined));
        }),
    });
    const outcome = agent.send("go");
    await asked;
    await agent.dispose();
    expect((await outcome).reason).toEqual({ kind: "disposed" });
    const resumed = await resumeAgent(store, agent.session.id, {
      provider: new ScriptedProvider([], { fallback: { text: "done" } }),
      model: "scripted:test",
      plugins: [plugin()],
    });
    const [pending] = resumed.pendingInputs();
    expect(pending?.callId).toBeDefined();
    const done = await resumed.respond(pending!.id, { value: { action: "decline" } });
    expect(done.reason).toEqual({ kind: "completed" });
    expect(toolResults(resumed.session.events).map(textOf)).toEqual(["ask got decline null"]);
    expect(verifyLog(resumed.session.events).ok).toBe(true);
    await resumed.dispose();
    await store.close();
  });

  test("not offered when nobody can answer (no store, no live answerer); the call goes on", async () => {
    const agent = createAgent({ provider: calling(), model: "scripted:test", plugins: [plugin()] });
    expect((await agent.send("go")).reason).toEqual({ kind: "completed" });
    expect(textOf(toolResults(agent.session.events)[0]!)).toBe("the client offers no elicitation");
    expect(of(agent, "input/request")).toEqual([]);
    await agent.dispose();
  });
});
