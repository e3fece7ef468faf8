// The Anthropic endpoint driven through the real @anthropic-ai/sdk: text, thinking, tool calls
// split across deltas, non-stream responses, the stream helper, max_tokens and stop sequences,
// validation errors, authentication, request recording and prompt caching over HTTP.
import Anthropic, { type APIError as AnthropicAPIError } from "@anthropic-ai/sdk";
import { describe, expect, test } from "vitest";
import { countTokens, ScriptedEmulatorModel } from "../../src/emulator/index.js";
import { DEFAULT_MODELS, ModelRegistry } from "../../src/llm/index.js";
import { anthropicClient, emulator, filler, post, readTool, rejection } from "./support.js";

const MODEL = "claude-sonnet-4-5";
const hi = [{ role: "user" as const, content: "hi" }];

describe("Anthropic Messages through the SDK", () => {
  test("messages.stream().finalMessage() assembles text with end_turn and usage", async () => {
    const server = await emulator({
      model: new ScriptedEmulatorModel([{ text: "Hello from the emulator, streamed in pieces." }]),
    });
    const message = await anthropicClient(server)
      .messages.stream({ model: MODEL, max_tokens: 256, messages: hi })
      .finalMessage();
    expect(message.content).toStrictEqual([{ type: "text", text: "Hello from the emulator, streamed in pieces." }]);
    expect(message.stop_reason).toBe("end_turn");
    expect(message.usage).toMatchObject({
      output_tokens: countTokens("Hello from the emulator, streamed in pieces."),
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0,
    });
    expect(message.usage.input_tokens).toBeGreaterThan(0);
  });

  test("thinking streams thinking_delta pieces then a signature_delta, and assembles as a thinking block", async () => {
    const server = await emulator({
      model: () => ({ reasoning: "Let me think about this step by step.", text: "42" }),
    });
    const client = anthropicClient(server);
    const stream = await client.messages.create({ model: MODEL, max_tokens: 256, messages: hi, stream: true });
    const deltas: string[] = [];
    for await (const event of stream)
      if (event.type === "content_block_delta" && event.index === 0) deltas.push(event.delta.type);
    expect(deltas).toStrictEqual(["thinking_delta", "thinking_delta", "signature_delta"]);
    const message = await client.messages.stream({ model: MODEL, max_tokens: 256, messages: hi }).finalMessage();
    expect(message.content[0]).toMatchObject({
      type: "thinking",
      thinking: "Let me think about this step by step.",
      signature: expect.stringMatching(/^EmuSig/),
    });
    expect(message.content[1]).toStrictEqual({ type: "text", text: "42" });
  });

  test("a tool call streams its input as two or more input_json_delta pieces and ends with tool_use", async () => {
    const server = await emulator({
      model: new ScriptedEmulatorModel([
        {
          text: "Reading.",
          toolCalls: [{ name: "read_file", arguments: { path: "docs/a-rather-long-file-name.txt" } }],
        },
      ]),
    });
    const stream = await anthropicClient(server).messages.create({
      model: MODEL,
      max_tokens: 256,
      messages: hi,
      tools: [readTool],
      stream: true,
    });
    const pieces: string[] = [];
    let stopReason: string | null = null;
    for await (const event of stream) {
      if (event.type === "content_block_delta" && event.delta.type === "input_json_delta")
        pieces.push(event.delta.partial_json);
      if (event.type === "message_delta") stopReason = event.delta.stop_reason;
    }
    expect(pieces.length).toBeGreaterThanOrEqual(2);
    expect(JSON.parse(pieces.join(""))).toStrictEqual({ path: "docs/a-rather-long-file-name.txt" });
    expect(stopReason).toBe("tool_use");
  });

  test("the stream helper assembles text and tool_use blocks", async () => {
    const server = await emulator({
      model: () => ({ text: "Hello", toolCalls: [{ name: "read_file", arguments: { path: "a.txt" } }] }),
    });
    const message = await anthropicClient(server)
      .messages.stream({ model: MODEL, max_tokens: 256, messages: hi, tools: [readTool] })
      .finalMessage();
    expect(message.content).toStrictEqual([
      { type: "text", text: "Hello" },
      { type: "tool_use", id: "toolu_emu_000001", name: "read_file", input: { path: "a.txt" } },
    ]);
    expect(message.stop_reason).toBe("tool_use");
  });

  test("a non-stream request gets a plain JSON Message", async () => {
    const server = await emulator({ model: () => ({ text: "plain" }) });
    const message = await anthropicClient(server).messages.create({ model: MODEL, max_tokens: 256, messages: hi });
    expect(message).toMatchObject({
      id: "msg_emu_000001",
      type: "message",
      role: "assistant",
      model: MODEL,
      content: [{ type: "text", text: "plain" }],
      stop_reason: "end_turn",
      stop_sequence: null,
    });
    expect(Object.keys(message.usage).sort()).toStrictEqual([
      "cache_creation_input_tokens",
      "cache_read_input_tokens",
      "input_tokens",
      "output_tokens",
    ]);
  });

  test("max_tokens smaller than the reply truncates it and stops with max_tokens", async () => {
    const server = await emulator({
      model: () => ({
        text: "one two three four five six seven eight nine ten",
        toolCalls: [{ name: "read_file", arguments: {} }],
      }),
    });
    const message = await anthropicClient(server)
      .messages.stream({ model: MODEL, max_tokens: 3, messages: hi, tools: [readTool] })
      .finalMessage();
    expect(message.content).toStrictEqual([{ type: "text", text: "one two three" }]);
    expect(message.stop_reason).toBe("max_tokens");
    expect(message.usage.output_tokens).toBe(3);
  });

  test("a stop sequence cuts the text and is reported", async () => {
    const server = await emulator({ model: () => ({ text: "alpha END beta" }) });
    const message = await anthropicClient(server).messages.create({
      model: MODEL,
      max_tokens: 64,
      messages: hi,
      stop_sequences: ["END"],
    });
    expect(message.content).toStrictEqual([{ type: "text", text: "alpha " }]);
    expect(message).toMatchObject({ stop_reason: "stop_sequence", stop_sequence: "END" });
  });
});

describe("the rule-based model over HTTP (the offline demo's path)", () => {
  test("calls read_file for a named path, then summarizes the result and finishes", async () => {
    const client = anthropicClient(await emulator());
    const ask = [{ role: "user" as const, content: "What is in notes.txt?" }];
    const first = await client.messages
      .stream({ model: MODEL, max_tokens: 256, messages: ask, tools: [readTool] })
      .finalMessage();
    const call = first.content.find((b) => b.type === "tool_use");
    expect(call).toMatchObject({ name: "read_file", input: { path: "notes.txt" } });
    expect(first.stop_reason).toBe("tool_use");
    const second = await client.messages
      .stream({
        model: MODEL,
        max_tokens: 256,
        tools: [readTool],
        messages: [
          ...ask,
          { role: "assistant", content: first.content },
          {
            role: "user",
            content: [{ type: "tool_result", tool_use_id: call!.id, content: "buy milk\nwalk the dog" }],
          },
        ],
      })
      .finalMessage();
    expect(second.content).toStrictEqual([{ type: "text", text: 'read_file returned: "buy milk"' }]);
    expect(second.stop_reason).toBe("end_turn");
  });
});

describe("Anthropic validation and authentication", () => {
  const body = { model: MODEL, max_tokens: 16, messages: hi };

  test.each([
    ["a missing model", { max_tokens: 16, messages: hi }, "model: Field required"],
    ["a missing max_tokens", { model: MODEL, messages: hi }, "max_tokens: Field required"],
    ["missing messages", { model: MODEL, max_tokens: 16 }, "messages: Field required"],
  ])("%s is a 400 invalid_request_error", async (_name, payload, message) => {
    const server = await emulator();
    const response = await post(`${server.url}/v1/messages`, payload);
    expect(response.status).toBe(400);
    expect(JSON.parse(response.text)).toMatchObject({
      type: "error",
      error: { type: "invalid_request_error", message },
      request_id: expect.stringMatching(/^req_emu_/),
    });
  });

  test("more than 4 cache_control blocks is a 400, as the SDK's BadRequestError", async () => {
    const server = await emulator();
    const cc = { type: "ephemeral" as const };
    const messages = [
      {
        role: "user" as const,
        content: ["a", "b", "c", "d", "e"].map((text) => ({ type: "text" as const, text, cache_control: cc })),
      },
    ];
    const error = await rejection(() =>
      anthropicClient(server).messages.create({ model: MODEL, max_tokens: 16, messages }),
    );
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect((error as AnthropicAPIError).message).toContain(
      "A maximum of 4 blocks with cache_control may be provided. Found 5.",
    );
  });

  test("a tool_result without a tool_use in the previous message is a 400", async () => {
    const server = await emulator();
    const messages = [
      { role: "user" as const, content: [{ type: "tool_result" as const, tool_use_id: "toolu_x", content: "?" }] },
    ];
    const error = await rejection(() =>
      anthropicClient(server).messages.create({ model: MODEL, max_tokens: 16, messages }),
    );
    expect((error as AnthropicAPIError).status).toBe(400);
    expect((error as AnthropicAPIError).message).toContain(
      "unexpected `tool_use_id` found in `tool_result` blocks: toolu_x",
    );
  });

  test("a tool_use left unanswered by the next message is a 400", async () => {
    const server = await emulator();
    const messages = [
      { role: "user" as const, content: "go" },
      {
        role: "assistant" as const,
        content: [{ type: "tool_use" as const, id: "toolu_1", name: "read_file", input: {} }],
      },
      { role: "user" as const, content: "never mind" },
    ];
    const error = await rejection(() =>
      anthropicClient(server).messages.create({ model: MODEL, max_tokens: 16, messages }),
    );
    expect((error as AnthropicAPIError).message).toContain(
      "`tool_use` ids were found without `tool_result` blocks immediately after: toolu_1",
    );
  });

  test("a request without a key is a 401 authentication_error; x-api-key and Bearer are both accepted", async () => {
    const server = await emulator();
    const none = await post(`${server.url}/v1/messages`, body, {});
    expect(none.status).toBe(401);
    expect(JSON.parse(none.text)).toMatchObject({ type: "error", error: { type: "authentication_error" } });
    expect((await post(`${server.url}/v1/messages`, body, { "x-api-key": "k" })).status).toBe(200);
    expect((await post(`${server.url}/v1/messages`, body, { authorization: "Bearer k" })).status).toBe(200);
  });

  test("an unknown path is a 404 not_found_error", async () => {
    const server = await emulator();
    const response = await post(`${server.url}/v1/messages/batches`, body);
    expect(response.status).toBe(404);
    expect(JSON.parse(response.text)).toMatchObject({ error: { type: "not_found_error" } });
  });
});

describe("Anthropic requests are recorded without secrets", () => {
  test("keepRequests bounds the records to the latest ones (a long-running emulator); not an integer ≥ 0 is refused", async () => {
    const server = await emulator({ model: () => ({ text: "ok" }), keepRequests: 2 });
    const client = anthropicClient(server);
    for (const content of ["one", "two", "three"])
      await client.messages.create({ model: MODEL, max_tokens: 16, messages: [{ role: "user", content }] });
    expect(server.requests.map((r) => (r.body as { messages: { content: string }[] }).messages[0]!.content)).toEqual([
      "two",
      "three",
    ]);
    for (const keepRequests of [-1, 1.5, Number.NaN])
      await expect(emulator({ keepRequests })).rejects.toThrow(/keepRequests must be an integer ≥ 0/);
  });

  test("records method, path, headers minus the key, body, session key, usage and status", async () => {
    const server = await emulator({ model: () => ({ text: "ok" }) });
    await anthropicClient(server, "sk-secret-value").messages.create({
      model: MODEL,
      max_tokens: 16,
      messages: hi,
      metadata: { user_id: "session-7" },
    });
    const [record] = server.requests;
    expect(record).toMatchObject({
      method: "POST",
      path: "/v1/messages",
      api: "anthropic",
      auth: "bearer",
      sessionKey: "session-7",
      status: 200,
      fault: undefined,
    });
    expect(record?.headers["anthropic-version"]).toBeDefined();
    expect(record?.headers.authorization).toBeUndefined();
    expect(JSON.stringify(record)).not.toContain("sk-secret-value");
    expect(record?.body).toMatchObject({ model: MODEL, max_tokens: 16 });
    expect(record?.usage).toMatchObject({ outputTokens: 1, cacheReadTokens: 0 });
  });

  test("scripts are answered per session key (metadata.user_id)", async () => {
    const model = new ScriptedEmulatorModel().pushFor("a", { text: "for a" }).pushFor("b", { text: "for b" });
    const client = anthropicClient(await emulator({ model }));
    const ask = async (user_id: string) =>
      (await client.messages.create({ model: MODEL, max_tokens: 16, messages: hi, metadata: { user_id } })).content;
    expect(await ask("b")).toStrictEqual([{ type: "text", text: "for b" }]);
    expect(await ask("a")).toStrictEqual([{ type: "text", text: "for a" }]);
  });
});

describe("Anthropic prompt caching over HTTP", () => {
  const cc = { type: "ephemeral" as const };
  const system = [{ type: "text" as const, text: filler(1500, "sys"), cache_control: cc }];

  test("the second request of a session reads the prefix the first one wrote", async () => {
    const server = await emulator({ model: () => ({ text: "ok" }) });
    const client = anthropicClient(server);
    const turn1 = [
      { role: "user" as const, content: [{ type: "text" as const, text: "first question", cache_control: cc }] },
    ];
    const first = await client.messages.create({ model: MODEL, max_tokens: 16, system, messages: turn1 });
    expect(first.usage.cache_read_input_tokens).toBe(0);
    expect(first.usage.cache_creation_input_tokens).toBeGreaterThan(1024);
    expect(first.usage.input_tokens).toBe(0);
    const turn2 = [
      { role: "user" as const, content: [{ type: "text" as const, text: "first question", cache_control: cc }] },
      { role: "assistant" as const, content: "ok" },
      { role: "user" as const, content: [{ type: "text" as const, text: "second question", cache_control: cc }] },
    ];
    const second = await client.messages
      .stream({ model: MODEL, max_tokens: 16, system, messages: turn2 })
      .finalMessage();
    expect(second.usage.cache_read_input_tokens).toBe(first.usage.cache_creation_input_tokens);
    expect(second.usage.cache_creation_input_tokens).toBe(countTokens("ok") + countTokens("second question"));
  });

  test("the cache is per API key, and expires on the server's simulated clock", async () => {
    const server = await emulator({ model: () => ({ text: "ok" }) });
    const ask = async (key: string) =>
      (await anthropicClient(server, key).messages.create({ model: MODEL, max_tokens: 16, system, messages: hi })).usage
        .cache_read_input_tokens;
    expect(await ask("key-a")).toBe(0);
    expect(await ask("key-b")).toBe(0);
    expect(await ask("key-a")).toBeGreaterThan(1024);
    server.clock.advance(300_001);
    expect(await ask("key-a")).toBe(0);
  });

  test("the minimum cacheable length follows the model registry unless overridden", async () => {
    const ask = async (server: Awaited<ReturnType<typeof emulator>>, model: string) =>
      (await anthropicClient(server).messages.create({ model, max_tokens: 16, system, messages: hi })).usage
        .cache_creation_input_tokens;
    const registry = new ModelRegistry([
      ...DEFAULT_MODELS,
      { ...new ModelRegistry().get(MODEL), id: "claude-large-minimum", minCacheableTokens: 4096 },
    ]);
    const withRegistry = await emulator({ model: () => ({ text: "ok" }), registry });
    expect(await ask(withRegistry, "claude-large-minimum")).toBe(0); // 4096-token minimum
    expect(await ask(withRegistry, "claude-sonnet-4-5")).toBeGreaterThan(1024); // 1024-token minimum
    const overridden = await emulator({
      model: () => ({ text: "ok" }),
      registry: new ModelRegistry(),
      minCacheableTokens: 4096,
    });
    expect(await ask(overridden, "claude-sonnet-4-5")).toBe(0);
  });
});
