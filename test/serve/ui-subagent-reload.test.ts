// A subagent's pause on a reloaded page (#27 §1): `uiMessagesFromLog(session, { subagents })`,
// with the children's logs read by `subagentLogs(session, storeReader(store))`, shows a child's
// pending approval or question as the SAME part the live stream gave (`<child>:<callId>`, state,
// input, `callProviderMetadata.keelson`), the parent's stand-in not as an approval; a fresh
// @ai-sdk/react `Chat` over those messages answers it, and the child and then the parent continue.
// A question a child's tool asks while it runs (`ToolContext.ask`, what an MCP elicitation uses)
// reaches the page the same way, live and reloaded. A grandchild's approval too. A page's batch
// for two children whose last answer is bad is refused whole (409, `agent.checkAnswers`).
import type { UIMessage } from "ai";
import { describe, expect, test } from "vitest";
import { askUserTool } from "../../src/builtin-tools/index.js";
import { type Agent, type AgentOptions, createAgent } from "../../src/loop/index.js";
import { verifyLog } from "../../src/reconstruct/index.js";
import { subagentLogs, subagentPartId, uiMessagesFromLog } from "../../src/serve/index.js";
import { storeReader } from "../../src/store/index.js";
import { defineTool, jsonSchema } from "../../src/tools/index.js";
import { deployTool } from "../support/approval-tools.js";
import { delegateTool, scripted, useTempStore } from "../support/subagents.js";
import { agentServer, pageOver } from "./support.js";

const ran: string[] = [];
const deploy = deployTool(ran);
const store = useTempStore("keelson-ui-subagent-reload-");

/** `region`: asks a person while it runs (as an MCP server's elicitation does), then answers with it. */
const region = defineTool({
  name: "region",
  description: "Picks a region.",
  input: jsonSchema({ type: "object", properties: {} }),
  readOnly: true,
  execute: async (_args, context) => {
    const answer = await context.ask!({ message: "Which region?", schema: { type: "string" } });
    return `region ${String(answer)}`;
  },
});

/** A parent (in the store) that makes `calls` in its first step, then says `answer`. */
function parentAgent(
  calls: readonly { name: string; arguments: object }[],
  tools: NonNullable<AgentOptions["tools"]>,
  answer = "shipped",
): Agent {
  ran.length = 0;
  const provider = scripted([{ toolCalls: calls }], answer);
  return createAgent({ provider, model: "scripted:parent", tools, store: store() });
}

/** A parent that delegates once to `research`, whose child calls `childTool`. */
const delegatingOnce = (childTool: string): Agent =>
  parentAgent(
    [{ name: "research", arguments: { task: "ship it" } }],
    [deploy, region, delegateTool("research", { name: childTool, arguments: { target: "prod" } }, "child done")],
  );

/** What a reloading page is handed: the log's messages with the subagents' logs. */
async function reloaded(agent: Agent): Promise<UIMessage[]> {
  const subagents = await subagentLogs(agent.session, storeReader(store()));
  return JSON.parse(JSON.stringify(uiMessagesFromLog(agent.session, { subagents }))) as UIMessage[];
}

/** A page over `/api/chat` served in process by `agent` (answers checked first: a refusal is a 409), from `messages`. */
const chatOn = (agent: Agent, messages: UIMessage[] = [], automatic = true) =>
  pageOver(agentServer(agent), automatic, messages);

type ToolPart = { type: string; toolCallId: string; state: string; [key: string]: unknown };
/** A message's tool parts with what the log decides (id, state, input, output, approval, whose call). */
const toolParts = (message: UIMessage | undefined) =>
  ((message?.parts ?? []).filter((p) => p.type.startsWith("tool-")) as unknown as ToolPart[]).map((p) => ({
    type: p.type,
    toolCallId: p.toolCallId,
    state: p.state,
    input: p.input,
    ...(p.output === undefined ? {} : { output: p.output }),
    ...(p.approval === undefined ? {} : { approval: p.approval }),
    ...(p.callProviderMetadata === undefined ? {} : { callProviderMetadata: p.callProviderMetadata }),
  }));
/** Approves part `partId` on a page that starts from `messages`: one request, one assistant message; its tool parts. */
async function approvedOnPage(agent: Agent, messages: UIMessage[], partId: string) {
  const page = chatOn(agent, messages);
  const done = page.finished();
  await page.chat.addToolApprovalResponse({ id: partId, approved: true });
  await done;
  expect(page.seen).toEqual([200]);
  expect(page.chat.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
  return { page, final: toolParts(page.chat.lastMessage) };
}

/** Rows sorted by their first column (a part id): for parts whose order is the children's timing. */
const byId = (rows: unknown[][]): unknown[][] => [...rows].sort((a, b) => String(a[0]).localeCompare(String(b[0])));

const stepCount = (message: UIMessage | undefined): number =>
  (message?.parts ?? []).filter((p) => p.type === "step-start").length;

describe("a reloaded page shows a subagent's pending approval as the live page did", () => {
  test("same part (id, state, input, metadata); answered from the reloaded page, the child and then the parent finish", async () => {
    const agent = delegatingOnce("deploy");
    const live = chatOn(agent);
    await live.chat.sendMessage({ text: "ship it" });
    const childId = `${agent.session.id}.call_1_1_0`;
    const partId = subagentPartId(childId, "call_1_1_0");
    const shown = toolParts(live.chat.lastMessage);
    expect(shown.map((p) => [p.toolCallId, p.state])).toEqual([
      ["call_1_1_0", "input-available"],
      [partId, "approval-requested"],
    ]);

    // Without the children's logs the reload shows only the stand-in (the old limit); with them, the live parts.
    expect(toolParts(uiMessagesFromLog(agent.session).at(-1) as unknown as UIMessage).map((p) => p.state)).toEqual([
      "approval-requested",
    ]);
    const messages = await reloaded(agent);
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(messages[1]!.id).toBe(live.chat.lastMessage!.id);
    expect(toolParts(messages.at(-1))).toEqual(shown);
    expect(stepCount(messages.at(-1))).toBe(stepCount(live.chat.lastMessage));

    // The page is reloaded: a new Chat starts from the log's messages and answers there.
    const { page, final } = await approvedOnPage(agent, messages, partId);
    expect(final.map((p) => [p.toolCallId, p.state, p.output])).toEqual([
      ["call_1_1_0", "output-available", "child done"],
      [partId, "output-available", "deployed prod"],
    ]);
    expect(
      page.chat.lastMessage!.parts.filter((p) => p.type === "text").map((p) => (p as { text: string }).text),
    ).toEqual(["shipped"]);
    expect(ran).toEqual(["prod"]);
    // And a reload after it is over shows what that page shows.
    expect(toolParts((await reloaded(agent)).at(-1))).toEqual(final);
    await agent.dispose();
    for (const id of [agent.session.id, childId]) {
      const { session } = await store().load(id, { readOnly: true });
      expect(verifyLog(session.events).issues).toEqual([]);
    }
  });
});

describe("a question a subagent's tool asks while it runs (ToolContext.ask, as an MCP elicitation)", () => {
  test("reaches the parent's page as a part of its own, is answered there, and a reload shows the same part", async () => {
    const agent = delegatingOnce("region");
    const live = chatOn(agent);
    await live.chat.sendMessage({ text: "ship it" });
    const childId = `${agent.session.id}.call_1_1_0`;
    const questionId = "call_1_1_0#ask-1";
    const partId = subagentPartId(childId, questionId);
    const shown = toolParts(live.chat.lastMessage);
    expect(shown).toEqual([
      { type: "tool-research", toolCallId: "call_1_1_0", state: "input-available", input: { task: "ship it" } },
      {
        type: "tool-region",
        toolCallId: partId,
        state: "input-available",
        input: { message: "Which region?", schema: { type: "string" } },
        callProviderMetadata: {
          keelson: {
            session: childId,
            path: [agent.session.id, childId],
            callId: questionId,
            call: "call_1_1_0",
            question: { message: "Which region?", schema: { type: "string" } },
          },
        },
      },
    ]);
    expect(agent.pendingInputs().map((p) => [p.id, p.path])).toEqual([[questionId, [agent.session.id, childId]]]);
    // A reload shows the same part.
    const messages = await reloaded(agent);
    expect(toolParts(messages.at(-1))).toEqual(shown);

    // Answered from the reloaded page: the child's call runs again with the answer, then the parent finishes.
    const page = chatOn(agent, messages);
    await page.chat.addToolOutput({ tool: "region", toolCallId: partId, output: "eu-west-1" });
    const done = page.finished();
    await page.chat.sendMessage();
    await done;
    expect(page.seen).toEqual([200]);
    expect(page.chat.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    const final = toolParts(page.chat.lastMessage);
    expect(final.map((p) => [p.toolCallId, p.state, p.output])).toEqual([
      ["call_1_1_0", "output-available", "child done"],
      [partId, "output-available", "eu-west-1"],
    ]);
    expect(agent.pendingInputs()).toEqual([]);
    const { session: child } = await store().load(childId, { readOnly: true });
    const results = child.events.filter((e) => e.type === "tool/result").map((e) => e.data as { content: unknown });
    expect(results.map((r) => r.content)).toEqual([[{ type: "text", text: "region eu-west-1" }]]);
    expect(toolParts((await reloaded(agent)).at(-1))).toEqual(final);
    await agent.dispose();
  });
});

describe("a grandchild's approval (a subagent of a subagent)", () => {
  test("shows as the grandchild's part with its full path, live and reloaded; answered from the page, all three continue", async () => {
    // The parent's research runs a child whose `audit` runs a grandchild that deploys.
    const audit = delegateTool("audit", { name: "deploy", arguments: { target: "prod" } }, "audited");
    // A subagent tool is passed down only when named.
    const research = delegateTool("research", { name: "audit", arguments: { task: "audit it" } }, "child done", [
      "audit",
      "deploy",
    ]);
    const agent = parentAgent([{ name: "research", arguments: { task: "ship it" } }], [deploy, audit, research]);
    const live = chatOn(agent);
    await live.chat.sendMessage({ text: "ship it" });
    const childId = `${agent.session.id}.call_1_1_0`;
    const grandchildId = `${childId}.call_1_1_0`;
    const partId = subagentPartId(grandchildId, "call_1_1_0");
    const shown = toolParts(live.chat.lastMessage);
    expect(shown.map((p) => [p.type, p.toolCallId, p.state])).toEqual([
      ["tool-research", "call_1_1_0", "input-available"],
      ["tool-deploy", partId, "approval-requested"],
    ]);
    expect(shown[1]!.callProviderMetadata).toEqual({
      keelson: { session: grandchildId, path: [agent.session.id, childId, grandchildId], callId: "call_1_1_0" },
    });
    const messages = await reloaded(agent);
    expect(toolParts(messages.at(-1))).toEqual(shown);

    const { final } = await approvedOnPage(agent, messages, partId);
    expect(final.map((p) => [p.toolCallId, p.state, p.output])).toEqual([
      ["call_1_1_0", "output-available", "child done"],
      [partId, "output-available", "deployed prod"],
    ]);
    expect(ran).toEqual(["prod"]);
    expect(agent.pendingApprovals()).toEqual([]);
    expect(toolParts((await reloaded(agent)).at(-1))).toEqual(final);
    await agent.dispose();
    for (const id of [agent.session.id, childId, grandchildId]) {
      const { session } = await store().load(id, { readOnly: true });
      expect(verifyLog(session.events).issues, id).toEqual([]);
      expect(session.pendingApprovals(), id).toEqual([]);
    }
  });
});

describe("a page's answers for two children are refused whole when one is bad", () => {
  test("409 before anything is logged; the corrected answers then continue both children and the parent", async () => {
    const research = delegateTool("research", { name: "deploy", arguments: { target: "prod" } }, "deployed");
    const survey = delegateTool("survey", { name: "ask_user", arguments: { question: "Region?" } }, "noted");
    const calls = [
      { name: "research", arguments: { task: "a" } },
      { name: "survey", arguments: { task: "b" } },
    ];
    const agent = parentAgent(calls, [deploy, askUserTool(), research, survey], "all done");
    const page = chatOn(agent, [], false); // both answers go in one request
    await page.chat.sendMessage({ text: "go" });
    const [first, second] = [`${agent.session.id}.call_1_1_0`, `${agent.session.id}.call_1_1_1`];
    const approvalPart = subagentPartId(first, "call_1_1_0");
    const questionPart = subagentPartId(second, "call_1_1_0");
    // The children run concurrently: their parts come in the order their pauses did (sorted here).
    expect(byId(toolParts(page.chat.lastMessage).map((p) => [p.toolCallId, p.state]))).toEqual(
      byId([
        ["call_1_1_0", "input-available"],
        ["call_1_1_1", "input-available"],
        [approvalPart, "approval-requested"],
        [questionPart, "input-available"],
      ]),
    );
    await agent.flush();
    const ids = [agent.session.id, first, second];
    const lengths = async () =>
      Promise.all(ids.map(async (id) => (await store().load(id, { readOnly: true })).session.length));
    const before = await lengths();

    // The question wants a string: 42 is refused, and with it the approval sent alongside.
    await page.chat.addToolApprovalResponse({ id: approvalPart, approved: true });
    await page.chat.addToolOutput({ tool: "ask_user", toolCallId: questionPart, output: 42 });
    await page.chat.sendMessage();
    expect(page.seen).toEqual([200, 409]);
    expect(await lengths()).toEqual(before);
    expect(ran).toEqual([]);

    // The page corrects its answer: both children continue, then the parent, in the same message.
    await page.chat.addToolOutput({ tool: "ask_user", toolCallId: questionPart, output: "eu-west-1" });
    const done = page.finished();
    await page.chat.sendMessage();
    await done;
    expect(page.seen).toEqual([200, 409, 200]);
    expect(ran).toEqual(["prod"]);
    expect(page.chat.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(byId(toolParts(page.chat.lastMessage).map((p) => [p.toolCallId, p.state, p.output]))).toEqual(
      byId([
        ["call_1_1_0", "output-available", "deployed"],
        ["call_1_1_1", "output-available", "noted"],
        [approvalPart, "output-available", "deployed prod"],
        [questionPart, "output-available", "eu-west-1"],
      ]),
    );
    expect(agent.pendingApprovals()).toEqual([]);
    await agent.dispose();
  });
});
