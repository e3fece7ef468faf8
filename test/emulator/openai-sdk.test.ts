// The OpenAI-compatible endpoint driven through the real openai SDK: streamed text and tool
// calls, the stream helper, non-stream completions, the usage chunk only with include_usage,
// length truncation, DeepSeek usage fields and reasoning_content, validation, session keys and
// automatic prefix caching (OpenAI 128-token blocks, DeepSeek input+output units).
import OpenAI, { type APIError as OpenAIAPIError } from "openai";
import { describe, expect, test } from "vitest";
import { countTokens, MESSAGE_OVERHEAD_TOKENS, ScriptedEmulatorModel } from "../../src/emulator/index.js";
import { emulator, filler, openaiClient, post, rejection } from "./support.js";

const MODEL = "gpt-5.1";
const hi = [{ role: "user" as const, content: "hi" }];
const readTool = {
  type: "function" as const,
  function: {
    name: "read_file",
    description: "Read a file",
    parameters: { type: "object", properties: { path: { type: "string" } } },
  },
};

describe("Chat Completions through the SDK", () => {
  test("chat.completions.stream().finalChatCompletion() assembles text, tool calls and usage", async () => {
    const server = await emulator({
      model: () => ({ text: "Hello", toolCalls: [{ name: "read_file", arguments: { path: "a.txt" } }] }),
    });
    const completion = await openaiClient(server)
      .chat.completions.stream({
        model: MODEL,
        messages: hi,
        tools: [readTool],
        stream_options: { include_usage: true },
      })
      .finalChatCompletion();
    const choice = completion.choices[0]!;
    expect(choice.message.content).toBe("Hello");
    expect(choice.message.tool_calls?.[0]).toMatchObject({
      id: "call_emu_000001",
      type: "function",
      function: { name: "read_file", arguments: '{"path":"a.txt"}' },
    });
    expect(choice.finish_reason).toBe("tool_calls");
    expect(completion.usage).toMatchObject({ prompt_tokens_details: { cached_tokens: 0 } });
    expect(completion.usage?.total_tokens).toBe(
      (completion.usage?.prompt_tokens ?? 0) + (completion.usage?.completion_tokens ?? 0),
    );
  });

  test("a tool call streams id, type and name first, then its arguments in two or more pieces", async () => {
    const server = await emulator({
      model: () => ({ toolCalls: [{ name: "read_file", arguments: { path: "some/longer/path/to/a/file.txt" } }] }),
    });
    const stream = await openaiClient(server).chat.completions.create({
      model: MODEL,
      messages: hi,
      tools: [readTool],
      stream: true,
    });
    const calls: OpenAI.Chat.Completions.ChatCompletionChunk.Choice.Delta.ToolCall[] = [];
    let finish: string | null = null;
    for await (const chunk of stream) {
      calls.push(...(chunk.choices[0]?.delta.tool_calls ?? []));
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(calls[0]).toStrictEqual({
      index: 0,
      id: "call_emu_000001",
      type: "function",
      function: { name: "read_file", arguments: "" },
    });
    expect(calls.length).toBeGreaterThanOrEqual(3);
    expect(JSON.parse(calls.map((c) => c.function?.arguments ?? "").join(""))).toStrictEqual({
      path: "some/longer/path/to/a/file.txt",
    });
    expect(finish).toBe("tool_calls");
  });

  test("a non-stream request gets a chat.completion", async () => {
    const server = await emulator({ model: () => ({ text: "plain" }) });
    const completion = await openaiClient(server).chat.completions.create({ model: MODEL, messages: hi });
    expect(completion).toMatchObject({
      id: "chatcmpl-emu-000001",
      object: "chat.completion",
      created: 1_700_000_000,
      model: MODEL,
      choices: [{ index: 0, message: { role: "assistant", content: "plain" }, finish_reason: "stop" }],
    });
    expect(completion.usage).toMatchObject({ completion_tokens: 1, prompt_tokens_details: { cached_tokens: 0 } });
  });

  test("the usage chunk (choices: []) is sent only when include_usage is requested", async () => {
    const server = await emulator({ model: () => ({ text: "hello there" }) });
    const client = openaiClient(server);
    const withUsage: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    for await (const chunk of await client.chat.completions.create({
      model: MODEL,
      messages: hi,
      stream: true,
      stream_options: { include_usage: true },
    }))
      withUsage.push(chunk);
    expect(withUsage.at(-1)).toMatchObject({ choices: [], usage: { completion_tokens: 2 } });
    expect(withUsage.filter((c) => c.usage != null)).toHaveLength(1);
    const without: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    for await (const chunk of await client.chat.completions.create({ model: MODEL, messages: hi, stream: true }))
      without.push(chunk);
    expect(without.filter((c) => c.usage != null || c.choices.length === 0)).toHaveLength(0);
  });

  test("max_tokens (or max_completion_tokens) smaller than the reply stops with finish_reason length", async () => {
    const server = await emulator({ model: () => ({ text: "one two three four five six" }) });
    const client = openaiClient(server);
    const a = await client.chat.completions.create({ model: MODEL, messages: hi, max_tokens: 2 });
    expect(a.choices[0]).toMatchObject({ message: { content: "one two" }, finish_reason: "length" });
    const b = await client.chat.completions
      .stream({ model: MODEL, messages: hi, max_completion_tokens: 4, stream_options: { include_usage: true } })
      .finalChatCompletion();
    expect(b.choices[0]).toMatchObject({ message: { content: "one two three four" }, finish_reason: "length" });
    expect(b.usage?.completion_tokens).toBe(4);
  });
});

describe("DeepSeek style", () => {
  test("usage carries prompt_cache_hit/miss_tokens summing to prompt_tokens", async () => {
    const server = await emulator({ style: "deepseek", model: () => ({ text: "ok" }) });
    const completion = await openaiClient(server).chat.completions.create({ model: "any-model", messages: hi });
    const usage = completion.usage as unknown as Record<string, number>;
    expect(usage.prompt_cache_hit_tokens).toBe(0);
    expect(usage.prompt_cache_miss_tokens).toBe(usage.prompt_tokens);
  });

  test("deepseek-reasoner streams reasoning_content before content, even on an openai-style server", async () => {
    const server = await emulator({ model: () => ({ reasoning: "thinking it through carefully", text: "answer" }) });
    const kinds: string[] = [];
    for await (const chunk of await openaiClient(server).chat.completions.create({
      model: "deepseek-reasoner",
      messages: hi,
      stream: true,
    })) {
      const delta = chunk.choices[0]?.delta as Record<string, unknown> | undefined;
      if (typeof delta?.reasoning_content === "string") kinds.push("reasoning");
      if (typeof delta?.content === "string" && delta.content !== "") kinds.push("content");
    }
    expect(kinds).toStrictEqual(["reasoning", "reasoning", "content", "content"]);
  });

  test("OpenAI style hides reasoning and reports it as reasoning_tokens", async () => {
    const server = await emulator({ model: () => ({ reasoning: "hidden chain", text: "shown" }) });
    const completion = await openaiClient(server).chat.completions.create({ model: MODEL, messages: hi });
    expect(completion.choices[0]?.message).not.toHaveProperty("reasoning_content");
    expect(completion.usage?.completion_tokens_details?.reasoning_tokens).toBe(countTokens("hidden chain"));
  });

  test("a follow-up that extends the previous request by its answer hits ⌊(input + output) / 64⌋ × 64", async () => {
    const server = await emulator({ style: "deepseek", model: () => ({ text: "The file says hello." }) });
    const client = openaiClient(server);
    const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [
      { role: "system", content: filler(300, "s") },
      { role: "user", content: "what does it say?" },
    ];
    const first = await client.chat.completions.create({ model: "deepseek-chat", messages });
    const answer = first.choices[0]!.message.content!;
    const second = await client.chat.completions.create({
      model: "deepseek-chat",
      messages: [...messages, { role: "assistant", content: answer }, { role: "user", content: "thanks" }],
    });
    const unit = first.usage!.prompt_tokens + countTokens(answer) + MESSAGE_OVERHEAD_TOKENS;
    expect((second.usage as unknown as Record<string, number>).prompt_cache_hit_tokens).toBe(
      Math.floor(unit / 64) * 64,
    );
    expect(second.usage?.prompt_tokens_details?.cached_tokens).toBe(Math.floor(unit / 64) * 64);
  });
});

describe("OpenAI prompt caching and session keys", () => {
  test("a repeated prefix of 1024+ tokens is cached in 128-token blocks", async () => {
    const server = await emulator({ model: () => ({ text: "ok" }) });
    const client = openaiClient(server);
    const system = { role: "system" as const, content: filler(1500, "p") };
    const first = await client.chat.completions.create({
      model: MODEL,
      messages: [system, { role: "user", content: "one" }],
      prompt_cache_key: "session-1",
    });
    expect(first.usage?.prompt_tokens_details?.cached_tokens).toBe(0);
    const second = await client.chat.completions.create({
      model: MODEL,
      messages: [
        system,
        { role: "user", content: "one" },
        { role: "assistant", content: "ok" },
        { role: "user", content: "two" },
      ],
      prompt_cache_key: "session-1",
    });
    expect(second.usage?.prompt_tokens_details?.cached_tokens).toBe(Math.floor(first.usage!.prompt_tokens / 128) * 128);
    expect(server.requests.map((r) => r.sessionKey)).toStrictEqual(["session-1", "session-1"]);
  });

  test("prompt_cache_key, else user, else 'default' is the session key scripts are queued under", async () => {
    const model = new ScriptedEmulatorModel()
      .pushFor("pk", { text: "by key" })
      .pushFor("u", { text: "by user" })
      .push({ text: "shared" });
    const client = openaiClient(await emulator({ model }));
    const text = async (extra: object) =>
      (await client.chat.completions.create({ model: MODEL, messages: hi, ...extra })).choices[0]?.message.content;
    expect(await text({ user: "u" })).toBe("by user");
    expect(await text({ prompt_cache_key: "pk", user: "u" })).toBe("by key");
    expect(await text({})).toBe("shared");
  });
});

describe("OpenAI validation and authentication", () => {
  test("a tool message that answers no tool call is a 400 BadRequestError", async () => {
    const server = await emulator();
    const error = await rejection(() =>
      openaiClient(server).chat.completions.create({
        model: MODEL,
        messages: [...hi, { role: "tool", tool_call_id: "call_x", content: "?" }],
      }),
    );
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as OpenAIAPIError).message).toContain(
      "messages with role 'tool' must be a response to a preceeding message with 'tool_calls'",
    );
  });

  test("an assistant tool call without its tool message is a 400", async () => {
    const server = await emulator();
    const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [
      ...hi,
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "call_1", type: "function", function: { name: "read_file", arguments: "{}" } }],
      },
      { role: "user", content: "and?" },
    ];
    const error = await rejection(() => openaiClient(server).chat.completions.create({ model: MODEL, messages }));
    expect((error as OpenAIAPIError).message).toContain(
      "The following tool_call_ids did not have response messages: call_1",
    );
  });

  test("missing model or messages is a 400, a missing key a 401", async () => {
    const server = await emulator();
    const url = `${server.url}/v1/chat/completions`;
    expect(JSON.parse((await post(url, { messages: hi })).text)).toStrictEqual({
      error: {
        message: "you must provide a model parameter",
        type: "invalid_request_error",
        param: "model",
        code: null,
      },
    });
    expect((await post(url, { model: MODEL })).status).toBe(400);
    const unauthenticated = await post(url, { model: MODEL, messages: hi }, {});
    expect(unauthenticated.status).toBe(401);
    expect(JSON.parse(unauthenticated.text)).toMatchObject({
      error: { type: "invalid_request_error", code: "invalid_api_key" },
    });
  });

  test("DeepSeek-style base URLs without /v1 are served too", async () => {
    const server = await emulator({ style: "deepseek", model: () => ({ text: "ok" }) });
    const client = new OpenAI({ apiKey: "test", baseURL: server.url, maxRetries: 0 });
    expect(
      (await client.chat.completions.create({ model: "deepseek-chat", messages: hi })).choices[0]?.message.content,
    ).toBe("ok");
  });
});
