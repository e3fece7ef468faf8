// The request parsers: each wire normalizes into Keelson messages (tool results as tool
// messages, in order; reasoning kept) and cuts the request into cache units the way its
// provider does (Anthropic blocks with cache_control flags; OpenAI/DeepSeek whole messages).
import { describe, expect, test } from "vitest";
import { parseAnthropicRequest, parseOpenAIRequest, WireError } from "../../src/emulator/index.js";
import { thrown } from "../support/thrown.js";

const cc = { type: "ephemeral" };

describe("parseAnthropicRequest", () => {
  const body = {
    model: "m",
    max_tokens: 100,
    metadata: { user_id: "s-1" },
    system: [{ type: "text", text: "be brief", cache_control: cc }],
    tools: [{ name: "read_file", description: "Read", input_schema: { type: "object" } }],
    messages: [
      { role: "user", content: "read a.txt" },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "hm", signature: "sig" },
          { type: "tool_use", id: "t1", name: "read_file", input: { path: "a.txt" } },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "t1", content: "hello", cache_control: cc },
          { type: "text", text: "and?" },
        ],
      },
    ],
  };

  test("normalizes system, tools and messages into Keelson's vocabulary", () => {
    const { request } = parseAnthropicRequest(body);
    expect(request).toMatchObject({
      api: "anthropic",
      model: "m",
      system: "be brief",
      maxTokens: 100,
      sessionKey: "s-1",
      stream: false,
    });
    expect(request.tools).toStrictEqual([{ name: "read_file", description: "Read", inputSchema: { type: "object" } }]);
    expect(request.messages).toStrictEqual([
      { role: "user", content: [{ type: "text", text: "read a.txt" }] },
      {
        role: "assistant",
        content: [
          { type: "reasoning", text: "hm", signature: "sig" },
          { type: "tool-call", callId: "t1", name: "read_file", arguments: '{"path":"a.txt"}' },
        ],
      },
      {
        role: "tool",
        content: [{ type: "tool-result", callId: "t1", content: [{ type: "text", text: "hello" }], isError: false }],
      },
      { role: "user", content: [{ type: "text", text: "and?" }] },
    ]);
  });

  test("cuts tools, system blocks and content blocks into cache blocks flagged by cache_control", () => {
    const { blocks } = parseAnthropicRequest(body);
    expect(blocks.map((b) => b.breakpoint)).toStrictEqual([false, true, false, false, false, true, false]);
    expect(blocks.every((b) => b.tokens >= 0 && b.hash.length === 64)).toBe(true);
  });

  test("top-level cache_control marks the last block", () => {
    const { blocks } = parseAnthropicRequest({ ...body, cache_control: cc });
    expect(blocks.at(-1)?.breakpoint).toBe(true);
  });

  test("cache_control on a thinking block, an unknown block type, and a bad role are 400s", () => {
    const thinking = {
      ...body,
      messages: [
        body.messages[0],
        { role: "assistant", content: [{ type: "thinking", thinking: "x", signature: "s", cache_control: cc }] },
      ],
    };
    expect(thrown(() => parseAnthropicRequest(thinking), WireError).status).toBe(400);
    expect(
      thrown(
        () => parseAnthropicRequest({ ...body, messages: [{ role: "user", content: [{ type: "video" }] }] }),
        WireError,
      ).message,
    ).toContain("Input tag 'video'");
    expect(
      thrown(() => parseAnthropicRequest({ ...body, messages: [{ role: "system", content: "x" }] }), WireError).code,
    ).toBe("invalid-request");
  });
});

describe("parseOpenAIRequest", () => {
  const body = {
    model: "deepseek-chat",
    prompt_cache_key: "s-2",
    stream: true,
    stream_options: { include_usage: true },
    max_completion_tokens: 50,
    stop: "END",
    tools: [{ type: "function", function: { name: "read_file", parameters: { type: "object" } } }],
    messages: [
      { role: "system", content: "be brief" },
      {
        role: "user",
        content: [
          { type: "text", text: "look" },
          { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } },
        ],
      },
      {
        role: "assistant",
        content: null,
        reasoning_content: "ignored",
        tool_calls: [{ id: "c1", type: "function", function: { name: "read_file", arguments: "{}" } }],
      },
      { role: "tool", tool_call_id: "c1", content: "result" },
    ],
  };

  test("normalizes messages, keeps system text aside and reads the request options", () => {
    const { request, includeUsage } = parseOpenAIRequest(body);
    expect(includeUsage).toBe(true);
    expect(request).toMatchObject({
      api: "openai",
      system: "be brief",
      maxTokens: 50,
      stop: ["END"],
      sessionKey: "s-2",
      stream: true,
    });
    expect(request.messages).toStrictEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "look" },
          { type: "image", mediaType: "image/png", data: "AAAA" },
        ],
      },
      { role: "assistant", content: [{ type: "tool-call", callId: "c1", name: "read_file", arguments: "{}" }] },
      {
        role: "tool",
        content: [{ type: "tool-result", callId: "c1", content: [{ type: "text", text: "result" }], isError: false }],
      },
    ]);
  });

  test("one segment for the tools, then one per message with system messages in place", () => {
    expect(parseOpenAIRequest(body).segments).toHaveLength(5);
  });

  test("stream_options without stream is a 400", () => {
    expect(thrown(() => parseOpenAIRequest({ ...body, stream: false }), WireError).param).toBe("stream_options");
  });
});
