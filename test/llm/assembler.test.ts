// BlockAssembler: folds the chunk protocol (ARCHITECTURE.md §6) into assistant content, usage
// and a finish reason. Protocol violations are a ProviderError with code `protocol`.
import { describe, expect, test } from "vitest";
import { BlockAssembler, ProviderError, type StreamChunk } from "../../src/llm/index.js";
import { thrown } from "../support/thrown.js";
import { assemble, zeroUsage } from "./support.js";

const usage = { inputTokens: 10, cacheReadTokens: 200, cacheWriteTokens: 5, outputTokens: 7, reasoningTokens: 3 };

const textBlock = (index: number, ...parts: string[]): StreamChunk[] => [
  { type: "block-start", index, block: { type: "text" } },
  ...parts.map((text): StreamChunk => ({ type: "text-delta", index, text })),
  { type: "block-end", index },
];

/** An assembler that has already accepted `chunks`. */
function accepted(...chunks: StreamChunk[]): BlockAssembler {
  const assembler = new BlockAssembler();
  for (const chunk of chunks) assembler.push(chunk);
  return assembler;
}

function protocolError(assembler: BlockAssembler, chunk: StreamChunk): ProviderError {
  const error = thrown(() => assembler.push(chunk), ProviderError);
  expect(error.code).toBe("protocol");
  return error;
}

describe("assembling", () => {
  test("concatenates text deltas into one text block", () => {
    const result = assemble([...textBlock(0, "Hel", "lo, ", "world"), { type: "finish", reason: "stop" }]);
    expect(result).toStrictEqual({ content: [{ type: "text", text: "Hello, world" }], finish: "stop" });
  });

  test("keeps a reasoning block's signature", () => {
    const result = assemble([
      { type: "block-start", index: 0, block: { type: "reasoning" } },
      { type: "reasoning-delta", index: 0, text: "Let me " },
      { type: "reasoning-delta", index: 0, text: "think.", signature: "sig-abc" },
      { type: "block-end", index: 0 },
      { type: "finish", reason: "stop" },
    ]);
    expect(result.content).toStrictEqual([{ type: "reasoning", text: "Let me think.", signature: "sig-abc" }]);
  });

  test("a signature on an early delta survives later deltas without one", () => {
    const result = assemble([
      { type: "block-start", index: 0, block: { type: "reasoning" } },
      { type: "reasoning-delta", index: 0, text: "a", signature: "sig-1" },
      { type: "reasoning-delta", index: 0, text: "b" },
      { type: "block-end", index: 0 },
    ]);
    expect(result.content).toStrictEqual([{ type: "reasoning", text: "ab", signature: "sig-1" }]);
  });

  test("a reasoning block without a signature has no signature key", () => {
    const result = assemble([
      { type: "block-start", index: 0, block: { type: "reasoning" } },
      { type: "reasoning-delta", index: 0, text: "hmm" },
      { type: "block-end", index: 0 },
    ]);
    expect(result.content[0]).toStrictEqual({ type: "reasoning", text: "hmm" });
    expect(Object.hasOwn(result.content[0]!, "signature")).toBe(false);
  });

  test("a block-end's provider data is kept on its block (any block kind), and only there", () => {
    const data = { api: "openai-responses", id: "msg_1" };
    const result = assemble([
      { type: "block-start", index: 0, block: { type: "text" } },
      { type: "text-delta", index: 0, text: "hi" },
      { type: "block-end", index: 0, providerData: data },
      { type: "block-start", index: 1, block: { type: "tool-call", callId: "c", name: "read" } },
      { type: "block-end", index: 1 },
      { type: "finish", reason: "stop" },
    ]);
    expect(result.content).toStrictEqual([
      { type: "text", text: "hi", providerData: data },
      { type: "tool-call", callId: "c", name: "read", arguments: "" },
    ]);
  });

  test("concatenates a tool call's argument deltas as raw text", () => {
    const result = assemble([
      { type: "block-start", index: 0, block: { type: "tool-call", callId: "toolu_1", name: "read" } },
      { type: "tool-call-delta", index: 0, argumentsDelta: '{"pa' },
      { type: "tool-call-delta", index: 0, argumentsDelta: 'th": "a.ts"' },
      { type: "tool-call-delta", index: 0, argumentsDelta: "}" },
      { type: "block-end", index: 0 },
      { type: "finish", reason: "tool-calls" },
    ]);
    expect(result.content).toStrictEqual([
      { type: "tool-call", callId: "toolu_1", name: "read", arguments: '{"path": "a.ts"}' },
    ]);
    expect(result.finish).toBe("tool-calls");
  });

  test("a tool call without argument deltas has empty arguments", () => {
    const result = assemble([
      { type: "block-start", index: 0, block: { type: "tool-call", callId: "c", name: "ls" } },
      { type: "block-end", index: 0 },
    ]);
    expect(result.content).toStrictEqual([{ type: "tool-call", callId: "c", name: "ls", arguments: "" }]);
  });

  test("mixed blocks come out in index order", () => {
    const result = assemble([
      { type: "block-start", index: 0, block: { type: "reasoning" } },
      { type: "reasoning-delta", index: 0, text: "plan" },
      { type: "block-end", index: 0 },
      ...textBlock(1, "Reading both files."),
      { type: "block-start", index: 2, block: { type: "tool-call", callId: "c1", name: "read" } },
      { type: "tool-call-delta", index: 2, argumentsDelta: '{"path":"a"}' },
      { type: "block-end", index: 2 },
      { type: "block-start", index: 3, block: { type: "tool-call", callId: "c2", name: "read" } },
      { type: "tool-call-delta", index: 3, argumentsDelta: '{"path":"b"}' },
      { type: "block-end", index: 3 },
      { type: "finish", reason: "tool-calls" },
    ]);
    expect(result.content.map((b) => b.type)).toStrictEqual(["reasoning", "text", "tool-call", "tool-call"]);
    expect(result.content[3]).toStrictEqual({
      type: "tool-call",
      callId: "c2",
      name: "read",
      arguments: '{"path":"b"}',
    });
  });

  test("deltas to two open blocks may interleave", () => {
    const result = assemble([
      { type: "block-start", index: 0, block: { type: "tool-call", callId: "c1", name: "read" } },
      { type: "block-start", index: 1, block: { type: "tool-call", callId: "c2", name: "grep" } },
      { type: "tool-call-delta", index: 1, argumentsDelta: "{}" },
      { type: "tool-call-delta", index: 0, argumentsDelta: '{"path":"a"}' },
      { type: "block-end", index: 1 },
      { type: "block-end", index: 0 },
    ]);
    expect(result.content).toStrictEqual([
      { type: "tool-call", callId: "c1", name: "read", arguments: '{"path":"a"}' },
      { type: "tool-call", callId: "c2", name: "grep", arguments: "{}" },
    ]);
  });

  test("captures usage and the finish reason", () => {
    const result = assemble([
      ...textBlock(0, "ok"),
      { type: "usage", usage },
      { type: "finish", reason: "max-tokens" },
    ]);
    expect(result.usage).toStrictEqual(usage);
    expect(result.finish).toBe("max-tokens");
    expect(result.error).toBeUndefined();
  });

  test("the last usage chunk wins", () => {
    const result = assemble([
      { type: "usage", usage: zeroUsage },
      { type: "usage", usage },
      { type: "finish", reason: "stop" },
    ]);
    expect(result.usage).toStrictEqual(usage);
  });

  test("a result without a usage chunk has no usage key", () => {
    expect(Object.hasOwn(assemble([{ type: "finish", reason: "stop" }]), "usage")).toBe(false);
  });

  test("an error finish carries the provider's failure", () => {
    const failure = { message: "overloaded", code: "overloaded", retryable: true };
    expect(assemble([{ type: "finish", reason: "error", error: failure }])).toStrictEqual({
      content: [],
      finish: "error",
      error: failure,
    });
  });

  test("a stream that ends without a finish chunk is an error with code truncated", () => {
    const result = assemble(textBlock(0, "half an ans"));
    expect(result.finish).toBe("error");
    expect(result.error?.code).toBe("truncated");
    expect(result.content).toStrictEqual([{ type: "text", text: "half an ans" }]);
  });

  test("blocks still open at an aborted finish are kept as they are", () => {
    const result = assemble([
      { type: "block-start", index: 0, block: { type: "text" } },
      { type: "text-delta", index: 0, text: "partial" },
      { type: "finish", reason: "aborted" },
    ]);
    expect(result).toStrictEqual({ content: [{ type: "text", text: "partial" }], finish: "aborted" });
  });

  test("finished becomes true only at the finish chunk", () => {
    const assembler = accepted(...textBlock(0, "x"));
    expect(assembler.finished).toBe(false);
    assembler.push({ type: "finish", reason: "stop" });
    expect(assembler.finished).toBe(true);
  });
});

describe("protocol errors", () => {
  test("a block-start that skips an index", () => {
    protocolError(new BlockAssembler(), { type: "block-start", index: 1, block: { type: "text" } });
  });

  test("a block-start that repeats an index", () => {
    protocolError(accepted({ type: "block-start", index: 0, block: { type: "text" } }), {
      type: "block-start",
      index: 0,
      block: { type: "text" },
    });
  });

  test("a delta for a block that was never started", () => {
    const error = protocolError(new BlockAssembler(), { type: "text-delta", index: 0, text: "x" });
    expect(error.message).toContain("block 0");
  });

  test("a delta for a block that already ended", () => {
    protocolError(accepted(...textBlock(0, "done")), { type: "text-delta", index: 0, text: "more" });
  });

  test("a tool-call-delta for a closed tool call", () => {
    const start: StreamChunk = {
      type: "block-start",
      index: 0,
      block: { type: "tool-call", callId: "c", name: "read" },
    };
    protocolError(accepted(start, { type: "block-end", index: 0 }), {
      type: "tool-call-delta",
      index: 0,
      argumentsDelta: "{}",
    });
  });

  test("a block-end for a block that is not open", () => {
    protocolError(new BlockAssembler(), { type: "block-end", index: 0 });
    protocolError(accepted(...textBlock(0, "x")), { type: "block-end", index: 0 });
  });

  test("a text-delta on a tool-call block", () => {
    const assembler = accepted({
      type: "block-start",
      index: 0,
      block: { type: "tool-call", callId: "c", name: "read" },
    });
    const error = protocolError(assembler, { type: "text-delta", index: 0, text: "x" });
    expect(error.message).toContain("tool-call");
  });

  test("a reasoning-delta on a text block", () => {
    protocolError(accepted({ type: "block-start", index: 0, block: { type: "text" } }), {
      type: "reasoning-delta",
      index: 0,
      text: "x",
    });
  });

  test("a tool-call-delta on a text block", () => {
    protocolError(accepted({ type: "block-start", index: 0, block: { type: "text" } }), {
      type: "tool-call-delta",
      index: 0,
      argumentsDelta: "{}",
    });
  });

  test("any chunk after finish", () => {
    const finished = () => accepted({ type: "finish", reason: "stop" });
    protocolError(finished(), { type: "usage", usage });
    protocolError(finished(), { type: "finish", reason: "stop" });
    protocolError(finished(), { type: "block-start", index: 0, block: { type: "text" } });
  });

  test("a rejected chunk leaves the assembled content unchanged", () => {
    const assembler = accepted(...textBlock(0, "kept"));
    protocolError(assembler, { type: "text-delta", index: 0, text: "lost" });
    assembler.push({ type: "finish", reason: "stop" });
    expect(assembler.result().content).toStrictEqual([{ type: "text", text: "kept" }]);
  });
});
