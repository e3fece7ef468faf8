// otelTracing with the SDK's InMemorySpanExporter: the span tree of a session — a turn with a
// retried request and a tool, a turn with a failing tool, a cancelled turn — follows the GenAI
// conventions (invoke_agent ⊃ chat {model}, execute_tool {name}), carries usage (cache read and
// write included), finish reasons, retries as events, and the log range (session id, seq
// start/end) that leads back to the events; content only with captureContent.
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { describe, expect, test } from "vitest";
import { ScriptedProvider, type ScriptedStep } from "../../src/llm/index.js";
import { createAgent } from "../../src/loop/index.js";
import { otelTracing } from "../../src/otel/index.js";
import { defineTool } from "../../src/tools/index.js";

const usage = { inputTokens: 10, cacheReadTokens: 100, cacheWriteTokens: 20, outputTokens: 7 };
const lookup = defineTool({
  name: "lookup",
  description: "Looks a word up.",
  input: { type: "object", properties: { word: { type: "string" } }, required: ["word"] },
  readOnly: true,
  execute: (args) => `meaning of ${String(args.word)}`,
});
const broken = defineTool({
  name: "broken",
  description: "Always fails.",
  input: { type: "object", properties: {} },
  execute: () => ({ content: [{ type: "text", text: "it broke" }], isError: true }),
});

function traced(script: ScriptedStep[], captureContent = false) {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const model = new ScriptedProvider(script);
  const agent = createAgent({
    provider: model,
    model: "scripted:m1",
    system: "You help.",
    tools: [lookup, broken],
    retry: { sleep: async () => undefined, random: () => 0.5 },
    plugins: [otelTracing({ tracer: provider.getTracer("test"), captureContent })],
  });
  return { agent, model, spans: () => exporter.getFinishedSpans() };
}

const parentOf = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId;
const idOf = (span: ReadableSpan): string => span.spanContext().spanId;

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 1_000 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
}

describe("otelTracing", () => {
  test("the span tree of a two-turn session with tools, a retry and a cancelled turn", async () => {
    const { agent, model, spans } = traced([
      { error: { message: "overloaded", code: "overloaded", retryable: true } },
      { toolCalls: [{ name: "lookup", arguments: { word: "keel" } }], usage },
      { text: "A keel is…", usage },
      { toolCalls: [{ name: "broken", arguments: {} }], usage },
      { text: "It failed.", usage },
      "hang",
    ]);
    expect((await agent.send("what is a keel?")).reason).toEqual({ kind: "completed" });
    expect((await agent.send("break something")).reason).toEqual({ kind: "completed" });
    const third = agent.send("never answered");
    await until(() => model.requests.length === 6);
    agent.cancel("user pressed Ctrl-C");
    expect((await third).reason).toMatchObject({ kind: "aborted" });

    const all = spans();
    const turns = all.filter((s) => s.name === "invoke_agent");
    expect(turns).toHaveLength(3);
    const events = agent.session.events;
    for (const [i, turn] of turns.entries()) {
      // each turn span covers exactly its turn's log range
      const start = turn.attributes["keelson.seq.start"] as number;
      const end = turn.attributes["keelson.seq.end"] as number;
      expect(events[start]).toMatchObject({ type: "turn/start", data: { turn: i + 1 } });
      expect(events[end]).toMatchObject({ type: "turn/end", data: { turn: i + 1 } });
      expect(turn.attributes).toMatchObject({
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.conversation.id": agent.session.id,
        "keelson.session.id": agent.session.id,
        "keelson.turn": i + 1,
      });
      expect(parentOf(turn)).toBeUndefined();
    }
    const childrenOf = (turn: ReadableSpan) =>
      all
        .filter((s) => parentOf(s) === idOf(turn))
        .sort((a, b) => (a.attributes["keelson.seq.start"] as number) - (b.attributes["keelson.seq.start"] as number));

    // turn 1: chat (retried) → execute_tool lookup → chat
    const one = childrenOf(turns[0]!);
    expect(one.map((s) => s.name)).toEqual(["chat scripted:m1", "execute_tool lookup", "chat scripted:m1"]);
    const [firstChat, tool, secondChat] = one;
    expect(firstChat!.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.request.model": "scripted:m1",
      "gen_ai.provider.name": "scripted",
      "gen_ai.usage.input_tokens": 130, // uncached + cache read + cache write, as the conventions count it
      "gen_ai.usage.output_tokens": 7,
      "gen_ai.usage.cache_read.input_tokens": 100,
      "gen_ai.usage.cache_creation.input_tokens": 20,
      "gen_ai.response.finish_reasons": ["tool_calls"],
      "keelson.retries": 1,
      "keelson.step": 1,
    });
    expect(firstChat!.events.map((e) => [e.name, e.attributes?.["keelson.retry.code"]])).toEqual([
      ["keelson.retry", "overloaded"],
    ]);
    expect(events[firstChat!.attributes["keelson.seq.start"] as number]!.type).toBe("step/start");
    expect(events[firstChat!.attributes["keelson.seq.end"] as number]!.type).toBe("assistant/message");
    expect(tool!.attributes).toMatchObject({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "lookup",
      "gen_ai.tool.call.id": "call_1_1_0",
    });
    expect(events[tool!.attributes["keelson.seq.start"] as number]!.type).toBe("tool/call");
    expect(events[tool!.attributes["keelson.seq.end"] as number]!.type).toBe("tool/result");
    expect(tool!.status.code).toBe(0);
    expect(secondChat!.attributes["gen_ai.response.finish_reasons"]).toEqual(["stop"]);

    // turn 2: the failing tool's span has status ERROR
    const two = childrenOf(turns[1]!);
    expect(two.map((s) => s.name)).toEqual(["chat scripted:m1", "execute_tool broken", "chat scripted:m1"]);
    expect(two[1]!.status).toEqual({ code: 2, message: "tool-error" }); // the code: the text is content

    // turn 3: cancelled while the provider was streaming
    expect(turns[2]!.attributes).toMatchObject({
      "keelson.turn.end_reason": "aborted",
      "keelson.turn.abort_reason": "user pressed Ctrl-C",
    });
    const three = childrenOf(turns[2]!);
    expect(three.map((s) => s.name)).toEqual(["chat scripted:m1"]);
    expect(three[0]!.status.code).toBe(2);
    expect(three[0]!.attributes["error.type"]).toBe("aborted");

    // no content unless asked for
    for (const span of all)
      for (const key of Object.keys(span.attributes))
        expect(key).not.toMatch(/messages|system_instructions|call\.arguments|call\.result/);
    await agent.dispose();
  });

  test("captureContent records the system prompt, messages, answer and tool arguments and results", async () => {
    const { agent, spans } = traced(
      [{ toolCalls: [{ name: "lookup", arguments: { word: "hull" } }] }, { text: "ok" }],
      true,
    );
    await agent.send("what is a hull?");
    const [chat] = spans().filter((s) => s.name.startsWith("chat"));
    expect(chat!.attributes["gen_ai.system_instructions"]).toContain("You help.");
    expect(chat!.attributes["gen_ai.input.messages"]).toContain("what is a hull?");
    expect(chat!.attributes["gen_ai.output.messages"]).toContain('"name":"lookup"');
    const tool = spans().find((s) => s.name === "execute_tool lookup")!;
    expect(tool.attributes["gen_ai.tool.call.arguments"]).toBe('{"word":"hull"}');
    expect(tool.attributes["gen_ai.tool.call.result"]).toContain("meaning of hull");
    await agent.dispose();
  });

  test("a request for structured output is a chat span with gen_ai.output.type json; one without has none", async () => {
    const { agent, spans } = traced([{ text: '{"ok":true}' }, { text: "plain" }]);
    const output = { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] } as const;
    expect((await agent.send("ok?", { output })).output).toEqual({ ok: true });
    await agent.send("thanks");
    const chats = spans().filter((s) => s.name.startsWith("chat"));
    expect(chats.map((s) => s.attributes["gen_ai.output.type"])).toEqual(["json", undefined]);
    await agent.dispose();
  });

  test("a turn that ends in error has an ERROR invoke_agent span with the code", async () => {
    const { agent, spans } = traced([{ error: { message: "bad key", code: "auth", retryable: false } }]);
    expect((await agent.send("hi")).reason).toMatchObject({ kind: "error", code: "auth" });
    const turn = spans().find((s) => s.name === "invoke_agent")!;
    expect(turn.status).toEqual({ code: 2, message: "auth" });
    expect(turn.attributes["error.type"]).toBe("auth");
    const chat = spans().find((s) => s.name.startsWith("chat"))!;
    expect(chat.attributes["error.type"]).toBe("auth");
    await agent.dispose();
  });
});
