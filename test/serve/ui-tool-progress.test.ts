// Progress in the UI message stream (#25): an MCP server's `notifications/progress` during a call
// (the fixture server over an in-process transport) reaches a `useChat`-style client as transient
// `data-tool-progress` parts — the AI SDK's own Chat (AbstractChat, DefaultChatTransport) hands
// each to `onData`, and the assistant message it keeps holds none of them and equals the log's.
import {
  AbstractChat,
  type ChatState,
  type ChatTransport,
  DefaultChatTransport,
  type UIMessage as AiUIMessage,
} from "ai";
import { describe, expect, test } from "vitest";
import { ScriptedProvider } from "../../src/llm/core.js";
import { createAgent } from "../../src/loop/index.js";
import { mcpTools } from "../../src/mcp/index.js";
import {
  parseChatRequest,
  toUIMessageStream,
  type UIMessageChunk,
  uiMessageStreamResponse,
  uiMessagesFromLog,
} from "../../src/serve/index.js";
import { inProcessServer } from "../mcp/support.js";
import { assemble, collect, expectValidChunks } from "./support.js";

const progressAgent = () =>
  createAgent({
    provider: new ScriptedProvider([
      { toolCalls: [{ name: "mcp__fx__progress", arguments: { steps: 3, ms: 0 } }] },
      { text: "all done" },
    ]),
    model: "m",
    plugins: [mcpTools({ servers: { fx: inProcessServer(["progress"]) }, permissions: { mode: "allow" } })],
  });

/** The smallest chat state: what `useChat`'s React state keeps, in plain fields. */
class PlainChat extends AbstractChat<AiUIMessage> {
  constructor(transport: ChatTransport<AiUIMessage>, onData: (part: unknown) => void) {
    const state: ChatState<AiUIMessage> = {
      status: "ready",
      error: undefined,
      messages: [],
      pushMessage: (message) => {
        state.messages = [...state.messages, message];
      },
      popMessage: () => {
        state.messages = state.messages.slice(0, -1);
      },
      replaceMessage: (index, message) => {
        state.messages = state.messages.map((m, i) => (i === index ? message : m));
      },
      snapshot: (thing) => structuredClone(thing),
    };
    super({ id: "chat-1", transport, state, onData });
  }
  get all(): AiUIMessage[] {
    return this.state.messages;
  }
}

describe("tool progress in the UI message stream", () => {
  test("each progress report is a transient data-tool-progress part naming the call, between its input and its output", async () => {
    const agent = progressAgent();
    const chunks = await collect(toUIMessageStream(agent.stream("go")));
    await expectValidChunks(chunks);
    const [call] = agent.session.events.filter((e) => e.type === "tool/call");
    const callId = (call!.data as { callId: string }).callId;
    const progress = chunks.filter((c) => c.type === "data-tool-progress");
    expect(progress).toEqual(
      [1, 2, 3].map((i) => ({
        type: "data-tool-progress",
        data: { toolCallId: callId, progress: i, total: 3, message: `step ${i}` },
        transient: true,
      })),
    );
    const at = (pred: (c: UIMessageChunk) => boolean) => chunks.findIndex(pred);
    const input = at((c) => c.type === "tool-input-available");
    const output = at((c) => c.type === "tool-output-available");
    const first = at((c) => c.type === "data-tool-progress");
    expect(input).toBeLessThan(first);
    expect(at((c) => c === progress.at(-1))).toBeLessThan(output);
    // readUIMessageStream (the ai package) keeps no data part in the message.
    const { message } = await assemble(chunks);
    expect(message).toEqual(uiMessagesFromLog(agent.session).at(-1));
    await agent.dispose();
  });

  test("the AI SDK's Chat hands each report to onData; its message holds none and equals the log's", async () => {
    const agent = progressAgent();
    const seen: unknown[] = [];
    const transport = new DefaultChatTransport<AiUIMessage>({
      api: "http://keelson.invalid/api/chat",
      fetch: async (_url, init) =>
        uiMessageStreamResponse(agent.stream(parseChatRequest(JSON.parse(String(init?.body))).content)),
    });
    const chat = new PlainChat(transport, (part) => seen.push(part));
    await chat.sendMessage({ text: "go" });
    const progress = seen.filter((p) => (p as { type: string }).type === "data-tool-progress");
    expect(progress.map((p) => (p as { data: { progress: number } }).data.progress)).toEqual([1, 2, 3]);
    expect(seen.every((p) => (p as { type: string }).type.startsWith("data-"))).toBe(true);
    const reply = chat.all.at(-1)!;
    expect(reply.parts.some((p) => p.type.startsWith("data-"))).toBe(false);
    expect(reply.parts).toEqual(uiMessagesFromLog(agent.session).at(-1)!.parts);
    await agent.dispose();
  });
});
