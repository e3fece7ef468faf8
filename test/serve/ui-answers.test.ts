// Answering approvals and questions from the page (#23 §1/§2), at the AI SDK client's level
// without a browser: @ai-sdk/react's own `Chat` (what `useChat` runs) over the `ai` package's
// DefaultChatTransport, talking to a handler that does what a server does —
// `parseChatRequest(body, { pending: agent })`, then `agent.stream` or `agent.streamAnswers`,
// as `uiMessageStreamResponse`. The page's `addToolApprovalResponse` / `addToolOutput` answers
// continue the paused turn in the SAME assistant message (no duplicate message or part), and the
// client ends with what `uiMessagesFromLog` rebuilds from the log.
import { readUIMessageStream, type UIMessage } from "ai";
import { describe, expect, test } from "vitest";
import type { Agent } from "../../src/loop/index.js";
import {
  parseChatRequest,
  ServeError,
  toUIMessageStream,
  type UIMessageChunk,
  uiMessageStreamResponse,
  uiMessagesFromLog,
} from "../../src/serve/index.js";
import { pausingAgent as pausingAgentOf } from "../support/approval-tools.js";
import { chatOver, collect, expectValidChunks } from "./support.js";

const ran: string[] = [];
const pausingAgent = (): Agent => pausingAgentOf(ran);

/** The server side of /api/chat, in process: what examples/server.ts does, on one agent. */
function chatHandler(agent: Agent, seen: { status: number }[]) {
  return async (body: unknown): Promise<Response> => {
    try {
      const chat = parseChatRequest(body, { pending: agent, by: "page" });
      const events = chat.kind === "prompt" ? agent.stream(chat.content) : agent.streamAnswers(chat);
      seen.push({ status: 200 });
      return uiMessageStreamResponse(events);
    } catch (error) {
      const status = error instanceof ServeError ? error.status : 500;
      seen.push({ status });
      return new Response(String(error), { status });
    }
  };
}

type ToolPart = { type: string; toolCallId: string; state: string; output?: unknown; approval?: { reason?: string } };
const toolParts = (message: UIMessage | undefined): ToolPart[] =>
  (message?.parts ?? []).filter((p) => p.type.startsWith("tool-")) as unknown as ToolPart[];
const plain = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

describe("answering from the page", () => {
  test("approve, deny and answer a question: one continuation, streamed into the same assistant message", async () => {
    const agent = pausingAgent();
    const seen: { status: number }[] = [];
    const { chat, finished } = chatOver(chatHandler(agent, seen), true);
    await chat.sendMessage({ text: "ship it" });
    expect(chat.messages.map((m) => [m.role, m.id])).toEqual([
      ["user", chat.messages[0]!.id],
      ["assistant", "turn-1"],
    ]);
    const [staging, prod, question] = toolParts(chat.lastMessage).map((p) => p.toolCallId);
    expect(toolParts(chat.lastMessage).map((p) => p.state)).toEqual([
      "approval-requested",
      "approval-requested",
      "input-available",
    ]);

    // Each answer alone leaves the step incomplete: nothing is sent yet.
    await chat.addToolApprovalResponse({ id: staging!, approved: true });
    await chat.addToolApprovalResponse({ id: prod!, approved: false, reason: "not on a Friday" });
    expect(seen).toHaveLength(1);
    const done = finished();
    await chat.addToolOutput({ tool: "ask_user", toolCallId: question!, output: "eu-west-1" });
    await done; // the last answer completes the step: sendAutomaticallyWhen sends the answers

    expect(seen.map((s) => s.status)).toEqual([200, 200]);
    expect(chat.status).toBe("ready");
    expect(chat.messages.map((m) => m.id)).toEqual([chat.messages[0]!.id, "turn-1"]); // no second assistant message
    const parts = toolParts(chat.lastMessage);
    expect(parts.map((p) => [p.toolCallId, p.state])).toEqual([
      [staging, "output-available"],
      [prod, "output-denied"],
      [question, "output-available"],
    ]);
    expect(parts[0]!.output).toBe("deployed staging");
    expect(parts[2]!.output).toBe("eu-west-1");
    expect(ran).toEqual(["staging"]);
    // One continuation turn logged every answer, `by` the page, then the model answered.
    expect(agent.session.events.filter((e) => e.type === "turn/start").map((e) => e.data)).toEqual([
      { turn: 1, trigger: "send" },
      { turn: 2, trigger: "approval" },
    ]);
    const answers = agent.session.events.filter((e) => e.type === "approval/decision" || e.type === "input/response");
    expect(answers.map((e) => e.data)).toEqual([
      { callId: staging, approve: true, by: "page" },
      { callId: prod, approve: false, by: "page", note: "not on a Friday" },
      { id: question, value: "eu-west-1", by: "page" },
    ]);
    // The client's message is the log's (a reload shows the same), step-start parts included.
    const [, logged] = uiMessagesFromLog(agent.session);
    expect(plain(chat.lastMessage)).toEqual(logged);
    expect(chat.lastMessage!.parts.filter((p) => p.type === "step-start")).toHaveLength(2);
  });

  test("a resent answer is refused (409) and nothing is logged twice; answers sent by hand work the same", async () => {
    const agent = pausingAgent();
    const seen: { status: number }[] = [];
    const { chat } = chatOver(chatHandler(agent, seen), false);
    await chat.sendMessage({ text: "ship it" });
    const [staging, prod, question] = toolParts(chat.lastMessage).map((p) => p.toolCallId);
    await chat.addToolApprovalResponse({ id: staging!, approved: false });
    await chat.addToolApprovalResponse({ id: prod!, approved: false });
    await chat.addToolOutput({ tool: "ask_user", toolCallId: question!, output: "us-east-1" });
    expect(seen).toHaveLength(1); // no automatic send
    await chat.sendMessage(); // useChat's "send the answers" (no new text)
    expect(toolParts(chat.lastMessage).map((p) => p.state)).toEqual([
      "output-denied",
      "output-denied",
      "output-available",
    ]);
    expect(ran).toEqual([]);
    const length = agent.session.length;
    // The same answers again (a double click, a stale tab): nothing is pending any more.
    const stale = chat.messages.slice(0, 2);
    const again = await chatHandler(agent, seen)({ id: "chat-1", trigger: "submit-message", messages: stale });
    expect(again.status).toBe(409);
    expect(agent.session.length).toBe(length);
  });

  test("the continuation's chunks, read by readUIMessageStream over the paused message, update its parts in place", async () => {
    const agent = pausingAgent();
    const first = await collect(toUIMessageStream(agent.stream("ship it")));
    let paused: UIMessage | undefined;
    for await (const message of readUIMessageStream({ stream: chunkStream(first) })) paused = message;
    const [staging, prod, question] = agent
      .pendingApprovals()
      .map((p) => p.callId)
      .concat(agent.pendingInputs()[0]!.id);
    const chunks = await collect(
      toUIMessageStream(
        agent.streamAnswers({
          decisions: [
            { callId: staging!, approve: true },
            { callId: prod!, approve: true },
          ],
          responses: [{ id: question!, value: "eu" }],
        }),
      ),
    );
    await expectValidChunks(chunks);
    expect(chunks[0]).toEqual({ type: "start" }); // keeps the client's message id
    // The held calls' outputs come before the continuation's first step.
    const kinds = chunks.filter((c) => c.type !== "data-keelson").map((c) => c.type);
    expect(kinds.slice(0, 5)).toEqual([
      "start",
      "tool-output-available",
      "tool-output-available",
      "tool-output-available",
      "start-step",
    ]);
    let continued: UIMessage | undefined;
    for await (const message of readUIMessageStream({ message: plain(paused!), stream: chunkStream(chunks) }))
      continued = message;
    expect(continued?.id).toBe("turn-1");
    expect(toolParts(continued).map((p) => p.state)).toEqual([
      "output-available",
      "output-available",
      "output-available",
    ]);
    const logged = uiMessagesFromLog(agent.session)[1]!;
    // The approvals the page would have given are not in this message (no page answered): compare the rest.
    const { parts, ...rest } = plain(continued!);
    expect(rest).toEqual({ id: logged.id, role: logged.role });
    expect(parts.map((p) => p.type)).toEqual(logged.parts.map((p) => p.type));
    expect(ran).toEqual(["staging", "prod"]);
  });
});

function chunkStream(chunks: readonly UIMessageChunk[]): ReadableStream<never> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(plain(chunk) as never);
      controller.close();
    },
  });
}
