// toUIMessageStream (issue #22 §2): a real agent's turn, encoded as the AI SDK's UI message
// stream and read back by the `ai` package itself (its chunk schema, `useChat`'s transport
// parser, `readUIMessageStream`), equals the turn's message rebuilt from the log — also for a
// consumer that lagged, a feed that joined mid-step, and a retried provider call.
import { type UIMessageChunk as AiChunk, type UIMessage as AiUIMessage, DefaultChatTransport } from "ai";
import { describe, expect, test } from "vitest";
import { ScriptedProvider } from "../../src/llm/core.js";
import { createAgent } from "../../src/loop/index.js";
import {
  openTurnFrom,
  parseChatRequest,
  toUIMessageStream,
  type UIMessage,
  type UIMessageChunk,
  uiMessageStreamResponse,
  uiMessagesFromLog,
} from "../../src/serve/index.js";
import { deferred } from "../support/deferred.js";
import {
  assemble,
  chunkProvider,
  collect,
  echo,
  waitingTool,
  expectValidChunks,
  finish,
  textChunks,
  usage,
  viaChatTransport,
} from "./support.js";

// Keelson's wire types are the AI SDK's (checked by the typechecker).
const _chunk: AiChunk = {} as UIMessageChunk;
const _message: AiUIMessage = {} as UIMessage;
void [_chunk, _message];

const toolTurn = () =>
  new ScriptedProvider([
    { reasoning: "let me think", text: "calling echo", toolCalls: [{ name: "echo", arguments: { text: "hi" } }] },
    { text: "echo said hi" },
  ]);

const withoutData = (chunks: readonly UIMessageChunk[]) => chunks.filter((c) => c.type !== "data-keelson");

describe("toUIMessageStream", () => {
  test("a streamed turn, read by the ai package, equals the turn's assistant message from the log", async () => {
    const agent = createAgent({ provider: toolTurn(), model: "m", tools: [echo] });
    const chunks = await collect(toUIMessageStream(agent.stream("go")));
    await expectValidChunks(chunks);
    const { message, errors } = await assemble(chunks);
    expect(errors).toEqual([]);
    const fromLog = uiMessagesFromLog(agent.session);
    expect(fromLog.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(message).toEqual(fromLog[1]);
    expect(message?.id).toBe("turn-1");
    expect(message?.parts.map((p) => p.type)).toEqual([
      "step-start",
      "reasoning",
      "text",
      "tool-echo",
      "step-start",
      "text",
    ]);
    expect(message?.parts[3]).toMatchObject({
      toolCallId: "call_1_1_2",
      state: "output-available",
      input: { text: "hi" },
      output: "echo: hi",
    });
    await agent.dispose();
  });

  test("the same through useChat's own transport: its SSE parser and chunk schema accept every chunk", async () => {
    const agent = createAgent({ provider: toolTurn(), model: "m", tools: [echo] });
    const stream = await viaChatTransport("go", (body) =>
      uiMessageStreamResponse(agent.stream(parseChatRequest(body).content)),
    );
    const chunks = await collect(stream);
    const { message } = await assemble(chunks);
    expect(message).toEqual(uiMessagesFromLog(agent.session).at(-1));
    expect(agent.session.events.find((e) => e.type === "user/message")?.data).toMatchObject({
      content: [{ type: "text", text: "go" }],
    });
    await agent.dispose();
  });

  test("one message: start with its id, a UI step per logged step, finish `stop` last", async () => {
    const agent = createAgent({ provider: toolTurn(), model: "m", tools: [echo] });
    const types = withoutData(await collect(toUIMessageStream(agent.stream("go")))).map((c) => c.type);
    expect(types[0]).toBe("start");
    expect(types.filter((t) => t === "start-step").length).toBe(2);
    expect(types.filter((t) => t === "finish-step").length).toBe(2);
    expect(types.at(-1)).toBe("finish");
    expect(types.indexOf("tool-input-available")).toBeLessThan(types.indexOf("tool-output-available"));
    await agent.dispose();
  });

  test("every committed event gives one transient data-keelson part carrying its seq", async () => {
    const agent = createAgent({ provider: toolTurn(), model: "m", tools: [echo] });
    const chunks = await collect(toUIMessageStream(agent.stream("go")));
    const data = chunks.flatMap((c) => (c.type === "data-keelson" ? [c] : []));
    expect(data.every((c) => c.transient)).toBe(true);
    expect(data.map((c) => c.data.seq)).toEqual([...agent.session.events.keys()]);
    expect(data.at(-1)?.data).toMatchObject({ event: "turn-end", turn: 1, reason: { kind: "completed" } });
    expect(data.find((c) => c.data.event === "tool-result")?.data.callId).toBe("call_1_1_2");
    await agent.dispose();
  });

  test("a consumer that lagged past the buffer (deltas dropped) still ends with the log's message", async () => {
    const long = "word ".repeat(4_000);
    const provider = new ScriptedProvider([{ reasoning: long, text: long }]);
    const agent = createAgent({ provider, model: "m" });
    const stream = agent.stream("go", { maxBufferedChars: 500 });
    await stream.outcome; // nobody read while the turn ran
    const chunks = await collect(toUIMessageStream(stream));
    const deltaChars = chunks.reduce((n, c) => n + (c.type === "text-delta" ? c.delta.length : 0), 0);
    expect(deltaChars).toBe(long.length); // the missing suffix came from the committed answer
    const { message } = await assemble(chunks);
    expect(message).toEqual(uiMessagesFromLog(agent.session).at(-1));
    await agent.dispose();
  });

  test("a feed that joined mid-step (deltas missed, a later block past the gap) reconciles from the answer", async () => {
    const gate = deferred();
    const held = deferred();
    const provider = chunkProvider([
      {
        chunks: [
          ...textChunks(0, "Hello ", "there, ", "world"),
          { type: "block-start", index: 1, block: { type: "tool-call", callId: "toolu_1", name: "echo" } },
          { type: "tool-call-delta", index: 1, argumentsDelta: '{"text":"x"}' },
          { type: "block-end", index: 1 },
          usage,
          finish("tool-calls"),
        ],
        holdAt: 2, // after "Hello "
        gate: gate.promise,
        held: held.resolve,
      },
      { chunks: [...textChunks(0, "done"), usage, finish()] },
    ]);
    const agent = createAgent({ provider, model: "m", tools: [echo] });
    const outcome = agent.send("go");
    await held.promise;
    const feed = agent.follow({ from: 0 }); // everything from turn/start on: the client reconnects
    const read = collect(toUIMessageStream(feed));
    gate.resolve();
    const chunks = await read;
    await outcome;
    await expectValidChunks(chunks);
    const { message } = await assemble(chunks);
    expect(message).toEqual(uiMessagesFromLog(agent.session).at(-1));
    // the joined step streamed nothing live past the gap: its text came whole from the answer
    const first = chunks.filter((c) => c.type === "text-delta" && c.id === "text_1_1_0");
    expect(first.map((c) => (c.type === "text-delta" ? c.delta : ""))).toEqual(["Hello there, world"]);
    await agent.dispose();
  });

  test("useChat's resume: the open turn replayed from its turn/start rebuilds the whole message, then follows it", async () => {
    const { tool, gate, running } = waitingTool();
    const provider = new ScriptedProvider([
      { text: "waiting", toolCalls: [{ name: "wait" }] },
      { text: "resumed fine" },
    ]);
    const agent = createAgent({ provider, model: "m", tools: [tool] });
    const outcome = agent.send("go");
    await running.promise; // the page reloads here
    const transport = new DefaultChatTransport({
      api: "http://keelson.invalid/api/chat",
      fetch: async () => {
        const from = openTurnFrom(agent.session);
        if (from === undefined) return new Response(null, { status: 204 });
        return uiMessageStreamResponse(agent.follow({ from }));
      },
    });
    const stream = await transport.reconnectToStream({ chatId: "c" });
    const read = collect(stream as unknown as ReadableStream<UIMessageChunk>);
    gate.resolve();
    const { message } = await assemble(await read);
    await outcome;
    expect(message).toEqual(uiMessagesFromLog(agent.session).at(-1));
    expect(await transport.reconnectToStream({ chatId: "c" })).toBeNull(); // idle: 204, nothing to resume
    await agent.dispose();
  });

  test("a retried provider call: the failed attempt's parts close, the retried ones get -r<attempt> ids", async () => {
    const provider = chunkProvider([
      {
        chunks: [
          ...textChunks(0, "partial"),
          { type: "finish", reason: "error", error: { message: "overloaded", code: "overloaded", retryable: true } },
        ],
      },
      {
        chunks: [
          { type: "block-start", index: 0, block: { type: "reasoning" } },
          { type: "reasoning-delta", index: 0, text: "again" },
          { type: "block-end", index: 0 },
          ...textChunks(1, "the full ", "answer"),
          usage,
          finish(),
        ],
      },
    ]);
    const agent = createAgent({ provider, model: "m", retry: { sleep: async () => {} } });
    const chunks = await collect(toUIMessageStream(agent.stream("go")));
    await expectValidChunks(chunks);
    const ids = chunks.flatMap((c) => (c.type === "text-start" || c.type === "reasoning-start" ? [c.id] : []));
    expect(ids).toEqual(["text_1_1_0", "reasoning_1_1_0-r1", "text_1_1_1-r1"]);
    const ends = chunks.flatMap((c) => (c.type === "text-end" ? [c.id] : []));
    expect(ends[0]).toBe("text_1_1_0"); // closed at the retry, before the next attempt streams
    const retry = chunks.find((c) => c.type === "data-keelson" && c.data.event === "retry");
    expect(retry?.type === "data-keelson" && retry.data).toMatchObject({ attempt: 1, code: "overloaded" });
    // The protocol cannot take a part back: the client keeps the failed attempt's text, the log does not.
    const { message } = await assemble(chunks);
    const fromLog = uiMessagesFromLog(agent.session).at(-1)!;
    expect(message?.parts[1]).toMatchObject({ type: "text", text: "partial", state: "done" });
    expect({ ...message, parts: message?.parts.filter((_, i) => i !== 1) }).toEqual(fromLog);
    await agent.dispose();
  });

  test("a retried tool call keeps its callId: the client's part restarts in place and equals the log", async () => {
    const call = (args: string) => [
      { type: "block-start", index: 0, block: { type: "tool-call", callId: "toolu_9", name: "echo" } } as const,
      { type: "tool-call-delta", index: 0, argumentsDelta: args } as const,
    ];
    const provider = chunkProvider([
      {
        chunks: [
          ...call('{"te'),
          { type: "finish", reason: "error", error: { message: "dropped", code: "connection", retryable: true } },
        ],
      },
      { chunks: [...call('{"text":"ok"}'), { type: "block-end", index: 0 }, usage, finish("tool-calls")] },
      { chunks: [...textChunks(0, "fine"), usage, finish()] },
    ]);
    const agent = createAgent({ provider, model: "m", tools: [echo], retry: { sleep: async () => {} } });
    const chunks = await collect(toUIMessageStream(agent.stream("go")));
    await expectValidChunks(chunks);
    const starts = chunks.filter((c) => c.type === "tool-input-start");
    expect(starts.map((c) => (c.type === "tool-input-start" ? c.toolCallId : ""))).toEqual([
      "call_1_1_0",
      "call_1_1_0",
    ]);
    const { message } = await assemble(chunks);
    expect(message).toEqual(uiMessagesFromLog(agent.session).at(-1));
    await agent.dispose();
  });
});
