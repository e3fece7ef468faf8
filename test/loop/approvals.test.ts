// Approvals that survive restarts (#23 §1, P28): a call whose tool needs approval pauses the turn
// (`awaiting-approval`) when no live decider answers; `agent.decide` continues it — approved calls
// run, denied ones give the model an error result — and every request stays a pure function of
// the log (the dev invariant runs under vitest; expectLogMatchesRequests checks it again).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { ApprovalError, type Agent, createAgent, LoopError, resumeAgent } from "../../src/loop/index.js";
import { JsonlSessionStore } from "../../src/store/index.js";
import { defineTool } from "../../src/tools/index.js";
import { writeAndBash } from "../support/approval-tools.js";
import { fixedClock } from "../support/builders.js";
import { agentOptions, eventsOf, expectLogMatchesRequests, readTool, scripted } from "./support.js";

/** Names of the tools that actually ran, in order. */
const ran: string[] = [];

const { write: writeTool, bash: bashTool } = writeAndBash(ran);

const countedRead = defineTool({
  ...readTool,
  execute: ({ path }: { path: string }) => {
    ran.push(`read ${path}`);
    return `contents of ${path}`;
  },
});

beforeEach(() => {
  ran.length = 0;
});

/** An agent whose model first calls read, write, bash `rm x`, then answers "done". */
function pausing(extra: Parameters<typeof agentOptions>[1] = {}) {
  const provider = scripted([
    {
      toolCalls: [
        { name: "read", arguments: { path: "a" } },
        { name: "write", arguments: { path: "b" } },
        { name: "read", arguments: { path: "c" } },
        { name: "bash", arguments: { command: "rm x" } },
      ],
    },
  ]);
  const agent = createAgent(agentOptions(provider, { tools: [countedRead, writeTool, bashTool], ...extra }));
  return { agent, provider };
}

const callIds = (agent: Agent): string[] => eventsOf(agent, "approval/request").map((e) => e.data.callId);

async function thrown(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error("expected a rejection");
}

describe("a call that needs approval pauses the turn", () => {
  test("the calls before it run; it and the later ones wait; every approval of the step is requested together", async () => {
    const { agent, provider } = pausing();
    const outcome = await agent.send("go");
    expect(outcome.reason).toEqual({ kind: "awaiting-approval" });
    expect(ran).toEqual(["read a"]);
    expect(eventsOf(agent, "approval/request").map((e) => [e.data.tool, e.data.arguments, e.data.reason])).toEqual([
      ["write", '{"path":"b"}', "write needs approval before it runs"],
      ["bash", '{"command":"rm x"}', "runs rm x"],
    ]);
    expect(agent.pendingApprovals().map((p) => p.tool)).toEqual(["write", "bash"]);
    expect(provider.requests).toHaveLength(1);
    expectLogMatchesRequests(agent, provider);
  });

  test("deciding every pending call continues the turn in model order, and the model sees each result", async () => {
    const { agent, provider } = pausing();
    await agent.send("go");
    const [write, bash] = callIds(agent);
    const first = await agent.decide(write!, { approve: true, by: "alice" });
    expect(first.reason).toEqual({ kind: "awaiting-approval" });
    expect(ran).toEqual(["read a"]);
    const outcome = await agent.decide(bash!, { approve: false, by: "bob", note: "no deletes" });
    expect(outcome.reason).toEqual({ kind: "completed" });
    expect(outcome.text).toBe("done");
    expect(ran).toEqual(["read a", "write b", "read c"]);
    const lastRequest = provider.requests.at(-1)!;
    const results = lastRequest.messages.filter((m) => m.role === "tool").map((m) => m.content[0]);
    expect(results.map((r) => [r.isError, r.content])).toEqual([
      [false, [{ type: "text", text: "contents of a" }]],
      [false, [{ type: "text", text: "wrote b" }]],
      [false, [{ type: "text", text: "contents of c" }]],
      [true, [{ type: "text", text: "Tool call denied by bob: no deletes" }]],
    ]);
    expect(eventsOf(agent, "turn/start").map((e) => e.data.trigger)).toEqual(["send", "approval", "approval"]);
    expectLogMatchesRequests(agent, provider);
  });

  test("an approval may edit the arguments of a tool that allows it; the result says so", async () => {
    const { agent, provider } = pausing();
    await agent.send("go");
    const [write, bash] = callIds(agent);
    await agent.decide(bash!, { approve: false });
    await agent.decide(write!, { approve: true, by: "alice", arguments: { path: "safe" } });
    expect(ran).toContain("write safe");
    const call = eventsOf(agent, "tool/call").find((e) => e.data.callId === write)!;
    expect(call.data.arguments).toBe('{"path":"safe"}');
    const result = eventsOf(agent, "tool/result").find((e) => e.data.callId === write)!;
    expect(result.data.content[0]).toEqual({
      type: "text",
      text: '[alice edited the arguments before approving; it ran with {"path":"safe"}]',
    });
    expectLogMatchesRequests(agent, provider);
  });

  test("a live approver answers at once: no pause, the request and the decision are logged in the step", async () => {
    const { agent, provider } = pausing({
      approver: async (request) =>
        request.tool === "write" ? { approve: true, by: "live" } : { approve: false, note: "not now" },
    });
    const outcome = await agent.send("go");
    expect(outcome.reason).toEqual({ kind: "completed" });
    expect(ran).toEqual(["read a", "write b", "read c"]);
    const types = agent.session.events.map((e) => e.type);
    expect(types.filter((t) => t.startsWith("approval/"))).toEqual([
      "approval/request",
      "approval/decision",
      "approval/request",
      "approval/decision",
    ]);
    expectLogMatchesRequests(agent, provider);
  });
});

describe("agent.decide refuses bad decisions with typed errors and logs nothing", () => {
  test("unknown call, a call that needed no approval, edits the tool refuses, malformed decisions", async () => {
    const noEdit = defineTool({ ...bashTool, allowEditedArguments: false });
    const { agent } = pausing({ tools: [countedRead, writeTool, noEdit] });
    await agent.send("go");
    const [, bash] = callIds(agent);
    const readCall = eventsOf(agent, "tool/call")[0]!.data.callId;
    const length = agent.session.length;
    const codes = await Promise.all(
      [
        agent.decide("nope", { approve: true }),
        agent.decide(readCall, { approve: true }),
        agent.decide(bash!, { approve: true, arguments: { command: "ls" } }),
        agent.decide(bash!, { approve: false, arguments: { command: "ls" } }),
        agent.decide(bash!, { approve: "yes" } as never),
        agent.decide(callIds(agent)[0]!, { approve: true, arguments: "[1]" }),
      ].map(async (p) => ((await thrown(p)) as ApprovalError).code),
    );
    expect(codes).toEqual([
      "unknown-call",
      "not-pending",
      "edit-not-allowed",
      "invalid-decision",
      "invalid-decision",
      "invalid-decision",
    ]);
    expect(agent.session.length).toBe(length);
  });

  // Found from outside: an edit the tool's schema refuses was logged as an approval, and the model
  // was told the call "ran with" it, when it never ran.
  test("edited arguments the tool's input schema refuses: invalid-decision naming the issue, nothing logged", async () => {
    const { agent } = pausing();
    await agent.send("go");
    const [write, bash] = callIds(agent);
    const length = agent.session.length;
    const error = (await thrown(
      agent.decide(write!, { approve: true, arguments: { path: 5 } as never }),
    )) as ApprovalError;
    expect(error).toBeInstanceOf(ApprovalError);
    expect(error.code).toBe("invalid-decision");
    expect(error.message).toMatch(/the edited arguments do not fit tool "?write"?'s input: path/);
    await expect(
      agent.checkAnswers({ decisions: [{ callId: write!, approve: true, arguments: { path: 5 } as never }] }),
    ).rejects.toMatchObject({
      code: "invalid-decision",
    });
    const stream = agent.streamAnswers({ decisions: [{ callId: write!, approve: true, arguments: '{"path":[]}' }] });
    await expect(stream.outcome).rejects.toMatchObject({ code: "invalid-decision" });
    expect(agent.session.length).toBe(length);
    expect(ran).toEqual(["read a"]);
    await agent.decide(bash!, { approve: false });
    await agent.decide(write!, { approve: true, arguments: { path: "fits" } }); // a fitting edit runs
    expect(ran).toContain("write fits");
  });

  test("two decisions for one call: exactly one is logged, the other gets already-decided", async () => {
    const { agent } = pausing();
    await agent.send("go");
    const [write] = callIds(agent);
    const results = await Promise.allSettled([
      agent.decide(write!, { approve: true, by: "a" }),
      agent.decide(write!, { approve: false, by: "b" }),
    ]);
    expect(results[0]).toMatchObject({ status: "fulfilled" });
    expect(results[1]).toMatchObject({ status: "rejected", reason: { code: "already-decided" } });
    expect(eventsOf(agent, "approval/decision").map((e) => e.data.by)).toEqual(["a"]);
    expect(((await thrown(agent.decide(write!, { approve: true }))) as ApprovalError).code).toBe("already-decided");
  });

  test("an approval/decide listener refuses a decider", async () => {
    const { agent } = pausing();
    agent.hooks.on("approval/decide", async ({ decision }, next) =>
      decision.by === "mallory" ? { action: "refuse", reason: "not an approver" } : next(),
    );
    await agent.send("go");
    const length = agent.session.length;
    const error = (await thrown(agent.decide(callIds(agent)[0]!, { approve: true, by: "mallory" }))) as ApprovalError;
    expect(error).toBeInstanceOf(ApprovalError);
    expect(error.code).toBe("refused");
    expect(error.message).toMatch(/not an approver/);
    expect(agent.session.length).toBe(length);
  });

  test("cancelling the paused turn closes its waiting calls; a later decision gets cancelled", async () => {
    const { agent, provider } = pausing();
    await agent.send("go");
    const [write] = callIds(agent);
    agent.cancel("changed my mind");
    await agent.whenIdle();
    expect(eventsOf(agent, "turn/end").at(-1)!.data.reason).toEqual({ kind: "aborted", reason: "changed my mind" });
    expect(agent.pendingApprovals()).toEqual([]);
    expect(ran).toEqual(["read a"]);
    const length = agent.session.length;
    expect(((await thrown(agent.decide(write!, { approve: true }))) as ApprovalError).code).toBe("cancelled");
    expect(agent.session.length).toBe(length);
    expect((await agent.send("again")).reason).toEqual({ kind: "completed" });
    expectLogMatchesRequests(agent, provider);
  });

  test("a prompt while approvals are pending is refused (awaiting-approval), nothing logged", async () => {
    const { agent } = pausing();
    await agent.send("go");
    const length = agent.session.length;
    const error = (await thrown(agent.send("hello?"))) as LoopError;
    expect(error).toBeInstanceOf(LoopError);
    expect(error.code).toBe("awaiting-approval");
    expect(agent.session.length).toBe(length);
  });
});

describe("across a restart", () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "keelson-approvals-"));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  test("a paused session, disposed, is decided by a resumed agent in a new instance, which runs the tool", async () => {
    const store = new JsonlSessionStore({ root });
    const { agent } = pausing({ store });
    await agent.send("go");
    const pending = agent.pendingApprovals().map((p) => p.callId);
    await agent.dispose();
    const provider = scripted();
    const resumed = await resumeAgent(store, agent.session.id, {
      ...agentOptions(provider, { tools: [countedRead, writeTool, bashTool] }),
      clock: fixedClock(1_800_000_000_000),
    });
    expect(resumed.pendingApprovals().map((p) => p.callId)).toEqual(pending);
    await resumed.decide(pending[0]!, { approve: true });
    const outcome = await resumed.decide(pending[1]!, { approve: true });
    expect(outcome).toMatchObject({ reason: { kind: "completed" }, saved: true });
    expect(ran).toEqual(["read a", "write b", "read c", "bash rm x"]);
    await resumed.dispose();
    const { session } = await store.load(agent.session.id, { readOnly: true });
    expect(session.pendingApprovals()).toEqual([]);
    expect(eventsOf({ session } as Agent, "tool/result")).toHaveLength(4);
    await store.close();
  });

  test("a dispose while a live approver is asked leaves the approval pending for a later decision", async () => {
    const store = new JsonlSessionStore({ root });
    let asked!: () => void;
    const reached = new Promise<void>((resolve) => {
      asked = resolve;
    });
    const { agent } = pausing({
      store,
      approver: (_request, signal) =>
        new Promise((resolve) => {
          asked();
          signal.addEventListener("abort", () => resolve(undefined));
        }),
    });
    const outcome = agent.send("go");
    await reached;
    await agent.dispose();
    expect((await outcome).reason).toEqual({ kind: "disposed" });
    const resumed = await resumeAgent(
      store,
      agent.session.id,
      agentOptions(scripted(), {
        tools: [countedRead, writeTool, bashTool],
      }),
    );
    expect(resumed.pendingApprovals().map((p) => p.tool)).toEqual(["write"]);
    // The bash call waited behind write unasked: the continuation asks about it before it runs.
    const next = await resumed.decide(resumed.pendingApprovals()[0]!.callId, { approve: true });
    expect(next.reason).toEqual({ kind: "awaiting-approval" });
    expect(ran).toEqual(["read a", "write b", "read c"]);
    expect(resumed.pendingApprovals().map((p) => [p.tool, p.turn, p.step])).toEqual([["bash", 1, 1]]);
    await resumed.decide(resumed.pendingApprovals()[0]!.callId, { approve: true });
    expect(ran).toEqual(["read a", "write b", "read c", "bash rm x"]);
    await resumed.dispose();
    await store.close();
  });
});
