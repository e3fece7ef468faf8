// Replay feeds the log's outside world back as it came: approvals decided live or in a later turn
// (edited arguments and denials included), a question answered later, steers and injects at a
// step's boundary, post-tool context — and no tool runs (recorded results), unless --live-tools:
// then the current tools run and a changed result is caught at its history message.
import { z } from "zod";
import { describe, expect, test } from "vitest";
import type { ProviderRequest, ScriptedReply } from "../../src/llm/index.js";
import { type AgentPlugin, createAgent, resumeAgent } from "../../src/loop/index.js";
import { replaySession } from "../../src/replay/index.js";
import type { JsonlSessionStore } from "../../src/store/index.js";
import { defineTool } from "../../src/tools/index.js";
import { appOptions, readTool, scripted, useTempStore } from "./support.js";

let store: JsonlSessionStore;
let ran: string[];
useTempStore((temp) => {
  store = temp.store;
  ran = [];
});

const deploy = defineTool({
  name: "deploy",
  description: "Deploys a service.",
  input: z.object({ target: z.string() }),
  needsApproval: ({ target }) => (target === "staging" ? false : `deploys to ${target}`),
  allowEditedArguments: true,
  execute: ({ target }) => {
    ran.push(`deploy ${target}`);
    return `deployed ${target}`;
  },
});

const askTool = defineTool({
  name: "ask",
  description: "Asks the person.",
  input: z.object({ question: z.string() }),
  question: ({ question }) => ({ message: question }),
  execute: (_args, { answer }) => {
    ran.push("ask");
    return `they said ${String(answer)}`;
  },
});

const call = (name: string, args: object): ScriptedReply => ({ toolCalls: [{ name, arguments: args }] });

describe("pauses replay from the log", () => {
  test("approvals decided in a later turn (one edited, one denied) and a live one: identical, and no tool runs", async () => {
    const provider = scripted([
      {
        toolCalls: [
          { name: "deploy", arguments: { target: "prod" } },
          { name: "deploy", arguments: { target: "eu" } },
        ],
      },
      { text: "deployed where allowed" },
      call("deploy", { target: "us" }),
      { text: "done" },
    ]);
    const options = appOptions(provider, { store, tools: [deploy] });
    const agent = createAgent(options);
    expect((await agent.send("ship it")).reason).toEqual({ kind: "awaiting-approval" });
    await agent.dispose();
    const id = agent.session.id;
    const resumed = await resumeAgent(store, id, options);
    const [prod, eu] = resumed.pendingApprovals();
    await resumed.decide(eu!.callId, { approve: false, by: "ana", note: "not today" });
    await resumed.decide(prod!.callId, { approve: true, by: "ana", arguments: { target: "prod-canary" } });
    await resumed.dispose();
    const live = await resumeAgent(store, id, { ...options, approver: async () => ({ approve: true, by: "bot" }) });
    await live.send("and us");
    await live.dispose();
    expect(ran).toEqual(["deploy prod-canary", "deploy us"]);

    ran = [];
    const report = await replaySession(store, id, options);
    expect(report.differences).toEqual([]);
    expect(report.turns).toEqual([]);
    expect(ran).toEqual([]); // recorded results: nothing deployed again
  });

  test("a question answered in a later turn replays identical", async () => {
    const options = appOptions(scripted([call("ask", { question: "Which region?" }), { text: "ok" }]), {
      store,
      tools: [askTool],
    });
    const agent = createAgent(options);
    expect((await agent.send("go")).reason).toEqual({ kind: "awaiting-input" });
    const [pending] = agent.pendingInputs();
    await agent.respond(pending!.id, { value: "eu-west", by: "ana" });
    await agent.dispose();
    const report = await replaySession(store, agent.session.id, options);
    expect(report.differences).toEqual([]);
    expect(report.requests.logged).toBe(2);
  });
});

describe("inputs at a step's boundary", () => {
  test("a steer and an inject that arrived mid-turn join the same later request in the replay", async () => {
    const provider = scripted([]);
    const options = appOptions(provider, { store });
    const agent = createAgent(options);
    provider.push(
      (_r: ProviderRequest) => {
        void agent.steer("also check b.txt");
        void agent.inject("the build is green");
        return call("read", { path: "a.txt" });
      },
      call("read", { path: "b.txt" }),
      { text: "both read" },
    );
    await agent.send("read a.txt");
    await agent.dispose();
    const { session } = await store.load(agent.session.id, { readOnly: true });
    const types = session.events.map((e) => e.type);
    expect(types.indexOf("steering/message")).toBeGreaterThan(types.indexOf("step/end"));
    const report = await replaySession(store, agent.session.id, options);
    expect(report.differences).toEqual([]);
    // a replay that dropped the steer would differ at the second request's history
    expect(report.requests.identical).toBe(3);
  });

  test("post-tool context recorded with the results; --live-tools runs the current tool and its hooks", async () => {
    const reminder: AgentPlugin = (host) =>
      host.on("tools/post-execute", async ({ call: c }, next) => ({
        ...(await next()),
        additionalContext: [{ type: "text", text: `remember ${c.callId}` }],
      }));
    const options = appOptions(scripted([call("read", { path: "a.txt" }), { text: "read" }]), {
      store,
      plugins: [reminder],
    });
    const agent = createAgent(options);
    await agent.send("read a.txt");
    await agent.dispose();
    const id = agent.session.id;
    expect((await replaySession(store, id, options)).differences).toEqual([]);
    expect((await replaySession(store, id, { ...options, liveTools: true })).differences).toEqual([]);
    // without the plugin, recorded results still carry the logged context (it is the log's)
    expect((await replaySession(store, id, { ...options, plugins: [] })).differences).toEqual([]);
    // live, without it: the context message is gone — history differs after the tool result
    const live = await replaySession(store, id, { ...options, plugins: [], liveTools: true });
    expect(live.differences.map((d) => d.segment)).toEqual([{ kind: "history", index: 3 }]);
    expect(live.differences[0]!.explainedBy?.text).toBe("context/message (source tools/post-execute)");
  });

  test("--live-tools: a tool whose output changed is caught at its result message, explained by the logged result", async () => {
    const options = appOptions(scripted([call("read", { path: "a.txt" }), { text: "read" }]), { store });
    const agent = createAgent(options);
    await agent.send("read a.txt");
    await agent.dispose();
    const newer = defineTool({ ...readTool, execute: ({ path }: { path: string }) => `new contents of ${path}` });
    const recorded = await replaySession(store, agent.session.id, { ...options, tools: [newer] });
    expect(recorded.differences).toEqual([]); // the schema is the same; results come from the log
    const live = await replaySession(store, agent.session.id, { ...options, tools: [newer], liveTools: true });
    expect(live.differences).toHaveLength(1);
    expect(live.differences[0]).toMatchObject({
      turn: 1,
      step: 2,
      segment: { kind: "history", index: 2 },
      explainedBy: { type: "tool/result", text: "tool/result call_1_1_0" },
    });
    expect(live.differences[0]!.replayed).toContain("new contents of a.txt");
  });
});
