// The real adapters end to end: a real agent, the official SDKs, the emulator's Messages, Chat
// Completions and Responses APIs. Text; reasoning per provider rules (Anthropic signed thinking replayed
// with its signature, OpenAI reasoning hidden, DeepSeek reasoning_content as a reasoning block);
// tool calls split across deltas paired with their results on the follow-up; a max-tokens stop.
// Responses: stateless requests, encrypted reasoning items replayed verbatim and paired with the
// item they preceded, parallel calls paired by the model's call ids, stop refused.
import { describe, expect, test } from "vitest";
import { ScriptedEmulatorModel } from "../../src/emulator/index.js";
import type { Agent } from "../../src/loop/index.js";
import { agentOn, bodyOf, emulator, eventsOf, expectHealthy, historyTexts, usages } from "./support.js";

type AnthropicBlock = { type: string; [key: string]: unknown };
type AnthropicMessage = { role: string; content: AnthropicBlock[] };
const anthropicMessages = (body: Record<string, unknown>): AnthropicMessage[] => body.messages as AnthropicMessage[];
type ChatMessage = {
  role: string;
  content: unknown;
  tool_calls?: { id: string; type: string; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
  reasoning_content?: string;
};
const chatMessages = (body: Record<string, unknown>): ChatMessage[] => body.messages as ChatMessage[];

/** The argument deltas of each tool-call block, as the agent saw them live (first step only). */
function argumentPieces(agent: Agent): Map<number, string[]> {
  const pieces = new Map<number, string[]>();
  let done = false;
  agent.hooks.on("llm/chunk", ({ chunk }) => {
    if (chunk.type === "finish") done = true;
    if (chunk.type === "tool-call-delta" && !done)
      pieces.set(chunk.index, [...(pieces.get(chunk.index) ?? []), chunk.argumentsDelta]);
  });
  return pieces;
}

describe("Anthropic adapter against the emulator", () => {
  test("a text answer streams into one assistant message with normalized usage; the turn completes", async () => {
    const server = await emulator({
      model: new ScriptedEmulatorModel([{ text: "Hello from the emulated Messages API, in several pieces." }]),
    });
    const agent = agentOn("anthropic", server);
    expect(await agent.send("hi")).toEqual({ turn: 1, reason: { kind: "completed" } });
    const [message] = eventsOf(agent, "assistant/message");
    expect(message!.data.content).toEqual([
      { type: "text", text: "Hello from the emulated Messages API, in several pieces." },
    ]);
    expect(message!.data.stopReason).toBe("stop");
    expect(usages(agent)[0]).toEqual(server.requests[0]!.usage);
    expect(server.requests[0]!.auth).not.toBe("none");
    expectHealthy(agent, server, "anthropic");
  });

  test("signed thinking is logged as reasoning and replayed, signature included, on the next request", async () => {
    const server = await emulator({
      model: new ScriptedEmulatorModel([
        {
          reasoning: "The user wants a file; read it first.",
          toolCalls: [{ name: "read", arguments: { path: "a.txt" } }],
        },
        { text: "It has forty-two lines." },
      ]),
    });
    const agent = agentOn("anthropic", server);
    expect((await agent.send("how long is a.txt?")).reason).toEqual({ kind: "completed" });
    const [first] = eventsOf(agent, "assistant/message");
    const reasoning = first!.data.content[0]!;
    expect(reasoning).toMatchObject({
      type: "reasoning",
      text: "The user wants a file; read it first.",
      signature: expect.stringMatching(/^EmuSig/),
    });
    const replayed = anthropicMessages(bodyOf(server.requests[1]!)).find((m) => m.role === "assistant")!;
    expect(replayed.content[0]).toEqual({
      type: "thinking",
      thinking: "The user wants a file; read it first.",
      signature: (reasoning as { signature: string }).signature,
    });
    expect(replayed.content[0]).not.toHaveProperty("cache_control");
    expectHealthy(agent, server, "anthropic");
  });

  test("tool calls split across deltas run through the zod tool; the follow-up pairs tool_use with tool_result", async () => {
    const path = "docs/a-rather-long-file-name-that-splits.txt";
    const server = await emulator({
      model: new ScriptedEmulatorModel([
        {
          text: "Reading both.",
          toolCalls: [
            { name: "read", arguments: { path } },
            { name: "read", arguments: { path: "b.txt" } },
          ],
        },
        { text: "Both read." },
      ]),
    });
    const agent = agentOn("anthropic", server);
    const pieces = argumentPieces(agent);
    expect((await agent.send("read them")).reason).toEqual({ kind: "completed" });
    expect(
      [...pieces.values()][0]!.length,
      "the first call's arguments arrived in several deltas",
    ).toBeGreaterThanOrEqual(2);
    const calls = eventsOf(agent, "tool/call").map((e) => e.data);
    expect(calls.map((c) => JSON.parse(c.arguments))).toEqual([{ path }, { path: "b.txt" }]);
    const results = eventsOf(agent, "tool/result").map((e) => e.data);
    expect(results.map((r) => [r.callId, r.isError, r.content])).toEqual([
      [calls[0]!.callId, false, [{ type: "text", text: `contents of ${path}: forty-two lines` }]],
      [calls[1]!.callId, false, [{ type: "text", text: "contents of b.txt: forty-two lines" }]],
    ]);

    const followUp = anthropicMessages(bodyOf(server.requests[1]!));
    const assistant = followUp.at(-2)!;
    const toolTurn = followUp.at(-1)!;
    expect(assistant.role).toBe("assistant");
    const uses = assistant.content.filter((b) => b.type === "tool_use");
    expect(uses.map((b) => [b.id, b.name, b.input])).toEqual(
      calls.map((c) => [c.callId, "read", JSON.parse(c.arguments)]),
    );
    expect(toolTurn.role).toBe("user");
    expect(toolTurn.content.map((b) => [b.type, b.tool_use_id])).toEqual(calls.map((c) => ["tool_result", c.callId]));
    expectHealthy(agent, server, "anthropic");
  });

  test("a max_tokens stop ends the turn 'max-tokens' with the truncated text kept", async () => {
    const server = await emulator({ model: () => ({ text: "one two three four five six seven eight nine ten" }) });
    const agent = agentOn("anthropic", server, { maxTokens: 3 });
    expect((await agent.send("count")).reason).toEqual({ kind: "max-tokens" });
    expect(bodyOf(server.requests[0]!).max_tokens).toBe(3);
    expect(eventsOf(agent, "assistant/message")[0]!.data).toMatchObject({
      stopReason: "max-tokens",
      content: [{ type: "text", text: "one two three" }],
    });
    expect(historyTexts(agent)).toEqual(["count", "one two three"]);
    expectHealthy(agent, server, "anthropic");
  });
});

describe("OpenAI adapter against the emulator", () => {
  test("a text answer streams into one assistant message; prompt_cache_key is the session id and usage is asked for", async () => {
    const server = await emulator({
      model: new ScriptedEmulatorModel([{ text: "Hello from the emulated Chat Completions API." }]),
    });
    const agent = agentOn("openai", server);
    expect(await agent.send("hi")).toEqual({ turn: 1, reason: { kind: "completed" } });
    expect(eventsOf(agent, "assistant/message")[0]!.data).toMatchObject({
      content: [{ type: "text", text: "Hello from the emulated Chat Completions API." }],
      stopReason: "stop",
    });
    const body = bodyOf(server.requests[0]!);
    expect(body).toMatchObject({
      prompt_cache_key: agent.session.id,
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(chatMessages(body)[0]).toEqual({
      role: "system",
      content: "You are a careful assistant working in a small repository. Answer briefly.",
    });
    expect(usages(agent)[0]).toEqual(server.requests[0]!.usage);
    expectHealthy(agent, server, "openai");
  });

  test("OpenAI reasoning stays hidden: no reasoning block, only reasoningTokens in usage", async () => {
    const server = await emulator({ model: () => ({ reasoning: "thinking quietly about it", text: "42" }) });
    const agent = agentOn("openai", server);
    await agent.send("answer?");
    const message = eventsOf(agent, "assistant/message")[0]!.data;
    expect(message.content).toEqual([{ type: "text", text: "42" }]);
    expect(message.usage!.reasoningTokens).toBeGreaterThan(0);
    expectHealthy(agent, server, "openai");
  });

  test("tool calls split across deltas run through the zod tool; the follow-up pairs tool_calls with tool messages", async () => {
    const path = "docs/a-rather-long-file-name-that-splits.txt";
    const server = await emulator({
      model: new ScriptedEmulatorModel([
        {
          toolCalls: [
            { name: "read", arguments: { path } },
            { name: "read", arguments: { path: "b.txt" } },
          ],
        },
        { text: "Both read." },
      ]),
    });
    const agent = agentOn("openai", server);
    const pieces = argumentPieces(agent);
    expect((await agent.send("read them")).reason).toEqual({ kind: "completed" });
    expect(
      [...pieces.values()][0]!.length,
      "the first call's arguments arrived in several deltas",
    ).toBeGreaterThanOrEqual(2);
    const calls = eventsOf(agent, "tool/call").map((e) => e.data);
    expect(calls.map((c) => JSON.parse(c.arguments))).toEqual([{ path }, { path: "b.txt" }]);
    expect(eventsOf(agent, "tool/result").map((e) => [e.data.callId, e.data.isError])).toEqual(
      calls.map((c) => [c.callId, false]),
    );

    const followUp = chatMessages(bodyOf(server.requests[1]!));
    const assistant = followUp.at(-3)!;
    expect(assistant).toEqual({
      role: "assistant",
      content: null,
      tool_calls: calls.map((c) => ({
        id: c.callId,
        type: "function",
        function: { name: "read", arguments: c.arguments },
      })),
    });
    expect(followUp.slice(-2)).toEqual([
      { role: "tool", tool_call_id: calls[0]!.callId, content: `contents of ${path}: forty-two lines` },
      { role: "tool", tool_call_id: calls[1]!.callId, content: "contents of b.txt: forty-two lines" },
    ]);
    expectHealthy(agent, server, "openai");
  });

  test("a length stop ends the turn 'max-tokens'; max_completion_tokens carries the cap", async () => {
    const server = await emulator({ model: () => ({ text: "one two three four five six seven eight nine ten" }) });
    const agent = agentOn("openai", server, { maxTokens: 3 });
    expect((await agent.send("count")).reason).toEqual({ kind: "max-tokens" });
    expect(bodyOf(server.requests[0]!).max_completion_tokens).toBe(3);
    expect(historyTexts(agent)).toEqual(["count", "one two three"]);
    expectHealthy(agent, server, "openai");
  });
});

describe("DeepSeek flavor against the emulator (deepseek style)", () => {
  test("reasoning_content streams into a reasoning block ahead of the text; no prompt_cache_key; max_tokens field", async () => {
    const server = await emulator({
      style: "deepseek",
      model: () => ({ reasoning: "Let me weigh the options first.", text: "Option B." }),
    });
    const agent = agentOn("deepseek", server, { maxTokens: 500 });
    expect((await agent.send("A or B?")).reason).toEqual({ kind: "completed" });
    expect(eventsOf(agent, "assistant/message")[0]!.data.content).toEqual([
      { type: "reasoning", text: "Let me weigh the options first." },
      { type: "text", text: "Option B." },
    ]);
    const body = bodyOf(server.requests[0]!);
    expect(body).not.toHaveProperty("prompt_cache_key");
    expect(body.max_tokens).toBe(500);
    expectHealthy(agent, server, "openai");
  });

  test("reasoning is replayed as reasoning_content within a tool-call turn, and dropped for a finished turn", async () => {
    const server = await emulator({
      style: "deepseek",
      model: new ScriptedEmulatorModel([
        { reasoning: "I need the file.", toolCalls: [{ name: "read", arguments: { path: "a.txt" } }] },
        { reasoning: "Now I can answer.", text: "Forty-two lines." },
        { text: "You're welcome." },
      ]),
    });
    const agent = agentOn("deepseek", server);
    await agent.send("how long is a.txt?");
    await agent.send("thanks");
    const inTurn = chatMessages(bodyOf(server.requests[1]!)).find((m) => m.role === "assistant")!;
    expect(inTurn.reasoning_content).toBe("I need the file.");
    const nextTurn = chatMessages(bodyOf(server.requests[2]!)).filter((m) => m.role === "assistant");
    expect(nextTurn.map((m) => m.reasoning_content)).toEqual(["I need the file.", "Now I can answer."]);
    expectHealthy(agent, server, "openai");
  });
});

type ResponsesItem = {
  type?: string;
  role?: string;
  id?: string;
  call_id?: string;
  content?: unknown;
  encrypted_content?: string;
  [key: string]: unknown;
};
const responsesInput = (body: Record<string, unknown>): ResponsesItem[] => body.input as ResponsesItem[];

/** Asks every request for reasoning summaries (call config `reasoning`, logged on the header). */
const withSummaries = (agent: Agent): void =>
  void agent.hooks.on("agent/request", async (_payload, next) => ({
    ...(await next()),
    reasoning: { summary: "auto" },
  }));

describe("OpenAI Responses adapter against the emulator", () => {
  test("a text answer streams into one assistant message; stateless (store false), prompt_cache_key = session id, instructions = system", async () => {
    const server = await emulator({
      model: new ScriptedEmulatorModel([{ text: "Hello from the emulated Responses API." }]),
    });
    const agent = agentOn("responses", server);
    expect(await agent.send("hi")).toEqual({ turn: 1, reason: { kind: "completed" } });
    const message = eventsOf(agent, "assistant/message")[0]!.data;
    expect(message.content).toEqual([
      {
        type: "text",
        text: "Hello from the emulated Responses API.",
        providerData: { api: "openai-responses", id: "msg_emu_000001" },
      },
    ]);
    expect(message.stopReason).toBe("stop");
    const body = bodyOf(server.requests[0]!);
    expect(body).toMatchObject({
      model: "gpt-5.4-mini",
      instructions: "You are a careful assistant working in a small repository. Answer briefly.",
      input: [{ role: "user", content: "hi" }],
      include: ["reasoning.encrypted_content"],
      store: false,
      prompt_cache_key: agent.session.id,
      stream: true,
    });
    expect(body).not.toHaveProperty("previous_response_id");
    expect(usages(agent)[0]).toEqual(server.requests[0]!.usage);
    expectHealthy(agent, server, "responses");
  });

  test("reasoning is logged as the opaque encrypted item and sent back verbatim, paired with the item it preceded", async () => {
    const server = await emulator({
      model: new ScriptedEmulatorModel([
        {
          reasoning: "Read the file first.\n\nThen count.",
          toolCalls: [{ name: "read", arguments: { path: "a.txt" } }],
        },
        { reasoning: "Forty-two it is.", text: "It has forty-two lines." },
        { text: "You're welcome." },
      ]),
    });
    const agent = agentOn("responses", server);
    withSummaries(agent);
    expect((await agent.send("how long is a.txt?")).reason).toEqual({ kind: "completed" });
    expect((await agent.send("thanks")).reason).toEqual({ kind: "completed" });
    const [first] = eventsOf(agent, "assistant/message");
    const reasoning = first!.data.content[0]!;
    expect(reasoning).toMatchObject({
      type: "reasoning",
      text: "Read the file first.\n\nThen count.", // the summary parts, joined
      providerData: { api: "openai-responses", item: { type: "reasoning", id: "rs_emu_000001" } },
    });
    const item = (reasoning.providerData as unknown as { item: ResponsesItem }).item;
    expect(item.encrypted_content).toMatch(/^EmuEnc1\./);
    const [call] = eventsOf(agent, "tool/call").map((e) => e.data);
    // Step 2 carries the reasoning item byte for byte, then the call with its item id (paired), then the output.
    const step2 = responsesInput(bodyOf(server.requests[1]!));
    expect(step2.slice(1)).toEqual([
      item,
      {
        type: "function_call",
        call_id: "call_emu_000001",
        name: "read",
        arguments: call!.arguments,
        id: "fc_emu_000001_0",
      },
      { type: "function_call_output", call_id: "call_emu_000001", output: "contents of a.txt: forty-two lines" },
    ]);
    // The next turn still sends both reasoning items, each followed by its message or call.
    const step3 = responsesInput(bodyOf(server.requests[2]!));
    expect(step3.filter((i) => i.type === "reasoning").map((i) => i.id)).toEqual(["rs_emu_000001", "rs_emu_000002"]);
    expect(step3.find((i) => i.type === "message")).toMatchObject({ id: "msg_emu_000002", role: "assistant" });
    expect(usages(agent)[0]!.reasoningTokens).toBeGreaterThan(0);
    expectHealthy(agent, server, "responses");
  });

  test("parallel tool calls split across deltas run in model order; each output pairs with its call_id", async () => {
    const path = "docs/a-rather-long-file-name-that-splits.txt";
    const server = await emulator({
      model: new ScriptedEmulatorModel([
        {
          toolCalls: [
            { name: "read", arguments: { path } },
            { name: "read", arguments: { path: "b.txt" } },
            { name: "read", arguments: { path: "c.txt" } },
          ],
        },
        { text: "All read." },
      ]),
    });
    const agent = agentOn("responses", server);
    const pieces = argumentPieces(agent);
    expect((await agent.send("read them")).reason).toEqual({ kind: "completed" });
    expect([...pieces.values()][0]!.length, "arguments arrived in several deltas").toBeGreaterThanOrEqual(2);
    const calls = eventsOf(agent, "tool/call").map((e) => e.data);
    expect(calls.map((c) => JSON.parse(c.arguments))).toEqual([{ path }, { path: "b.txt" }, { path: "c.txt" }]);
    const followUp = responsesInput(bodyOf(server.requests[1]!));
    // No reasoning to pair with: the calls go back without item ids, then one output per call.
    expect(followUp.slice(1).map((i) => [i.type, i.call_id, "id" in i])).toEqual([
      ["function_call", "call_emu_000001", false],
      ["function_call", "call_emu_000002", false],
      ["function_call", "call_emu_000003", false],
      ["function_call_output", "call_emu_000001", false],
      ["function_call_output", "call_emu_000002", false],
      ["function_call_output", "call_emu_000003", false],
    ]);
    expectHealthy(agent, server, "responses");
  });

  test("an incomplete response (max_output_tokens) ends the turn 'max-tokens'; max_output_tokens carries the cap", async () => {
    const server = await emulator({ model: () => ({ text: "one two three four five six seven eight nine ten" }) });
    const agent = agentOn("responses", server, { maxTokens: 3 });
    expect((await agent.send("count")).reason).toEqual({ kind: "max-tokens" });
    expect(bodyOf(server.requests[0]!).max_output_tokens).toBe(3);
    expect(historyTexts(agent)).toEqual(["count", "one two three"]);
    expectHealthy(agent, server, "responses");
  });

  test("reasoning cut off by max_output_tokens (no item after it) is not sent back alone: the next turn still works", async () => {
    const server = await emulator({
      model: new ScriptedEmulatorModel([
        { reasoning: "A long chain of thought that uses up the whole budget of this answer.", text: "late" },
        { text: "Fine." },
      ]),
    });
    const agent = agentOn("responses", server, { maxTokens: 5 });
    expect((await agent.send("think")).reason).toEqual({ kind: "max-tokens" });
    expect(eventsOf(agent, "assistant/message")[0]!.data.content.map((b) => b.type)).toEqual(["reasoning"]);
    expect((await agent.send("again")).reason).toEqual({ kind: "completed" });
    expect(responsesInput(bodyOf(server.requests[1]!)).map((i) => i.type ?? i.role)).toEqual(["user", "user"]);
    expectHealthy(agent, server, "responses");
  });

  test("a stop sequence is refused before anything is sent: the Responses API has none", async () => {
    const server = await emulator({ model: () => ({ text: "never" }) });
    const agent = agentOn("responses", server, { stop: ["END"] });
    expect((await agent.send("go")).reason).toMatchObject({ kind: "error", code: "invalid-request" });
    expect(server.requests).toEqual([]);
  });
});
