// The Chat Completions request the server receives, through the real openai SDK.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Message } from "../../../src/messages/index.js";
import { collect, request } from "../support.js";
import { FakeChatServer, textReply } from "./fake-server.js";

let server: FakeChatServer;
beforeEach(async () => {
  server = (await FakeChatServer.start()).reply(textReply(["ok"]));
});
afterEach(() => server.close());

const user = (text: string): Message => ({ role: "user", content: [{ type: "text", text }] });

const toolRoundTrip: Message[] = [
  user("read a.txt"),
  {
    role: "assistant",
    content: [
      { type: "reasoning", text: "I should read it." },
      { type: "text", text: "Reading." },
      { type: "tool-call", callId: "call_1", name: "read_file", arguments: '{"path":"a.txt"}' },
      { type: "tool-call", callId: "call_2", name: "stat", arguments: '{"path":"a.txt"}' },
    ],
  },
  {
    role: "tool",
    content: [
      {
        type: "tool-result",
        callId: "call_1",
        content: [
          { type: "text", text: "hello" },
          { type: "image", mediaType: "image/png", data: "AAAA" },
        ],
        isError: false,
      },
    ],
  },
  {
    role: "tool",
    content: [
      { type: "tool-result", callId: "call_2", content: [{ type: "text", text: "no such file" }], isError: true },
    ],
  },
  {
    role: "assistant",
    content: [
      { type: "reasoning", text: "It says hello." },
      { type: "text", text: "It says hello." },
    ],
  },
];

describe("OpenAI wire params", () => {
  it("posts to /v1/chat/completions with the key, the model without its provider prefix, stream and include_usage", async () => {
    await collect(server.provider(), request({ model: "openai:gpt-5.1" }));
    const received = server.requests[0]!;
    expect(received.path).toBe("/v1/chat/completions");
    expect(received.headers.authorization).toBe("Bearer test-key");
    expect(received.body).toMatchObject({ model: "gpt-5.1", stream: true, stream_options: { include_usage: true } });
  });

  it("sends the system prompt as the first message, as `developer` when asked", async () => {
    await collect(server.provider(), request({ system: "Be brief.", messages: [user("hi")] }));
    expect(server.body.messages).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "hi" },
    ]);
    server.reply(textReply(["ok"]));
    await collect(
      server.provider({ systemRole: "developer" }),
      request({ system: "Be brief.", messages: [user("hi")] }),
    );
    expect(server.body.messages[0]).toEqual({ role: "developer", content: "Be brief." });
  });

  it("serializes a tool round trip: assistant text + tool_calls, one tool message per result, reasoning dropped", async () => {
    await collect(server.provider(), request({ messages: toolRoundTrip }));
    expect(server.body.messages).toEqual([
      { role: "user", content: "read a.txt" },
      {
        role: "assistant",
        content: "Reading.",
        tool_calls: [
          { id: "call_1", type: "function", function: { name: "read_file", arguments: '{"path":"a.txt"}' } },
          { id: "call_2", type: "function", function: { name: "stat", arguments: '{"path":"a.txt"}' } },
        ],
      },
      { role: "tool", tool_call_id: "call_1", content: "hello\n[image]" },
      { role: "tool", tool_call_id: "call_2", content: "no such file" },
      { role: "assistant", content: "It says hello." },
    ]);
  });

  it("sends null content for an assistant message with only tool calls", async () => {
    const messages: Message[] = [
      user("go"),
      { role: "assistant", content: [{ type: "tool-call", callId: "c", name: "t", arguments: "{}" }] },
    ];
    await collect(server.provider(), request({ messages }));
    expect(server.body.messages[1]).toEqual({
      role: "assistant",
      content: null,
      tool_calls: [{ id: "c", type: "function", function: { name: "t", arguments: "{}" } }],
    });
  });

  it("sends a user message with images as content parts with data: URLs", async () => {
    const messages: Message[] = [
      {
        role: "user",
        content: [
          { type: "text", text: "what is this?" },
          { type: "image", mediaType: "image/jpeg", data: "/9j/4AAQ" },
        ],
      },
    ];
    await collect(server.provider(), request({ messages }));
    expect(server.body.messages[0]).toEqual({
      role: "user",
      content: [
        { type: "text", text: "what is this?" },
        { type: "image_url", image_url: { url: "data:image/jpeg;base64,/9j/4AAQ" } },
      ],
    });
  });

  it("maps tools to function tools with the input schema as parameters", async () => {
    const inputSchema = { type: "object", properties: { path: { type: "string" } }, required: ["path"] };
    await collect(
      server.provider(),
      request({
        messages: [user("hi")],
        tools: [
          { name: "read_file", description: "Read a file", inputSchema },
          { name: "now", inputSchema: { type: "object" } },
        ],
      }),
    );
    expect(server.body.tools).toEqual([
      { type: "function", function: { name: "read_file", description: "Read a file", parameters: inputSchema } },
      { type: "function", function: { name: "now", parameters: { type: "object" } } },
    ]);
  });

  it("omits tools, temperature, stop and the max-tokens field when the request has none", async () => {
    await collect(server.provider(), request({ messages: [user("hi")], tools: [] }));
    for (const key of ["tools", "temperature", "stop", "max_tokens", "max_completion_tokens"])
      expect(server.body).not.toHaveProperty(key);
  });

  it("sends temperature and stop", async () => {
    await collect(server.provider(), request({ messages: [user("hi")], temperature: 0.2, stop: ["END"] }));
    expect(server.body).toMatchObject({ temperature: 0.2, stop: ["END"] });
  });

  it("sends max_completion_tokens to OpenAI and max_tokens to DeepSeek and compatible servers", async () => {
    await collect(server.provider({ flavor: "openai" }), request({ messages: [user("hi")], maxTokens: 300 }));
    expect(server.body.max_completion_tokens).toBe(300);
    expect(server.body).not.toHaveProperty("max_tokens");
    for (const flavor of ["deepseek", "compatible"] as const) {
      server.reply(textReply(["ok"]));
      await collect(server.provider({ flavor }), request({ messages: [user("hi")], maxTokens: 300 }));
      expect(server.body.max_tokens).toBe(300);
      expect(server.body).not.toHaveProperty("max_completion_tokens");
    }
  });

  it("sends prompt_cache_key = the session id to OpenAI, not to DeepSeek, and as configured otherwise", async () => {
    await collect(server.provider({ flavor: "openai" }), request({ messages: [user("hi")], sessionId: "sess-42" }));
    expect(server.body.prompt_cache_key).toBe("sess-42");
    server.reply(textReply(["ok"]), textReply(["ok"]), textReply(["ok"]));
    await collect(server.provider({ flavor: "deepseek" }), request({ messages: [user("hi")], sessionId: "sess-42" }));
    expect(server.body).not.toHaveProperty("prompt_cache_key");
    await collect(server.provider({ flavor: "openai", promptCacheKey: false }), request({ messages: [user("hi")] }));
    expect(server.body).not.toHaveProperty("prompt_cache_key");
    await collect(
      server.provider({ flavor: "compatible", promptCacheKey: true }),
      request({ messages: [user("hi")], sessionId: "sess-42" }),
    );
    expect(server.body.prompt_cache_key).toBe("sess-42");
  });

  it("DeepSeek: replays reasoning_content only in user-to-user spans with a tool call", async () => {
    const messages: Message[] = [
      user("2+2?"),
      {
        role: "assistant",
        content: [
          { type: "reasoning", text: "trivial" },
          { type: "text", text: "4" },
        ],
      },
      ...toolRoundTrip,
      user("thanks"),
    ];
    await collect(server.provider({ flavor: "deepseek" }), request({ messages }));
    const assistants = (server.body.messages as { role: string; reasoning_content?: string }[]).filter(
      (m) => m.role === "assistant",
    );
    expect(assistants.map((m) => m.reasoning_content)).toEqual([undefined, "I should read it.", "It says hello."]);
  });

  it('DeepSeek: an assistant message of a tool-call span without reasoning sends reasoning_content "" (DeepSeek 400s on a missing one)', async () => {
    const call = (id: string): Message => ({
      role: "assistant",
      content: [{ type: "tool-call", callId: id, name: "read_file", arguments: "{}" }],
    });
    const result = (id: string): Message => ({
      role: "tool",
      content: [{ type: "tool-result", callId: id, content: [{ type: "text", text: "ok" }], isError: false }],
    });
    const messages: Message[] = [
      user("hi"),
      { role: "assistant", content: [{ type: "text", text: "hello" }] }, // no tool call: no field
      user("read a.txt"),
      call("c1"), // no reasoning block (DeepSeek streamed an empty reasoning_content)
      result("c1"),
      {
        role: "assistant",
        content: [
          { type: "reasoning", text: "done" },
          { type: "text", text: "It is ok." },
        ],
      },
      user("again"),
      call("c2"),
      result("c2"),
    ];
    await collect(server.provider({ flavor: "deepseek" }), request({ messages }));
    const assistants = (server.body.messages as Record<string, unknown>[]).filter((m) => m.role === "assistant");
    expect(assistants.map((m) => m.reasoning_content)).toEqual([undefined, "", "done", ""]);
    expect("reasoning_content" in assistants[0]!).toBe(false);
  });

  it("OpenAI and compatible servers never get reasoning_content, even in tool-call spans", async () => {
    server.reply(textReply(["ok"]));
    await collect(server.provider(), request({ messages: [user("read a.txt"), ...toolRoundTrip] }));
    await collect(
      server.provider({ flavor: "compatible", baseURL: server.baseURL }),
      request({ messages: [user("read a.txt"), ...toolRoundTrip] }),
    );
    for (const received of server.requests)
      for (const m of received.body.messages as Record<string, unknown>[])
        expect(m).not.toHaveProperty("reasoning_content");
  });

  it("serializes the same request to the same bytes (the provider's prefix cache depends on it)", async () => {
    server.reply(textReply(["ok"]));
    const req = request({
      system: "S",
      messages: toolRoundTrip,
      tools: [{ name: "read_file", inputSchema: { type: "object" } }],
    });
    await collect(server.provider(), req);
    await collect(server.provider(), req);
    expect(JSON.stringify(server.requests[1]!.body)).toBe(JSON.stringify(server.requests[0]!.body));
  });
});
