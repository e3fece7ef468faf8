// When a page sends its answers on its own (`lastAssistantMessageIsCompleteWithAnswers`), driven
// through @ai-sdk/react's own `Chat` against a server in process. A Keelson step that pauses holds
// the calls after the paused one: their parts wait `input-available`, so the AI SDK's own check
// (`lastAssistantMessageIsCompleteWithApprovalResponses`) never sends after the person approves —
// the page stalls. Keelson's sends once the person answered something and nothing waits for them:
// approvals, a question asked while a call runs, an `ask_user` question (parts marked
// `callProviderMetadata.keelson.question`, live and on reload alike).
import { type UIMessage, validateUIMessages } from "ai";
import { describe, expect, test } from "vitest";
import { z } from "zod";
import { askUserTool } from "../../src/builtin-tools/index.js";
import { ScriptedProvider, type ScriptedToolCall } from "../../src/llm/core.js";
import { type Agent, createAgent } from "../../src/loop/index.js";
import { lastAssistantMessageIsCompleteWithAnswers, uiMessagesFromLog } from "../../src/serve/index.js";
import { defineTool } from "../../src/tools/index.js";
import { askingTool, deployTool, shipTool } from "../support/approval-tools.js";
import { agentServer, pageOver } from "./support.js";

const look = defineTool({
  name: "look",
  description: "Looks around.",
  input: z.object({}),
  readOnly: true,
  execute: () => "looked",
});

/** `region` asks while it runs (as an MCP server's elicitation does). */
const region = askingTool();

function agentCalling(calls: ScriptedToolCall[], ran: string[]): Agent {
  const provider = new ScriptedProvider([{ text: "on it", toolCalls: calls }, { text: "all done" }]);
  return createAgent({ provider, model: "m", tools: [look, region, askUserTool(), deployTool(ran)] });
}

type Part = { toolCallId: string; state: string; output?: unknown; callProviderMetadata?: { keelson?: object } };
const toolParts = (message: UIMessage | undefined): Part[] =>
  (message?.parts ?? []).filter((p) => p.type.startsWith("tool-")) as unknown as Part[];
const states = (message: UIMessage | undefined) => toolParts(message).map((p) => [p.toolCallId, p.state]);
const plain = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

describe("sending the page's answers on its own", () => {
  test("an approval followed by a call it holds: the AI SDK's check stalls, Keelson's sends and the turn ends", async () => {
    const ran: string[] = [];
    const calls = [{ name: "deploy", arguments: { target: "prod" } }, { name: "look" }];
    const stalled = agentCalling(calls, ran);
    const sdk = pageOver(agentServer(stalled), true);
    await sdk.chat.sendMessage({ text: "ship it" });
    expect(states(sdk.chat.lastMessage)).toEqual([
      ["call_1_1_1", "approval-requested"],
      ["call_1_1_2", "input-available"], // held behind the approval
    ]);
    await sdk.chat.addToolApprovalResponse({ id: "call_1_1_1", approved: true });
    await stalled.whenIdle();
    expect(sdk.seen).toEqual([200]); // never sent: the held call's part is not finished
    expect(sdk.chat.status).toBe("ready");

    const agent = agentCalling(calls, ran);
    const page = pageOver(agentServer(agent), lastAssistantMessageIsCompleteWithAnswers);
    await page.chat.sendMessage({ text: "ship it" });
    const sent = page.finished();
    await page.chat.addToolApprovalResponse({ id: "call_1_1_1", approved: true });
    await sent;
    expect(page.seen).toEqual([200, 200]);
    expect(ran).toEqual(["prod"]);
    expect(states(page.chat.lastMessage)).toEqual([
      ["call_1_1_1", "output-available"],
      ["call_1_1_2", "output-available"],
    ]);
    expect(plain(page.chat.lastMessage)).toEqual(plain(uiMessagesFromLog(agent.session).at(-1)));
    // Finished: nothing to send again.
    expect(lastAssistantMessageIsCompleteWithAnswers({ messages: page.chat.messages })).toBe(false);
  });

  test("a question asked while a call runs and an approval: sent once both are answered, in one request", async () => {
    const ran: string[] = [];
    const agent = agentCalling([{ name: "region" }, { name: "deploy", arguments: { target: "eu" } }], ran);
    const page = pageOver(agentServer(agent), lastAssistantMessageIsCompleteWithAnswers);
    await page.chat.sendMessage({ text: "ship it" });
    const question = toolParts(page.chat.lastMessage).find((p) => p.toolCallId.endsWith("#ask-1"))!;
    expect(question.callProviderMetadata?.keelson).toMatchObject({
      question: { message: "Which region?", schema: { type: "string" } },
    });
    await page.chat.addToolOutput({ tool: "region", toolCallId: question.toolCallId, output: "eu" } as never);
    expect(page.seen).toEqual([200]); // the approval still waits
    const sent = page.finished();
    await page.chat.addToolApprovalResponse({ id: "call_1_1_2", approved: true });
    await sent;
    expect(page.seen).toEqual([200, 200]);
    expect(ran).toEqual(["eu"]);
    expect(states(page.chat.lastMessage)).toEqual([
      ["call_1_1_1", "output-available"],
      ["call_1_1_2", "output-available"],
      [question.toolCallId, "output-available"],
    ]);
    expect(toolParts(page.chat.lastMessage)[0]!.output).toBe("region eu");
    expect(plain(page.chat.lastMessage)).toEqual(plain(uiMessagesFromLog(agent.session).at(-1)));
  });

  test("an ask_user question: its part is marked, live and on reload; answered, the page sends", async () => {
    const agent = agentCalling([{ name: "ask_user", arguments: { question: "Which region?" } }], []);
    const page = pageOver(agentServer(agent), lastAssistantMessageIsCompleteWithAnswers);
    await page.chat.sendMessage({ text: "where?" });
    const [asking] = toolParts(page.chat.lastMessage);
    expect(asking).toMatchObject({
      state: "input-available",
      callProviderMetadata: { keelson: { callId: asking!.toolCallId, question: { message: "Which region?" } } },
    });
    expect(toolParts(uiMessagesFromLog(agent.session).at(-1))).toEqual(plain(toolParts(page.chat.lastMessage)));
    const sent = page.finished();
    await page.chat.addToolOutput({ tool: "ask_user", toolCallId: asking!.toolCallId, output: "eu-west-1" });
    await sent;
    expect(page.seen).toEqual([200, 200]);
    expect(agent.session.events.at(-1)).toMatchObject({ data: { reason: { kind: "completed" } } });
    expect(plain(page.chat.lastMessage)).toEqual(plain(uiMessagesFromLog(agent.session).at(-1)));
  });

  test("a tool that needs approval and asks: approved, its question marks the part live; answered, it runs", async () => {
    const ran: string[] = [];
    const ship = shipTool(ran);
    const provider = new ScriptedProvider([
      { toolCalls: [{ name: "ship", arguments: { what: "v2" } }] },
      { text: "done" },
    ]);
    const agent = createAgent({ provider, model: "m", tools: [ship] });
    const page = pageOver(agentServer(agent), lastAssistantMessageIsCompleteWithAnswers);
    await page.chat.sendMessage({ text: "ship v2" });
    const approved = page.finished();
    await page.chat.addToolApprovalResponse({ id: "call_1_1_0", approved: true });
    await approved;
    // The continuation paused at the call's question: its part is marked (its input restated from
    // the log's answer), so the page waits for the person — no extra send, no 409.
    expect(page.seen).toEqual([200, 200]);
    expect(lastAssistantMessageIsCompleteWithAnswers({ messages: page.chat.messages })).toBe(false);
    const [asking] = toolParts(page.chat.lastMessage);
    expect(asking).toMatchObject({
      state: "input-available",
      input: { what: "v2" },
      callProviderMetadata: { keelson: { question: { message: "Where should v2 go?" } } },
    });
    // The reload shows the same part, but for the approval: the AI SDK's client keeps it on the
    // `input-available` part at run time, its message schema allows none there — the reload's
    // messages pass `validateUIMessages`; the result part carries the approval again (below).
    const { approval, ...withoutApproval } = plain(asking) as Part & { approval?: unknown };
    expect(approval).toEqual({ id: "call_1_1_0", approved: true });
    expect(toolParts(uiMessagesFromLog(agent.session).at(-1))).toEqual([withoutApproval]);
    await validateUIMessages({ messages: uiMessagesFromLog(agent.session) });
    const answered = page.finished();
    await page.chat.addToolOutput({ tool: "ship", toolCallId: "call_1_1_0", output: "eu" } as never);
    await answered;
    expect(page.seen).toEqual([200, 200, 200]);
    expect(ran).toEqual(["v2 to eu"]);
    expect(states(page.chat.lastMessage)).toEqual([["call_1_1_0", "output-available"]]);
    expect(plain(page.chat.lastMessage)).toEqual(plain(uiMessagesFromLog(agent.session).at(-1)));
    expect(toolParts(page.chat.lastMessage)[0]).toMatchObject({ approval: { id: "call_1_1_0", approved: true } });
    await validateUIMessages({ messages: uiMessagesFromLog(agent.session) });
  });

  test("the rule on messages as they are: answered and nothing waiting; held calls do not count", () => {
    const step = (...parts: object[]): { messages: { role: string; parts: object[] }[] } => ({
      messages: [
        { role: "user", parts: [{ type: "text", text: "go" }] },
        {
          role: "assistant",
          parts: [{ type: "step-start" }, { type: "text", text: "old" }, { type: "step-start" }, ...parts],
        },
      ],
    });
    const asked = { callProviderMetadata: { keelson: { callId: "q", question: { message: "?", schema: {} } } } };
    const responded = { type: "tool-deploy", toolCallId: "a", state: "approval-responded", approval: { id: "a" } };
    const held = { type: "tool-look", toolCallId: "b", state: "input-available", input: {} };
    expect(lastAssistantMessageIsCompleteWithAnswers(step(responded, held))).toBe(true);
    expect(lastAssistantMessageIsCompleteWithAnswers(step(held))).toBe(false); // nothing answered
    expect(
      lastAssistantMessageIsCompleteWithAnswers(step(responded, { ...responded, state: "approval-requested" })),
    ).toBe(false);
    const waiting = { type: "tool-ask_user", toolCallId: "q", state: "input-available", input: {}, ...asked };
    expect(lastAssistantMessageIsCompleteWithAnswers(step(responded, waiting))).toBe(false);
    expect(
      lastAssistantMessageIsCompleteWithAnswers(step({ ...waiting, state: "output-available", output: "x" })),
    ).toBe(true);
    // A server-run tool's output is no answer; the last message a user's is nothing to send.
    expect(lastAssistantMessageIsCompleteWithAnswers(step({ ...held, state: "output-available", output: 1 }))).toBe(
      false,
    );
    expect(lastAssistantMessageIsCompleteWithAnswers({ messages: [{ role: "user", parts: [] }] })).toBe(false);
    expect(lastAssistantMessageIsCompleteWithAnswers({ messages: [] })).toBe(false);
  });
});
