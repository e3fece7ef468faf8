// Message metadata (src/serve/ui-metadata.ts): an app's `messageMetadata({ event })` goes out as
// `message-metadata` chunks the AI SDK's own reader merges into `message.metadata`, and
// `uiMessagesFromLog` with the same function rebuilds what the committed events gave — for a
// plain turn and for a paused turn continued by the page's answers. A bad callback is refused.
import { readUIMessageStream, type UIMessage as AiUIMessage } from "ai";
import { describe, expect, test } from "vitest";
import { ScriptedProvider } from "../../src/llm/core.js";
import { createAgent } from "../../src/loop/index.js";
import {
  type MessageMetadata,
  toUIMessageStream,
  type UIMessageChunk,
  uiMessagesFromLog,
  uiMessageStreamResponse,
} from "../../src/serve/index.js";
import { mergeMetadata } from "../../src/serve/ui-metadata.js";
import { assemble, collect, deployTool, echo, expectValidChunks, viaChatTransport } from "./support.js";

/** Committed events give the turn, each step's stop reason and part count, the calls, the end; a delta gives `live`. */
const metadata: MessageMetadata = ({ event }) => {
  switch (event.type) {
    case "turn-start":
      return { turn: event.turn, trigger: event.trigger };
    case "assistant-message":
      return { steps: { [event.step]: { stop: event.stopReason ?? null, parts: event.content.length } } };
    case "tool-result":
      return { calls: { [event.callId]: event.isError ? "error" : "ok" } };
    case "turn-end":
      return { end: event.reason.kind };
    case "text-delta":
      return { live: true };
    default:
      return undefined;
  }
};

const toolTurn = () =>
  new ScriptedProvider([
    { text: "calling", toolCalls: [{ name: "echo", arguments: { text: "hi" } }] },
    { text: "done" },
  ]);

const plain = (chunk: UIMessageChunk): unknown => JSON.parse(JSON.stringify(chunk));
const chunkStream = (chunks: readonly UIMessageChunk[]): ReadableStream<never> =>
  new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(plain(chunk) as never);
      controller.close();
    },
  });

describe("messageMetadata", () => {
  test("live, the ai package merges the chunks into message.metadata; on reload, the log's events give the same", async () => {
    const agent = createAgent({ provider: toolTurn(), model: "m", tools: [echo] });
    const chunks = await collect(toUIMessageStream(agent.stream("go"), { messageMetadata: metadata }));
    await expectValidChunks(chunks);
    const finish = chunks.findIndex((c) => c.type === "finish");
    expect(chunks.slice(finish + 1)).toEqual([]); // every metadata chunk before the finish
    const { message } = await assemble(chunks);
    const reloaded = uiMessagesFromLog(agent.session, { messageMetadata: metadata }).at(-1)!;
    const committed = {
      turn: 1,
      trigger: "send",
      steps: { 1: { stop: "tool-calls", parts: 2 }, 2: { stop: "stop", parts: 1 } },
      calls: { call_1_1_1: "ok" },
      end: "completed",
    };
    expect(reloaded.metadata).toEqual(committed);
    expect(message?.metadata).toEqual({ ...committed, live: true }); // a delta's is live only
    expect({ ...message, metadata: reloaded.metadata }).toEqual(reloaded);
    // Without the option: no metadata on either side, as before.
    expect(uiMessagesFromLog(agent.session).at(-1)).not.toHaveProperty("metadata");
    await agent.dispose();
  });

  test("through useChat's own transport: the chunks pass its parser and schema", async () => {
    const agent = createAgent({ provider: toolTurn(), model: "m", tools: [echo] });
    const stream = await viaChatTransport("go", () =>
      uiMessageStreamResponse(agent.stream("go"), { messageMetadata: metadata, keepAliveMs: 0 }),
    );
    const chunks = await collect(stream);
    expect(chunks.filter((c) => c.type === "message-metadata").length).toBeGreaterThan(3);
    const { message } = await assemble(chunks);
    expect(message?.metadata).toMatchObject({ turn: 1, end: "completed" });
    await agent.dispose();
  });

  test("a paused turn continued by the page's answers: the continuation's metadata merges into the paused message, live and on reload", async () => {
    const provider = new ScriptedProvider([{ toolCalls: [{ name: "deploy", arguments: { target: "prod" } }] }], {
      fallback: { text: "shipped" },
    });
    const agent = createAgent({ provider, model: "m", tools: [deployTool] });
    const first = await collect(toUIMessageStream(agent.stream("ship it"), { messageMetadata: metadata }));
    let paused: AiUIMessage | undefined;
    for await (const message of readUIMessageStream({ stream: chunkStream(first) })) paused = message;
    expect(paused?.metadata).toMatchObject({ turn: 1, end: "awaiting-approval" });
    const [request] = agent.pendingApprovals();
    const second = await collect(
      toUIMessageStream(
        agent.streamAnswers({ decisions: [{ callId: request!.callId, approve: true }], responses: [] }),
        {
          messageMetadata: metadata,
        },
      ),
    );
    let continued: AiUIMessage | undefined;
    for await (const message of readUIMessageStream({ message: paused!, stream: chunkStream(second) }))
      continued = message;
    const reloaded = uiMessagesFromLog(agent.session, { messageMetadata: metadata });
    expect(reloaded.filter((m) => m.role === "assistant")).toHaveLength(1);
    const { live: _live, ...fromStreams } = continued!.metadata as Record<string, unknown>;
    expect(reloaded.at(-1)!.metadata).toEqual(fromStreams);
    expect(fromStreams).toMatchObject({
      turn: 2,
      trigger: "approval",
      end: "completed",
      calls: { [request!.callId]: "ok" },
    });
    await agent.dispose();
  });

  test("a callback that returns no JSON object, or throws, ends the live message with an error; the reload refuses it", async () => {
    const bad: MessageMetadata[] = [
      ({ event }) => (event.type === "turn-start" ? (42 as never) : undefined),
      ({ event }) => (event.type === "turn-start" ? (["a"] as never) : undefined),
      ({ event }) => {
        if (event.type === "step-start") throw new Error("metadata failed");
        return undefined;
      },
    ];
    for (const messageMetadata of bad) {
      const agent = createAgent({ provider: new ScriptedProvider([{ text: "hi" }]), model: "m" });
      const chunks = await collect(toUIMessageStream(agent.stream("go"), { messageMetadata }));
      expect(chunks.at(-2)).toMatchObject({ type: "error" });
      expect(chunks.at(-1)).toEqual({ type: "finish", finishReason: "error" });
      expect(() => uiMessagesFromLog(agent.session, { messageMetadata })).toThrow();
      await agent.dispose();
    }
    expect(() => toUIMessageStream((async function* () {})(), { messageMetadata: "x" as never })).toThrow(
      expect.objectContaining({ code: "invalid-options" }),
    );
  });

  test("merging is the AI SDK's: objects key by key, anything else replaces, undefined changes nothing, no prototype keys", () => {
    const merged = mergeMetadata(
      { a: { x: 1, y: [1, 2] }, b: 1, keep: "k" },
      JSON.parse('{"a":{"y":[3],"z":2},"b":{"o":1},"keep":null,"__proto__":{"polluted":true}}'),
    );
    expect(merged).toEqual({ a: { x: 1, y: [3], z: 2 }, b: { o: 1 }, keep: null });
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
    expect(mergeMetadata({ a: 1 }, { a: undefined } as never)).toEqual({ a: 1 });
  });
});
