// Chat Completions SSE → Keelson chunks, through the real openai SDK and a BlockAssembler.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { assemble, collect } from "../support.js";
import { chunk, FakeChatServer, roleChunk, textReply, toolDelta, usageChunk } from "./fake-server.js";

let server: FakeChatServer;
beforeEach(async () => {
  server = await FakeChatServer.start();
});
afterEach(() => server.close());

describe("OpenAI stream mapping", () => {
  it("streams text deltas into one text block, then usage and finish", async () => {
    server.reply(textReply(["Hel", "lo", " world"]));
    const chunks = await collect(server.provider());
    expect(chunks).toEqual([
      { type: "block-start", index: 0, block: { type: "text" } },
      { type: "text-delta", index: 0, text: "Hel" },
      { type: "text-delta", index: 0, text: "lo" },
      { type: "text-delta", index: 0, text: " world" },
      { type: "block-end", index: 0 },
      { type: "usage", usage: { inputTokens: 10, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 2 } },
      { type: "finish", reason: "stop" },
    ]);
  });

  it("assembles a tool call whose id, name and arguments arrive across many deltas", async () => {
    const args = '{"path": "src/index.ts", "limit": 20}';
    const pieces = args.match(/.{1,3}/g)!;
    server.reply({
      sse: [
        roleChunk(),
        chunk({ content: "Let me look." }),
        chunk(toolDelta(0, { id: "call_1", name: "read_file", arguments: "" })),
        ...pieces.map((p) => chunk(toolDelta(0, { arguments: p }))),
        chunk({}, "tool_calls"),
        usageChunk({ prompt_tokens: 50, completion_tokens: 20, total_tokens: 70 }),
      ],
    });
    const result = assemble(await collect(server.provider()));
    expect(result.finish).toBe("tool-calls");
    expect(result.content).toEqual([
      { type: "text", text: "Let me look." },
      { type: "tool-call", callId: "call_1", name: "read_file", arguments: args },
    ]);
  });

  it("keeps two parallel tool calls apart by their wire index, in arrival order", async () => {
    server.reply({
      sse: [
        roleChunk(),
        chunk(toolDelta(0, { id: "call_a", name: "read_file", arguments: '{"pa' })),
        chunk(toolDelta(1, { id: "call_b", name: "list_dir", arguments: '{"di' })),
        chunk(toolDelta(0, { arguments: 'th":"a"}' })),
        chunk(toolDelta(1, { arguments: 'r":"."}' })),
        chunk({}, "tool_calls"),
      ],
    });
    const chunks = await collect(server.provider());
    expect(chunks.filter((c) => c.type === "block-end")).toEqual([
      { type: "block-end", index: 0 },
      { type: "block-end", index: 1 },
    ]);
    expect(assemble(chunks).content).toEqual([
      { type: "tool-call", callId: "call_a", name: "read_file", arguments: '{"path":"a"}' },
      { type: "tool-call", callId: "call_b", name: "list_dir", arguments: '{"dir":"."}' },
    ]);
  });

  it("streams DeepSeek reasoning_content into a reasoning block before the text", async () => {
    server.reply({
      sse: [
        chunk({ role: "assistant", content: null, reasoning_content: "" }),
        chunk({ content: null, reasoning_content: "9.8 > 9.11 " }),
        chunk({ content: null, reasoning_content: "since .80 > .11" }),
        chunk({ content: "9.8", reasoning_content: null }),
        chunk({ content: " is greater." }),
        chunk({}, "stop"),
        usageChunk({
          prompt_tokens: 20,
          completion_tokens: 30,
          total_tokens: 50,
          prompt_cache_hit_tokens: 0,
          prompt_cache_miss_tokens: 20,
          completion_tokens_details: { reasoning_tokens: 25 },
        }),
      ],
    });
    const chunks = await collect(server.provider({ flavor: "deepseek" }));
    expect(chunks.filter((c) => c.type === "block-start")).toEqual([
      { type: "block-start", index: 0, block: { type: "reasoning" } },
      { type: "block-start", index: 1, block: { type: "text" } },
    ]);
    const result = assemble(chunks);
    expect(result.content).toEqual([
      { type: "reasoning", text: "9.8 > 9.11 since .80 > .11" },
      { type: "text", text: "9.8 is greater." },
    ]);
    expect(result.usage).toEqual({
      inputTokens: 20,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      outputTokens: 30,
      reasoningTokens: 25,
    });
  });

  it("reads the `reasoning` field some compatible servers use instead of reasoning_content", async () => {
    server.reply({ sse: [roleChunk(), chunk({ reasoning: "hmm" }), chunk({ content: "ok" }), chunk({}, "stop")] });
    expect(assemble(await collect(server.provider({ flavor: "compatible" }))).content).toEqual([
      { type: "reasoning", text: "hmm" },
      { type: "text", text: "ok" },
    ]);
  });

  it("numbers blocks by content position: reasoning, text, then each tool call", async () => {
    server.reply({
      sse: [
        roleChunk(),
        chunk({ reasoning_content: "think" }),
        chunk({ content: "answer" }),
        chunk(toolDelta(0, { id: "c1", name: "a", arguments: "{}" })),
        chunk(toolDelta(1, { id: "c2", name: "b", arguments: "{}" })),
        chunk({}, "tool_calls"),
      ],
    });
    const starts = (await collect(server.provider({ flavor: "deepseek" })))
      .filter((c) => c.type === "block-start")
      .map((c) => c.index);
    expect(starts).toEqual([0, 1, 2, 3]);
  });

  it.each([
    ["stop", "stop"],
    ["tool_calls", "tool-calls"],
    ["length", "max-tokens"],
    ["content_filter", "stop"],
  ])("maps finish_reason %s to %s", async (wire, keelson) => {
    server.reply({ sse: [roleChunk(), chunk({ content: "x" }), chunk({}, wire)] });
    expect((await collect(server.provider())).at(-1)).toEqual({ type: "finish", reason: keelson });
  });

  it("reports tool-calls when a compatible server says stop after tool calls", async () => {
    server.reply({
      sse: [roleChunk(), chunk(toolDelta(0, { id: "c1", name: "a", arguments: "{}" })), chunk({}, "stop")],
    });
    expect((await collect(server.provider({ flavor: "compatible" }))).at(-1)).toEqual({
      type: "finish",
      reason: "tool-calls",
    });
  });

  it("maps OpenAI usage: cached_tokens is the cache read, the rest of prompt_tokens is uncached input", async () => {
    server.reply(
      textReply(["hi"], {
        prompt_tokens: 2006,
        completion_tokens: 300,
        total_tokens: 2306,
        prompt_tokens_details: { cached_tokens: 1920 },
        completion_tokens_details: { reasoning_tokens: 256 },
      }),
    );
    expect(assemble(await collect(server.provider())).usage).toEqual({
      inputTokens: 86,
      cacheReadTokens: 1920,
      cacheWriteTokens: 0,
      outputTokens: 300,
      reasoningTokens: 256,
    });
  });

  it("maps OpenAI cache_write_tokens (GPT-5.6+) to the write bucket, out of the uncached input", async () => {
    server.reply(
      textReply(["hi"], {
        prompt_tokens: 5000,
        completion_tokens: 10,
        total_tokens: 5010,
        prompt_tokens_details: { cached_tokens: 3072, cache_write_tokens: 1800 },
      }),
    );
    expect(assemble(await collect(server.provider())).usage).toEqual({
      inputTokens: 128,
      cacheReadTokens: 3072,
      cacheWriteTokens: 1800,
      outputTokens: 10,
    });
  });

  it("maps DeepSeek usage: hit tokens are the cache read, miss tokens the uncached input", async () => {
    // TOOLCHAIN.md §5: DeepSeek also carries prompt_tokens_details.cached_tokens; prompt_tokens includes hits.
    server.reply(
      textReply(["hi"], {
        prompt_tokens: 1200,
        completion_tokens: 9,
        total_tokens: 1209,
        prompt_tokens_details: { cached_tokens: 1024 },
        prompt_cache_hit_tokens: 1024,
        prompt_cache_miss_tokens: 176,
      }),
    );
    expect(assemble(await collect(server.provider({ flavor: "deepseek" }))).usage).toEqual({
      inputTokens: 176,
      cacheReadTokens: 1024,
      cacheWriteTokens: 0,
      outputTokens: 9,
    });
  });

  it("accepts a stream that ends without [DONE]", async () => {
    server.reply({ sse: [roleChunk(), chunk({ content: "ok" }), chunk({}, "stop")], done: false });
    const result = assemble(await collect(server.provider()));
    expect(result).toEqual({ content: [{ type: "text", text: "ok" }], finish: "stop" });
  });

  it("finishes without a usage chunk when the server sends none", async () => {
    server.reply({ sse: [roleChunk(), chunk({ content: "ok" }), chunk({}, "stop")] });
    const chunks = await collect(server.provider({ flavor: "compatible" }));
    expect(chunks.some((c) => c.type === "usage")).toBe(false);
    expect(chunks.at(-1)).toEqual({ type: "finish", reason: "stop" });
  });

  it("shows a refusal as text", async () => {
    server.reply({ sse: [roleChunk(), chunk({ refusal: "I can't help with that." }), chunk({}, "stop")] });
    expect(assemble(await collect(server.provider())).content).toEqual([
      { type: "text", text: "I can't help with that." },
    ]);
  });
});
