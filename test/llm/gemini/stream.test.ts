// The Gemini stream mapper (pure): runs of text and thought parts become one block each, a
// function call one block with a minted, stable id when Gemini sent none, a signature stays on
// the part it came with (a carrier block after a text or call), usage is normalized with the
// cached and thinking tokens in their buckets, and a stream without a finish reason is a
// retryable cut, a blocked prompt a final refusal.
import { describe, expect, it } from "vitest";
import { GeminiStreamMapper, normalizeGeminiUsage } from "../../../src/llm/gemini/index.js";
import type { GeminiChunk } from "../../../src/llm/gemini/index.js";
import { ProviderError, type StreamChunk } from "../../../src/llm/index.js";
import { assemble } from "../support.js";

const chunk = (parts: object[], extra: Partial<GeminiChunk> & { finishReason?: string } = {}): GeminiChunk => {
  const { finishReason, ...rest } = extra;
  return {
    responseId: "r9",
    candidates: [{ content: { parts: parts as never }, ...(finishReason === undefined ? {} : { finishReason }) }],
    ...rest,
  };
};

function run(chunks: readonly GeminiChunk[]): StreamChunk[] {
  const mapper = new GeminiStreamMapper();
  return [...chunks.flatMap((c) => mapper.map(c)), ...mapper.end()];
}

describe("GeminiStreamMapper", () => {
  it("assembles thoughts, text with its closing signature, and parallel calls with minted ids", () => {
    const result = assemble(
      run([
        chunk([{ text: "Plan", thought: true }]),
        chunk([{ text: "ning.", thought: true, thoughtSignature: "T" }]),
        chunk([{ text: "Hel" }]),
        chunk([{ text: "lo" }]),
        chunk([{ text: "", thoughtSignature: "S-text" }]),
        chunk([{ functionCall: { name: "read", args: { path: "a" } }, thoughtSignature: "S-call" }]),
        chunk([{ functionCall: { name: "read", args: { path: "b" }, id: "given" } }], {
          finishReason: "STOP",
          usageMetadata: {
            promptTokenCount: 100,
            cachedContentTokenCount: 60,
            candidatesTokenCount: 7,
            thoughtsTokenCount: 5,
          },
        }),
      ]),
    );
    const signed = (thoughtSignature: string) => ({ providerData: { api: "gemini", thoughtSignature } });
    expect(result.content).toEqual([
      { type: "reasoning", text: "Planning.", ...signed("T") },
      { type: "text", text: "Hello", ...signed("S-text") },
      { type: "tool-call", callId: "gemini_call_r9_0", name: "read", arguments: '{"path":"a"}', ...signed("S-call") },
      { type: "tool-call", callId: "given", name: "read", arguments: '{"path":"b"}' },
    ]);
    expect(result.finish).toBe("tool-calls");
    expect(result.usage).toEqual({
      inputTokens: 40,
      cacheReadTokens: 60,
      cacheWriteTokens: 0,
      outputTokens: 12,
      reasoningTokens: 5,
    });
  });

  it("a signed empty part of another kind is a part of its own; of the open run's kind it signs the run", () => {
    const result = assemble(
      run([
        chunk([{ text: "thinking", thought: true }]),
        chunk([{ text: "", thoughtSignature: "S" }], { finishReason: "STOP" }),
      ]),
    );
    expect(result.content).toEqual([
      { type: "reasoning", text: "thinking" },
      { type: "text", text: "", providerData: { api: "gemini", thoughtSignature: "S" } },
    ]);
  });

  it("maps MAX_TOKENS, and other finish reasons (safety, recitation) to a stop", () => {
    expect(assemble(run([chunk([{ text: "cut" }], { finishReason: "MAX_TOKENS" })])).finish).toBe("max-tokens");
    expect(assemble(run([chunk([{ text: "x" }], { finishReason: "SAFETY" })])).finish).toBe("stop");
  });

  it("a stream without a finish reason is a retryable connection error; a blocked prompt is final", () => {
    expect(() => run([chunk([{ text: "half" }])])).toThrow(ProviderError);
    try {
      run([chunk([{ text: "half" }])]);
    } catch (error) {
      expect(error).toMatchObject({ code: "connection", retryable: true });
    }
    try {
      run([{ promptFeedback: { blockReason: "SAFETY" } }]);
      throw new Error("expected a refusal");
    } catch (error) {
      expect(error).toMatchObject({ code: "invalid-request", retryable: false });
    }
  });

  it("a function call without a name breaks the protocol", () => {
    expect(() => new GeminiStreamMapper().map(chunk([{ functionCall: { args: {} } }]))).toThrow(/without a name/);
  });

  it("normalizes usage without cache or thinking fields", () => {
    expect(normalizeGeminiUsage({ promptTokenCount: 10, candidatesTokenCount: 3 })).toEqual({
      inputTokens: 10,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      outputTokens: 3,
    });
  });
});

describe("toGeminiError", () => {
  const apiError = (status: number, body: object): Error =>
    Object.assign(new Error(JSON.stringify(body)), { name: "ApiError", status });

  it("classifies Gemini's HTTP failures: retry delay, bad key, oversized prompt, overload", async () => {
    const { toGeminiError } = await import("../../../src/llm/gemini/index.js");
    const at = { aborted: false, baseURL: "https://g.example" };
    expect(
      toGeminiError(
        apiError(429, {
          error: {
            code: 429,
            message: "Quota exceeded",
            status: "RESOURCE_EXHAUSTED",
            details: [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "32s" }],
          },
        }),
        at,
      ),
    ).toMatchObject({ code: "rate-limited", retryable: true, retryAfterMs: 32_000 });
    expect(
      toGeminiError(
        apiError(400, {
          error: {
            code: 400,
            message: "API key not valid. Please pass a valid API key.",
            details: [{ reason: "API_KEY_INVALID" }],
          },
        }),
        at,
      ),
    ).toMatchObject({ code: "auth", retryable: false });
    expect(
      toGeminiError(
        apiError(400, {
          error: {
            code: 400,
            message: "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).",
          },
        }),
        at,
      ),
    ).toMatchObject({ code: "context-overflow", retryable: false });
    expect(
      toGeminiError(
        apiError(503, { error: { code: 503, message: "The model is overloaded. Please try again later." } }),
        at,
      ),
    ).toMatchObject({ code: "overloaded", retryable: true });
    expect(toGeminiError(new SyntaxError("Unexpected token m"), at)).toMatchObject({
      code: "protocol",
      retryable: true,
    });
  });
});
