// A subagent's MCP elicitation answered from the page (#27 §1): the child calls the parent's MCP
// tool (`mcp__fx__ask`, the in-process fixture server), the server's `elicitation/create` is a
// question during the call; nobody answers live, so the child pauses and the parent with it. The
// page shows the question as a part of its own (`<child>:<callId>#ask-1`, input the message and
// the schema), @ai-sdk/react's `Chat` answers it with `addToolOutput`, the child's call runs
// again and the server gets the page's answer, then the parent finishes — the same part on reload.
// The parent's own elicitation (its call of the MCP tool) is answered from the page the same way.
import type { UIMessage } from "ai";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { createAgent } from "../../src/loop/index.js";
import { mcpTools } from "../../src/mcp/index.js";
import { subagentLogs, subagentPartId, uiMessagesFromLog } from "../../src/serve/index.js";
import { storeReader } from "../../src/store/index.js";
import { elicited } from "../mcp/fixtures/tools-server.mjs";
import { inProcessServer } from "../mcp/support.js";
import { delegateTool, scripted, useTempStore } from "../support/subagents.js";
import { agentServer, pageOver } from "./support.js";

const store = useTempStore("keelson-ui-subagent-mcp-");
beforeEach(() => {
  elicited.length = 0;
});
afterEach(() => {
  elicited.length = 0;
});

type ToolPart = { type: string; toolCallId: string; state: string; input?: unknown; output?: unknown };
const toolParts = (message: UIMessage | undefined): ToolPart[] =>
  (message?.parts ?? []).filter((p) => p.type.startsWith("tool-")) as unknown as ToolPart[];

/** The tool parts as JSON carries them: id, state, input, whose call. */
const shape = (message: UIMessage | undefined) =>
  JSON.parse(
    JSON.stringify(
      toolParts(message).map((p) => ({
        type: p.type,
        toolCallId: p.toolCallId,
        state: p.state,
        input: p.input,
        metadata: (p as { callProviderMetadata?: unknown }).callProviderMetadata,
      })),
    ),
  ) as unknown;

/**
 * The page answers question part `partId` with Ada's name (one request, the same assistant
 * message); the server got the answer (it was told `cancel` when nobody answered live). The answer.
 */
async function answeredOnPage(page: ReturnType<typeof pageOver>, partId: string) {
  const answer = { action: "accept", content: { name: "Ada" } };
  await page.chat.addToolOutput({ tool: "mcp__fx__ask", toolCallId: partId, output: answer });
  const done = page.finished();
  await page.chat.sendMessage();
  await done;
  expect(page.seen).toEqual([200, 200]);
  expect(elicited).toEqual([{ action: "cancel" }, { action: "accept", content: { name: "Ada", loud: false } }]);
  expect(page.chat.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
  return answer;
}

describe("a subagent's MCP elicitation, answered from the page", () => {
  test("the question is a part of the parent's message; the page's answer reaches the server; child then parent finish", async () => {
    const mcp = mcpTools({ servers: { fx: inProcessServer(["ask"]) }, permissions: { mode: "allow" } });
    const research = delegateTool("research", { name: "mcp__fx__ask", arguments: {} }, "named", ["mcp__fx__ask"]);
    const agent = createAgent({
      provider: scripted([{ toolCalls: [{ name: "research", arguments: { task: "name it" } }] }], "all named"),
      model: "scripted:parent",
      tools: [research],
      plugins: [mcp],
      store: store(),
    });
    const page = pageOver(agentServer(agent), false);
    const { chat } = page;
    await chat.sendMessage({ text: "name it" });
    const childId = `${agent.session.id}.call_1_1_0`;
    const partId = subagentPartId(childId, "call_1_1_0#ask-1");
    expect(elicited).toEqual([{ action: "cancel" }]); // nobody answered live: the call waits
    const parts = toolParts(chat.lastMessage);
    expect(parts.map((p) => [p.type, p.toolCallId, p.state])).toEqual([
      ["tool-research", "call_1_1_0", "input-available"],
      ["tool-mcp__fx__ask", partId, "input-available"],
    ]);
    expect(parts[1]!.input).toMatchObject({ message: "Which name?" });
    // A reload shows the same parts (what decides them: id, state, input, whose call).
    const reload = uiMessagesFromLog(agent.session, {
      subagents: await subagentLogs(agent.session, storeReader(store())),
    });
    expect(shape(reload.at(-1) as unknown as UIMessage)).toEqual(shape(chat.lastMessage));

    const answer = await answeredOnPage(page, partId);
    expect(toolParts(chat.lastMessage).map((p) => [p.toolCallId, p.state, p.output])).toEqual([
      ["call_1_1_0", "output-available", "named"],
      [partId, "output-available", answer],
    ]);
    const text = chat.lastMessage!.parts.filter((p) => p.type === "text").map((p) => (p as { text: string }).text);
    expect(text).toEqual(["all named"]);
    const { session: child } = await store().load(childId, { readOnly: true });
    const result = child.events.find((e) => e.type === "tool/result")?.data as { content: { text: string }[] };
    expect(result.content[0]!.text).toBe('ask got accept {"name":"Ada","loud":false}');
    await agent.dispose();
  });
});

describe("the session's own MCP elicitation, answered from the page", () => {
  test("a part of its own (id: the question's) after the call's; answered there, the call runs again; a reload agrees", async () => {
    const mcp = mcpTools({ servers: { fx: inProcessServer(["ask"]) }, permissions: { mode: "allow" } });
    const agent = createAgent({
      provider: scripted([{ toolCalls: [{ name: "mcp__fx__ask", arguments: {} }] }], "named"),
      model: "scripted:parent",
      plugins: [mcp],
      store: store(),
    });
    const page = pageOver(agentServer(agent), false);
    const { chat } = page;
    await chat.sendMessage({ text: "name it" });
    const questionId = "call_1_1_0#ask-1";
    expect(shape(chat.lastMessage)).toEqual([
      { type: "tool-mcp__fx__ask", toolCallId: "call_1_1_0", state: "input-available", input: {} },
      {
        type: "tool-mcp__fx__ask",
        toolCallId: questionId,
        state: "input-available",
        input: expect.objectContaining({ message: "Which name?" }),
        metadata: {
          keelson: {
            callId: questionId,
            call: "call_1_1_0",
            question: expect.objectContaining({ message: "Which name?" }),
          },
        },
      },
    ]);
    expect(shape(uiMessagesFromLog(agent.session).at(-1) as unknown as UIMessage)).toEqual(shape(chat.lastMessage));

    const answer = await answeredOnPage(page, questionId);
    const final = toolParts(chat.lastMessage).map((p) => [p.toolCallId, p.state, p.output]);
    expect(final).toEqual([
      ["call_1_1_0", "output-available", 'ask got accept {"name":"Ada","loud":false}'],
      [questionId, "output-available", answer],
    ]);
    const reloaded = toolParts(uiMessagesFromLog(agent.session).at(-1) as unknown as UIMessage);
    expect(reloaded.map((p) => [p.toolCallId, p.state, p.output])).toEqual(final);
    await agent.dispose();
  });
});
