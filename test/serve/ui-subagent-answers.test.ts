// A subagent's pause answered from the page (#27 §1): the parent's UI stream shows the child's
// pending approval (or question) as a tool part of the child's tool — part id
// `<child session>:<callId>`, `callProviderMetadata.keelson { session, path, callId }`, in a UI
// step of its own — and not the parent's stand-in request. @ai-sdk/react's `Chat` (what
// `useChat` runs) answers it with `addToolApprovalResponse` / `addToolOutput`;
// `parseChatRequest(body, { pending: agent })` reads the answer (the agent's pending lists
// include the child's requests), `agent.streamAnswers` (or `host.streamAnswers`) routes it to
// the child, and the child's continuation, then the parent's, stream into the SAME assistant
// message. A forged child id is refused (409) and logs nothing.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type UIMessage, validateUIMessages } from "ai";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { askUserTool } from "../../src/builtin-tools/index.js";
import { createAgentHost } from "../../src/host/index.js";
import { ScriptedProvider, type ScriptedStep, type ScriptedToolCall } from "../../src/llm/core.js";
import { type Agent, type AgentOptions, createAgent, subagentTool } from "../../src/loop/index.js";
import { verifyLog } from "../../src/reconstruct/index.js";
import {
  lastAssistantMessageIsCompleteWithAnswers,
  subagentLogs,
  subagentPartId,
  uiMessagesFromLog,
} from "../../src/serve/index.js";
import { JsonlSessionStore, storeReader } from "../../src/store/index.js";
import { deployTool, shipTool } from "../support/approval-tools.js";
import { chatHandler, chatOver, echo } from "./support.js";

const ran: string[] = [];
const deploy = deployTool(ran);
const model = (steps: readonly ScriptedStep[], fallback = "done"): ScriptedProvider =>
  new ScriptedProvider(steps, { fallback: { text: fallback } });

/** `research` runs a child that calls `childCalls` in one step, then answers `childAnswer`. */
function research(childCalls: readonly ScriptedToolCall[], childAnswer: string) {
  return subagentTool({
    name: "research",
    description: "Researches a question.",
    agent: { provider: model([{ toolCalls: childCalls }], childAnswer) },
  });
}

/** A parent that delegates once, then says `shipped`. */
function parentAgent(tools: NonNullable<AgentOptions["tools"]>, store?: JsonlSessionStore): Agent {
  ran.length = 0;
  const provider = model([{ toolCalls: [{ name: "research", arguments: { task: "ship it" } }] }], "shipped");
  return createAgent({ provider, model: "scripted:parent", tools, ...(store === undefined ? {} : { store }) });
}

const agentHandler = (agent: Agent, seen: number[]) =>
  chatHandler(
    {
      pending: () => agent,
      run: (chat) => (chat.kind === "prompt" ? agent.stream(chat.content) : agent.streamAnswers(chat)),
    },
    seen,
  );

type ToolPart = {
  type: string;
  toolCallId: string;
  state: string;
  output?: unknown;
  callProviderMetadata?: unknown;
};
const toolParts = (message: UIMessage | undefined): ToolPart[] =>
  (message?.parts ?? []).filter((p) => p.type.startsWith("tool-")) as unknown as ToolPart[];
const steps = (message: UIMessage | undefined): number =>
  (message?.parts ?? []).filter((p) => p.type === "step-start").length;

describe("a subagent's approval, answered from the page", () => {
  test("shows as the child's tool part; approving it runs the child's tool, the child finishes, the parent continues — one assistant message", async () => {
    const agent = parentAgent([deploy, research([{ name: "deploy", arguments: { target: "prod" } }], "deployed it")]);
    const seen: number[] = [];
    const { chat, finished } = chatOver(agentHandler(agent, seen), true);
    await chat.sendMessage({ text: "ship it" });
    const parentId = agent.session.id;
    const childId = `${parentId}.call_1_1_0`;
    const partId = subagentPartId(childId, "call_1_1_0");
    expect(partId).toBe(`${childId}:call_1_1_0`);
    // The parent's call waits (no approval of its own asked); the child's deploy asks, in a step of its own.
    expect(toolParts(chat.lastMessage).map((p) => [p.type, p.toolCallId, p.state])).toEqual([
      ["tool-research", "call_1_1_0", "input-available"],
      ["tool-deploy", partId, "approval-requested"],
    ]);
    expect(toolParts(chat.lastMessage)[1]!.callProviderMetadata).toEqual({
      keelson: { session: childId, path: [parentId, childId], callId: "call_1_1_0" },
    });
    expect(steps(chat.lastMessage)).toBe(2);
    // The agent's pending lists hold the child's request (with its path) after the parent's stand-in.
    expect(agent.pendingApprovals().map((p) => [p.callId, p.tool, p.path, p.subagent])).toEqual([
      ["call_1_1_0", "research", undefined, childId],
      ["call_1_1_0", "deploy", [parentId, childId], undefined],
    ]);

    const done = finished();
    await chat.addToolApprovalResponse({ id: partId, approved: true });
    await done; // lastAssistantMessageIsCompleteWithApprovalResponses sent it: the last step holds only the child's part

    expect(seen).toEqual([200, 200]);
    expect(chat.status).toBe("ready");
    expect(chat.messages.map((m) => m.role)).toEqual(["user", "assistant"]); // no second assistant message
    expect(chat.lastMessage!.id).toBe("turn-1");
    expect(toolParts(chat.lastMessage).map((p) => [p.toolCallId, p.state, p.output])).toEqual([
      ["call_1_1_0", "output-available", "deployed it"],
      [partId, "output-available", "deployed prod"],
    ]);
    const text = chat.lastMessage!.parts.filter((p) => p.type === "text").map((p) => (p as { text: string }).text);
    expect(text).toEqual(["shipped"]);
    expect(ran).toEqual(["prod"]);
    // The child logged the page's decision; the parent approved its held call once the child was through.
    const child = agent.pendingApprovals();
    expect(child).toEqual([]);
    const decisions = agent.session.events.filter((e) => e.type === "approval/decision").map((e) => e.data);
    expect(decisions).toEqual([
      { callId: "call_1_1_0", approve: true, by: "page", note: `subagent session ${childId} continued` },
    ]);
    expect(verifyLog(agent.session.events).issues).toEqual([]);
    await agent.dispose();
  });

  test("denying it gives the child the denial; the child and then the parent continue in the same message", async () => {
    const agent = parentAgent([deploy, research([{ name: "deploy", arguments: { target: "prod" } }], "was denied")]);
    const seen: number[] = [];
    const { chat, finished } = chatOver(agentHandler(agent, seen), true);
    await chat.sendMessage({ text: "ship it" });
    const partId = subagentPartId(`${agent.session.id}.call_1_1_0`, "call_1_1_0");
    const done = finished();
    await chat.addToolApprovalResponse({ id: partId, approved: false, reason: "not on a Friday" });
    await done;
    expect(seen).toEqual([200, 200]);
    expect(chat.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(toolParts(chat.lastMessage).map((p) => [p.toolCallId, p.state])).toEqual([
      ["call_1_1_0", "output-available"],
      [partId, "output-denied"],
    ]);
    expect(toolParts(chat.lastMessage)[0]!.output).toBe("was denied");
    expect(ran).toEqual([]);
    await agent.dispose();
  });

  test("a forged or stale child id is refused (409) and nothing is logged", async () => {
    const agent = parentAgent([deploy, research([{ name: "deploy", arguments: { target: "prod" } }], "ok")]);
    const seen: number[] = [];
    const handler = agentHandler(agent, seen);
    const { chat } = chatOver(handler, false);
    await chat.sendMessage({ text: "ship it" });
    const length = agent.session.length;
    const message = structuredClone(chat.lastMessage!) as unknown as { parts: Record<string, unknown>[] };
    const part = message.parts.find((p) => p.state === "approval-requested")!;
    // Another session's call, the child's id without its session, and the parent's stand-in: none is answerable here.
    for (const id of [`${agent.session.id}.call_9_9_9:call_1_1_0`, "other:call_1_1_0"]) {
      const forged = { ...part, toolCallId: id, state: "approval-responded", approval: { id, approved: true } };
      const body = {
        id: "chat-1",
        trigger: "submit-message",
        messages: [chat.messages[0], { ...message, parts: [forged] }],
      };
      expect((await handler(body)).status).toBe(409);
    }
    expect(agent.session.length).toBe(length);
    expect(ran).toEqual([]);
    // Naming a session no held call leads to is refused by the loop too, before anything is logged.
    expect(() =>
      agent.streamAnswers({ decisions: [{ callId: "call_1_1_0", approve: true, session: "elsewhere" }] }),
    ).toThrow(expect.objectContaining({ code: "unknown-call" }));
    // Approving the stand-in directly, while the child waits, fails the stream (awaits-subagent).
    await expect(
      agent.streamAnswers({ decisions: [{ callId: "call_1_1_0", approve: true }] }).outcome,
    ).rejects.toMatchObject({
      code: "awaits-subagent",
    });
    expect(agent.session.length).toBe(length);
    await agent.dispose();
  });
});

describe("a subagent's answered pause, live as on reload", () => {
  /** A parent over a store, the page's Chat, and the log's messages with the children's. */
  function pagedOver(tools: NonNullable<AgentOptions["tools"]>, sendWhen: Parameters<typeof chatOver>[1]) {
    const root = mkdtempSync(join(tmpdir(), "keelson-ui-subagent-reload-"));
    const store = new JsonlSessionStore({ root });
    const agent = parentAgent(tools, store);
    const seen: number[] = [];
    const page = chatOver(agentHandler(agent, seen), sendWhen);
    const reloaded = async () =>
      uiMessagesFromLog(agent.session, { subagents: await subagentLogs(agent.session, storeReader(store)) });
    const close = async () => {
      await agent.dispose();
      rmSync(root, { recursive: true, force: true });
    };
    return { agent, seen, ...page, reloaded, close };
  }
  const plain = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

  test("an answered question keeps its question on the page, as the reloaded part has it", async () => {
    const question = research([{ name: "ask_user", arguments: { question: "Where?" } }], "noted");
    const { agent, chat, finished, reloaded, close } = pagedOver([askUserTool(), question], false);
    await chat.sendMessage({ text: "ship it" });
    const partId = subagentPartId(`${agent.session.id}.call_1_1_0`, "call_1_1_0");
    await chat.addToolOutput({ tool: "ask_user", toolCallId: partId, output: "Lisbon" });
    const done = finished();
    await chat.sendMessage();
    await done;
    const part = toolParts(chat.lastMessage).find((p) => p.toolCallId === partId);
    expect(part).toMatchObject({ state: "output-available", output: "Lisbon" });
    expect(part!.callProviderMetadata).toMatchObject({ keelson: { question: { message: "Where?" } } });
    expect(plain(chat.lastMessage)).toEqual(plain((await reloaded()).at(-1)));
    await close();
  });

  test("a child's call held behind its approval needs nobody: no part on the page, none on reload", async () => {
    const calls = [
      { name: "deploy", arguments: { target: "prod" } },
      { name: "echo", arguments: { text: "held" } },
    ];
    const { agent, chat, finished, reloaded, close } = pagedOver([deploy, echo, research(calls, "both ran")], true);
    await chat.sendMessage({ text: "ship it" });
    const partId = subagentPartId(`${agent.session.id}.call_1_1_0`, "call_1_1_0");
    const done = finished();
    await chat.addToolApprovalResponse({ id: partId, approved: true });
    await done;
    expect(toolParts(chat.lastMessage).map((p) => [p.type, p.state])).toEqual([
      ["tool-research", "output-available"],
      ["tool-deploy", "output-available"],
    ]);
    expect(plain(chat.lastMessage)).toEqual(plain((await reloaded()).at(-1)));
    await close();
  });
});

describe("a subagent's question, answered from the page", () => {
  test("ask_user in the child: the page's output is the answer; child then parent continue in the same message", async () => {
    const agent = parentAgent([
      askUserTool(),
      research([{ name: "ask_user", arguments: { question: "Which region?" } }], "region noted"),
    ]);
    const seen: number[] = [];
    const { chat, finished } = chatOver(agentHandler(agent, seen), false);
    await chat.sendMessage({ text: "ship it" });
    const childId = `${agent.session.id}.call_1_1_0`;
    const partId = subagentPartId(childId, "call_1_1_0");
    expect(toolParts(chat.lastMessage).map((p) => [p.type, p.toolCallId, p.state])).toEqual([
      ["tool-research", "call_1_1_0", "input-available"],
      ["tool-ask_user", partId, "input-available"],
    ]);
    expect(agent.pendingInputs().map((p) => [p.id, p.path])).toEqual([["call_1_1_0", [agent.session.id, childId]]]);
    await chat.addToolOutput({ tool: "ask_user", toolCallId: partId, output: "eu-west-1" });
    const done = finished();
    await chat.sendMessage();
    await done;
    expect(seen).toEqual([200, 200]);
    expect(chat.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(toolParts(chat.lastMessage).map((p) => [p.toolCallId, p.state, p.output])).toEqual([
      ["call_1_1_0", "output-available", "region noted"],
      [partId, "output-available", "eu-west-1"],
    ]);
    expect(agent.pendingInputs()).toEqual([]);
    await agent.dispose();
  });

  test("a child's tool that needs approval and asks: approved on the page, its question marks the child's part (input kept); answered, all finish", async () => {
    const ship = shipTool();
    const root = mkdtempSync(join(tmpdir(), "keelson-ui-subagent-ship-"));
    const store = new JsonlSessionStore({ root });
    const agent = parentAgent([ship, research([{ name: "ship", arguments: { what: "v2" } }], "shipped it")], store);
    const seen: number[] = [];
    const { chat, finished } = chatOver(agentHandler(agent, seen), lastAssistantMessageIsCompleteWithAnswers);
    await chat.sendMessage({ text: "ship it" });
    const childId = `${agent.session.id}.call_1_1_0`;
    const partId = subagentPartId(childId, "call_1_1_0");
    const approved = finished();
    await chat.addToolApprovalResponse({ id: partId, approved: true });
    await approved;
    // The child's continuation asked; the parent's stream restated the child's part with its mark.
    expect(seen).toEqual([200, 200]);
    const asking = toolParts(chat.lastMessage).find((p) => p.toolCallId === partId)!;
    expect(asking).toMatchObject({
      state: "input-available",
      input: { what: "v2" },
      callProviderMetadata: { keelson: { session: childId, question: { message: "Where should v2 go?" } } },
    });
    expect(lastAssistantMessageIsCompleteWithAnswers({ messages: chat.messages })).toBe(false);
    // Reloaded with the children's logs: the same one part (but for the approval the AI SDK's
    // schema allows on no input-available part), and messages the AI SDK validates.
    const reloaded = async () =>
      uiMessagesFromLog(agent.session, { subagents: await subagentLogs(agent.session, storeReader(store)) });
    const { approval, ...withoutApproval } = JSON.parse(JSON.stringify(asking)) as ToolPart & { approval?: unknown };
    expect(approval).toMatchObject({ id: partId, approved: true });
    expect(toolParts((await reloaded()).at(-1)).filter((p) => p.toolCallId === partId)).toEqual([withoutApproval]);
    await validateUIMessages({ messages: await reloaded() });
    const answered = finished();
    await chat.addToolOutput({ tool: "ship", toolCallId: partId, output: "eu" } as never);
    await answered;
    expect(seen).toEqual([200, 200, 200]);
    expect(chat.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(toolParts(chat.lastMessage).map((p) => [p.toolCallId, p.state, p.output])).toEqual([
      ["call_1_1_0", "output-available", "shipped it"],
      [partId, "output-available", "shipped v2 to eu"],
    ]);
    expect(toolParts((await reloaded()).at(-1)).find((p) => p.toolCallId === partId)).toMatchObject({
      approval: { id: partId, approved: true },
    });
    await validateUIMessages({ messages: await reloaded() });
    await agent.dispose();
    await store.close();
    rmSync(root, { recursive: true, force: true });
  });
});

describe("through the agent host, with a store", () => {
  let root: string;
  let store: JsonlSessionStore;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "keelson-ui-subagent-"));
    store = new JsonlSessionStore({ root });
  });
  afterEach(async () => {
    await store.close();
    rmSync(root, { recursive: true, force: true });
  });

  test("host.pending lists the child's request (open, or read from the store); host.streamAnswers routes the page's answer to it", async () => {
    ran.length = 0;
    const parentModel = model([{ toolCalls: [{ name: "research", arguments: { task: "ship it" } }] }], "shipped");
    const profile = {
      provider: parentModel,
      model: "scripted:parent",
      tools: [deploy, research([{ name: "deploy", arguments: { target: "prod" } }], "deployed it")],
    };
    const seen: number[] = [];
    const serve = (host: ReturnType<typeof createAgentHost>) =>
      chatHandler(
        {
          pending: () => host.pending("s1"),
          run: (chat) => (chat.kind === "prompt" ? host.stream("s1", chat.content) : host.streamAnswers("s1", chat)),
        },
        seen,
      );
    let host = createAgentHost({ store, profile });
    let handler = serve(host);
    const { chat, finished } = chatOver((body) => handler(body), true);
    await chat.sendMessage({ text: "ship it" });
    const partId = subagentPartId("s1.call_1_1_0", "call_1_1_0");
    const listed = [
      ["call_1_1_0", "research", undefined, "s1.call_1_1_0"],
      ["call_1_1_0", "deploy", ["s1", "s1.call_1_1_0"], undefined],
    ];
    const rows = (pending: Awaited<ReturnType<typeof host.pending>>) =>
      pending.approvals.map((p) => [p.callId, p.tool, p.path, p.subagent]);
    expect(rows(await host.pending("s1"))).toEqual(listed); // the open agent's lists
    // Another process: the session is not open there, its pending requests are read from the store.
    await host.close();
    host = createAgentHost({ store, profile });
    handler = serve(host);
    expect(host.stats().open).toBe(0);
    expect(rows(await host.pending("s1"))).toEqual(listed);
    const done = finished();
    await chat.addToolApprovalResponse({ id: partId, approved: true });
    await done;
    expect(seen).toEqual([200, 200]);
    expect(chat.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(toolParts(chat.lastMessage).map((p) => [p.toolCallId, p.state])).toEqual([
      ["call_1_1_0", "output-available"],
      [partId, "output-available"],
    ]);
    expect(ran).toEqual(["prod"]);
    expect(await host.pending("s1")).toEqual({ approvals: [], inputs: [] });
    await host.close();
    const { session: child } = await store.load("s1.call_1_1_0", { readOnly: true });
    expect(verifyLog(child.events).issues).toEqual([]);
  });
});
