// The local-server flavors of the Chat Completions adapter (#24 §4): vLLM, llama.cpp's server,
// Ollama and LM Studio — default base URLs on localhost, no key needed and never the OpenAI one,
// llama.cpp's `cache_prompt`, and each server's cache figures normalized: llama.cpp's `timings`
// (`cache_n` reused, `prompt_n` processed) over the real SDK, `prompt_tokens_details.cached_tokens`
// (vLLM with --enable-prompt-tokens-details, newer llama.cpp), nothing reported (Ollama, LM Studio).
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { LOCAL_FLAVORS, OpenAICompatibleProvider, providerFromEnv } from "../../../src/llm/index.js";
import { chatUsage, chatWireOptions, toChatCompletionsParams } from "../../../src/llm/openai/index.js";
import { assembled, request } from "../support.js";
import { chunk, FakeChatServer, roleChunk, usageChunk } from "./fake-server.js";

let server: FakeChatServer;
beforeEach(async () => {
  server = await FakeChatServer.start();
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await server.close();
});

describe("local server flavors", () => {
  it.each([
    ["vllm", "http://localhost:8000/v1"],
    ["llamacpp", "http://localhost:8080/v1"],
    ["ollama", "http://localhost:11434/v1"],
    ["lmstudio", "http://localhost:1234/v1"],
  ] as const)("%s defaults to %s and needs no key (never the OpenAI key)", async (flavor, url) => {
    vi.stubEnv("OPENAI_API_KEY", "sk-must-not-leak");
    expect(new OpenAICompatibleProvider({ flavor }).baseURL).toBe(url);
    server.reply({ sse: [roleChunk(), chunk({ content: "hi" }), chunk({}, "stop")] });
    await assembled(new OpenAICompatibleProvider({ flavor, baseURL: server.baseURL }));
    expect(server.requests[0]!.headers.authorization).toBe("Bearer no-key");
  });

  it("a local server's own key variable is used when set (vLLM / llama.cpp started with --api-key)", async () => {
    vi.stubEnv("VLLM_API_KEY", "local-secret");
    server.reply({ sse: [roleChunk(), chunk({}, "stop")] });
    await assembled(new OpenAICompatibleProvider({ flavor: "vllm", baseURL: server.baseURL }));
    expect(server.requests[0]!.headers.authorization).toBe("Bearer local-secret");
  });

  it("wire: max_tokens, no prompt_cache_key; llama.cpp adds cache_prompt: true (and only llama.cpp)", () => {
    const req = request({
      model: "llamacpp:qwen3",
      maxTokens: 50,
      messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
    });
    for (const flavor of LOCAL_FLAVORS) {
      const body = toChatCompletionsParams(req, chatWireOptions({ flavor }));
      expect(body).toMatchObject({ model: "qwen3", max_tokens: 50, stream: true });
      expect(body).not.toHaveProperty("prompt_cache_key");
      expect("cache_prompt" in body, flavor).toBe(flavor === "llamacpp");
    }
    const llama = JSON.stringify(toChatCompletionsParams(req, chatWireOptions({ flavor: "llamacpp" })));
    expect(llama.endsWith(',"cache_prompt":true,"stream":true,"stream_options":{"include_usage":true}}')).toBe(true);
    expect(
      toChatCompletionsParams(req, chatWireOptions({ flavor: "llamacpp", cachePrompt: false })),
    ).not.toHaveProperty("cache_prompt");
  });

  it("llama.cpp: the final chunk's timings decide the split — cache_n reused, prompt_n processed (through the SDK)", async () => {
    server.reply({
      sse: [
        roleChunk(),
        chunk({ content: "ok" }),
        chunk({}, "stop"),
        {
          ...(usageChunk({ prompt_tokens: 3261, completion_tokens: 12, total_tokens: 3273 }) as object),
          timings: { cache_n: 3204, prompt_n: 57, prompt_ms: 812.3, predicted_n: 12 },
        },
      ],
    });
    const result = await assembled(new OpenAICompatibleProvider({ flavor: "llamacpp", baseURL: server.baseURL }));
    expect(result.usage).toEqual({ inputTokens: 57, cacheReadTokens: 3204, cacheWriteTokens: 0, outputTokens: 12 });
    expect(server.requests[0]!.body.cache_prompt).toBe(true);
  });

  it("llama.cpp without include_usage support: timings alone give the usage", () => {
    expect(chatUsage(undefined, { cache_n: 100, prompt_n: 20, predicted_n: 7 })).toEqual({
      inputTokens: 20,
      cacheReadTokens: 100,
      cacheWriteTokens: 0,
      outputTokens: 7,
    });
    // A full re-read is a finding: zero reused, not absent.
    expect(chatUsage(undefined, { cache_n: 0, prompt_n: 20 })).toMatchObject({ inputTokens: 20, cacheReadTokens: 0 });
    // Malformed timings fall back to the usage object.
    expect(
      chatUsage({ prompt_tokens: 9, completion_tokens: 1, total_tokens: 10 }, { cache_n: -1, prompt_n: 9 }),
    ).toEqual({
      inputTokens: 9,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      outputTokens: 1,
    });
  });

  it("vLLM (and newer llama.cpp): prompt_tokens_details.cached_tokens → cacheRead; Ollama / LM Studio report none: all uncached", () => {
    expect(
      chatUsage(
        {
          prompt_tokens: 2000,
          completion_tokens: 5,
          total_tokens: 2005,
          prompt_tokens_details: { cached_tokens: 1984 },
        },
        undefined,
      ),
    ).toEqual({ inputTokens: 16, cacheReadTokens: 1984, cacheWriteTokens: 0, outputTokens: 5 });
    expect(chatUsage({ prompt_tokens: 40, completion_tokens: 5, total_tokens: 45 }, undefined)).toEqual({
      inputTokens: 40,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      outputTokens: 5,
    });
  });

  it("Ollama's reasoning field streams into a reasoning block", async () => {
    server.reply({ sse: [roleChunk(), chunk({ reasoning: "hmm" }), chunk({ content: "yes" }), chunk({}, "stop")] });
    const result = await assembled(new OpenAICompatibleProvider({ flavor: "ollama", baseURL: server.baseURL }));
    expect(result.content).toEqual([
      { type: "reasoning", text: "hmm" },
      { type: "text", text: "yes" },
    ]);
  });

  it("providerFromEnv: `<server>:model` selectors, `<NAME>_BASE_URL`, no key required", () => {
    const ollama = providerFromEnv({ env: {}, model: "ollama:llama3.1:8b" });
    expect(ollama).toMatchObject({ model: "ollama:llama3.1:8b", baseURL: "http://localhost:11434/v1" });
    expect(ollama.provider.id).toBe("ollama");
    const llama = providerFromEnv({ env: { LLAMACPP_BASE_URL: "http://10.0.0.2:8080/v1" }, model: "llamacpp:any" });
    expect(llama.baseURL).toBe("http://10.0.0.2:8080/v1");
    expect(providerFromEnv({ env: {}, model: "lmstudio:qwen" }).baseURL).toBe("http://localhost:1234/v1");
    expect(providerFromEnv({ env: {}, model: "vllm:m" }).baseURL).toBe("http://localhost:8000/v1");
  });
});
