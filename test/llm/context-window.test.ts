// The pre-send context-window check (issue #12, P5): a request clearly larger than its model's
// window is refused with a final `context-overflow` naming the model, the estimate and the
// window — by both real adapters, before any network I/O; unknown models are not checked.
import { type AddressInfo, createServer } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import {
  AnthropicProvider,
  CONTEXT_OVERFLOW_MARGIN,
  contextWindowProblem,
  estimateRequestTokens,
  ModelRegistry,
  OpenAICompatibleProvider,
  type Provider,
  ProviderError,
} from "../../src/llm/index.js";
import type { Message } from "../../src/messages/index.js";
import { request } from "./support.js";

const registry = new ModelRegistry([
  {
    id: "small-model",
    provider: "openai",
    contextWindow: 1000,
    maxOutput: 100,
    minCacheableTokens: 0,
    pricing: { input: 0, cacheRead: 0, cacheWrite: 0, output: 0 },
  },
]);
const user = (text: string): Message => ({ role: "user", content: [{ type: "text", text }] });
/** `tokens` tokens under the default bytes/4 estimate. */
const text = (tokens: number): string => "abcd".repeat(tokens);

describe("contextWindowProblem", () => {
  it("refuses a request whose estimate clearly exceeds the window, naming model, estimate and window", () => {
    const problem = contextWindowProblem(
      request({ model: "openai:small-model", messages: [user(text(5000))] }),
      registry,
    );
    expect(problem).toBeInstanceOf(ProviderError);
    expect(problem).toMatchObject({ code: "context-overflow", retryable: false });
    expect(problem!.message).toBe(
      "the request to openai:small-model is about 5,000 tokens (estimated), far over the model's 1,000-token context window; it was not sent",
    );
  });

  it("lets a borderline request through: only an estimate past the margin is refused", () => {
    const at = (tokens: number) =>
      contextWindowProblem(request({ model: "small-model", messages: [user(text(tokens))] }), registry);
    expect(at(1000)).toBeUndefined();
    expect(at(1000 * CONTEXT_OVERFLOW_MARGIN)).toBeUndefined();
    expect(at(1000 * CONTEXT_OVERFLOW_MARGIN + 1)).toBeDefined();
  });

  it("does not check a model the registry does not know", () => {
    expect(contextWindowProblem(request({ model: "mystery", messages: [user(text(1e6))] }), registry)).toBeUndefined();
  });

  it("counts system, tools, text, tool calls and tool results; not images or reasoning", () => {
    const messages: Message[] = [
      user(text(10)),
      {
        role: "user",
        content: [{ type: "image", mediaType: "image/png", data: "A".repeat(1_000_000) }],
      },
      {
        role: "assistant",
        content: [
          { type: "reasoning", text: text(100_000) },
          { type: "tool-call", callId: "c1", name: "abcd", arguments: text(5) },
        ],
      },
      {
        role: "tool",
        content: [
          {
            type: "tool-result",
            callId: "c1",
            content: [
              { type: "text", text: text(7) },
              { type: "image", mediaType: "image/png", data: "A".repeat(1_000_000) },
            ],
            isError: false,
          },
        ],
      },
    ];
    const req = request({
      system: text(3),
      tools: [{ name: "abcd", description: text(2), inputSchema: { type: "object" } }],
      messages,
    });
    const schema = Math.ceil(JSON.stringify({ type: "object" }).length / 4);
    expect(estimateRequestTokens(req)).toBe(3 + 1 + 2 + schema + 10 + 1 + 5 + 7);
  });

  it("takes a real tokenizer when one is given", () => {
    const words = (n: number) => request({ model: "small-model", messages: [user("w ".repeat(n))] });
    const perWord = (t: string) => t.split(" ").filter(Boolean).length;
    expect(contextWindowProblem(words(1300), registry, perWord)).toBeDefined();
    expect(contextWindowProblem(words(1200), registry, perWord)).toBeUndefined();
  });
});

describe("the adapters refuse before any network I/O", () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
    close = undefined;
  });

  /** A TCP listener counting connections (a refused request must open none). */
  async function listener(): Promise<{ url: string; connections: () => number }> {
    let connections = 0;
    const server = createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    close = () => new Promise<void>((resolve) => server.close(() => resolve()));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, connections: () => connections };
  }

  it.each([
    ["Anthropic", "anthropic:claude-sonnet-4-5", (url: string) => new AnthropicProvider({ apiKey: "k", baseURL: url })],
    [
      "OpenAI-compatible",
      "deepseek:deepseek-chat",
      (url: string) => new OpenAICompatibleProvider({ flavor: "deepseek", apiKey: "k", baseURL: `${url}/v1` }),
    ],
  ] as const)("%s: a 10.8 MB prompt is a context-overflow and never reaches the socket", async (_name, model, make) => {
    const server = await listener();
    const provider: Provider = make(server.url);
    let caught: unknown;
    try {
      for await (const _ of provider.stream(request({ model, messages: [user("x".repeat(10_800_000))] }))) {
        // never
      }
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ProviderError);
    expect(caught).toMatchObject({ code: "context-overflow", retryable: false });
    expect((caught as Error).message).toContain(model);
    expect((caught as Error).message).toContain("2,700,000 tokens");
    expect(server.connections()).toBe(0);
  });

  it("a registry passed to the adapter decides; a model it does not know goes out unchecked", async () => {
    const server = await listener();
    // Node's fetch can hang when the server drops the socket mid-upload; the first-byte deadline
    // ends it — long enough that on a loaded box the connection is made first (the property).
    const provider = new AnthropicProvider({
      apiKey: "k",
      baseURL: server.url,
      models: new ModelRegistry([]),
      firstByteTimeoutMs: 5_000,
    });
    let caught: unknown;
    try {
      for await (const _ of provider.stream(
        request({ model: "claude-sonnet-4-5", messages: [user("x".repeat(2_000_000))] }),
      )) {
        // the listener drops the connection
      }
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ProviderError);
    expect(caught).toMatchObject({ retryable: true }); // a transport failure, not a refusal
    expect(server.connections()).toBeGreaterThan(0);
  });
});
