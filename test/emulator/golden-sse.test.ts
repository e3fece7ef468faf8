// Golden transcripts: the raw bytes each endpoint streams, fetched without an SDK and compared
// event by event, field by field, with the sequences TOOLCHAIN.md §5 documents for the real
// APIs (Anthropic `event:`/`data:` frames; OpenAI `data:` chunks ending in `[DONE]`).
import { describe, expect, test } from "vitest";
import { ScriptedEmulatorModel } from "../../src/emulator/index.js";
import { emulator, payloads, post } from "./support.js";

const M = "claude-sonnet-4-5";
const scripted = () =>
  new ScriptedEmulatorModel([
    {
      text: "Hello",
      toolCalls: [{ name: "read_file", arguments: '{"path": "a.txt"}' }],
      usage: { inputTokens: 12, cacheWriteTokens: 7, cacheReadTokens: 2048, outputTokens: 25 },
    },
  ]);

describe("Anthropic SSE transcript", () => {
  test("matches the documented event sequence and shapes", async () => {
    const server = await emulator({ model: scripted() });
    const response = await post(`${server.url}/v1/messages`, {
      model: M,
      max_tokens: 1024,
      stream: true,
      messages: [{ role: "user", content: "hi" }],
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(response.text).toMatch(/^event: message_start\ndata: \{.*\}\n\nevent: ping\ndata: \{"type":"ping"\}\n\n/);
    expect(response.events.map((e) => e.event)).toStrictEqual([
      "message_start",
      "ping",
      "content_block_start",
      "content_block_delta",
      "content_block_delta",
      "content_block_stop",
      "content_block_start",
      "content_block_delta",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    expect(payloads(response.events)).toStrictEqual([
      {
        type: "message_start",
        message: {
          id: "msg_emu_000001",
          type: "message",
          role: "assistant",
          model: M,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 12, output_tokens: 1, cache_creation_input_tokens: 7, cache_read_input_tokens: 2048 },
        },
      },
      { type: "ping" },
      { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
      { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hel" } },
      { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "lo" } },
      { type: "content_block_stop", index: 0 },
      {
        type: "content_block_start",
        index: 1,
        content_block: { type: "tool_use", id: "toolu_emu_000001", name: "read_file", input: {} },
      },
      { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: '{"path": ' } },
      { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: '"a.txt"}' } },
      { type: "content_block_stop", index: 1 },
      { type: "message_delta", delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 25 } },
      { type: "message_stop" },
    ]);
  });

  test("a thinking block opens empty, streams thinking_delta, then one signature_delta", async () => {
    const server = await emulator({ model: () => ({ reasoning: "abcd", text: "x" }) });
    const response = await post(`${server.url}/v1/messages`, {
      model: M,
      max_tokens: 64,
      stream: true,
      messages: [{ role: "user", content: "hi" }],
    });
    const events = payloads(response.events) as { type: string; index?: number }[];
    const block0 = events.filter((e) => e.index === 0);
    expect(block0[0]).toStrictEqual({
      type: "content_block_start",
      index: 0,
      content_block: { type: "thinking", thinking: "", signature: "" },
    });
    expect(block0.slice(1, 3)).toStrictEqual([
      { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "ab" } },
      { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "cd" } },
    ]);
    expect(block0[3]).toMatchObject({
      type: "content_block_delta",
      index: 0,
      delta: { type: "signature_delta", signature: expect.any(String) },
    });
    expect(block0[4]).toStrictEqual({ type: "content_block_stop", index: 0 });
  });

  test("the non-stream Message carries the same usage fields", async () => {
    const server = await emulator({ model: scripted() });
    const response = await post(`${server.url}/v1/messages`, {
      model: M,
      max_tokens: 1024,
      messages: [{ role: "user", content: "hi" }],
    });
    expect(JSON.parse(response.text)).toStrictEqual({
      id: "msg_emu_000001",
      type: "message",
      role: "assistant",
      model: M,
      content: [
        { type: "text", text: "Hello" },
        { type: "tool_use", id: "toolu_emu_000001", name: "read_file", input: { path: "a.txt" } },
      ],
      stop_reason: "tool_use",
      stop_sequence: null,
      usage: { input_tokens: 12, output_tokens: 25, cache_creation_input_tokens: 7, cache_read_input_tokens: 2048 },
    });
  });
});

describe("OpenAI SSE transcript", () => {
  const deepseekScript = () =>
    new ScriptedEmulatorModel([
      {
        text: "Hello",
        toolCalls: [{ name: "read_file", arguments: '{"path":"a.txt"}' }],
        usage: { inputTokens: 176, cacheReadTokens: 1024, outputTokens: 9 },
      },
    ]);
  const head = {
    id: "chatcmpl-emu-000001",
    object: "chat.completion.chunk",
    created: 1_700_000_000,
    model: "deepseek-chat",
  };
  const choice = (delta: object, finish_reason: string | null = null) => ({
    ...head,
    choices: [{ index: 0, delta, finish_reason }],
  });

  test("matches the documented chunk sequence, with the usage chunk and [DONE]", async () => {
    const server = await emulator({ model: deepseekScript(), style: "deepseek" });
    const response = await post(`${server.url}/v1/chat/completions`, {
      model: "deepseek-chat",
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: "user", content: "hi" }],
    });
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(response.events.every((e) => e.event === undefined)).toBe(true);
    expect(response.text.endsWith("data: [DONE]\n\n")).toBe(true);
    expect(payloads(response.events)).toStrictEqual([
      choice({ role: "assistant", content: "" }),
      choice({ content: "Hel" }),
      choice({ content: "lo" }),
      choice({
        tool_calls: [
          { index: 0, id: "call_emu_000001", type: "function", function: { name: "read_file", arguments: "" } },
        ],
      }),
      choice({ tool_calls: [{ index: 0, function: { arguments: '{"path":' } }] }),
      choice({ tool_calls: [{ index: 0, function: { arguments: '"a.txt"}' } }] }),
      choice({}, "tool_calls"),
      {
        ...head,
        choices: [],
        usage: {
          prompt_tokens: 1200,
          completion_tokens: 9,
          total_tokens: 1209,
          prompt_tokens_details: { cached_tokens: 1024 },
          prompt_cache_hit_tokens: 1024,
          prompt_cache_miss_tokens: 176,
        },
      },
      "[DONE]",
    ]);
  });

  test("without include_usage the stream ends with the finish chunk and [DONE]", async () => {
    const server = await emulator({ model: () => ({ text: "ok" }) });
    const response = await post(`${server.url}/v1/chat/completions`, {
      model: "gpt-5.1",
      stream: true,
      messages: [{ role: "user", content: "hi" }],
    });
    const events = payloads(response.events);
    expect(events.at(-1)).toBe("[DONE]");
    expect(events.at(-2)).toMatchObject({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] });
    expect(events.some((e) => typeof e === "object" && e !== null && "usage" in e)).toBe(false);
  });

  test("the non-stream chat.completion has OpenAI-style usage without DeepSeek fields", async () => {
    const server = await emulator({
      model: () => ({ text: "ok", usage: { inputTokens: 1000, cacheReadTokens: 1024, outputTokens: 3 } }),
    });
    const response = await post(`${server.url}/v1/chat/completions`, {
      model: "gpt-5.1",
      messages: [{ role: "user", content: "hi" }],
    });
    expect(JSON.parse(response.text)).toStrictEqual({
      id: "chatcmpl-emu-000001",
      object: "chat.completion",
      created: 1_700_000_000,
      model: "gpt-5.1",
      choices: [
        {
          index: 0,
          message: { role: "assistant", content: "ok", refusal: null },
          logprobs: null,
          finish_reason: "stop",
        },
      ],
      usage: {
        prompt_tokens: 2024,
        completion_tokens: 3,
        total_tokens: 2027,
        prompt_tokens_details: { cached_tokens: 1024 },
      },
    });
  });
});
