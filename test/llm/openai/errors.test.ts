// Failures, through the real openai SDK: HTTP errors, errors and drops mid-stream, stalls,
// cancellation, protocol violations and missing keys, each as a typed ProviderError.
import OpenAI from "openai";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { OpenAICompatibleProvider, ProviderError, type StreamChunk } from "../../../src/llm/index.js";
import { thrown } from "../../support/thrown.js";
import { collect, request } from "../support.js";
import { chunk, FakeChatServer, roleChunk, toolDelta } from "./fake-server.js";

let server: FakeChatServer;
beforeEach(async () => {
  server = await FakeChatServer.start();
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await server.close();
});

/** The ProviderError a stream fails with (and the chunks it yielded before). */
async function failure(provider: OpenAICompatibleProvider): Promise<{ error: ProviderError; chunks: StreamChunk[] }> {
  const chunks: StreamChunk[] = [];
  try {
    for await (const c of provider.stream(request())) chunks.push(c);
  } catch (error) {
    expect(error).toBeInstanceOf(ProviderError);
    return { error: error as ProviderError, chunks };
  }
  throw new Error(`the stream did not fail; it yielded ${JSON.stringify(chunks)}`);
}

const apiError = (message: string, type: string, code: string | null = null) => ({
  error: { message, type, param: null, code },
});

describe("OpenAI adapter errors", () => {
  it("401 is auth, not retryable", async () => {
    server.reply({
      status: 401,
      body: apiError("Incorrect API key provided", "invalid_request_error", "invalid_api_key"),
    });
    const { error } = await failure(server.provider());
    expect(error).toMatchObject({ code: "auth", retryable: false, status: 401 });
    expect(error.message).toContain("Incorrect API key provided");
  });

  it("400 with a context-length message is context-overflow", async () => {
    server.reply({
      status: 400,
      body: apiError(
        "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.",
        "invalid_request_error",
        "context_length_exceeded",
      ),
    });
    const { error } = await failure(server.provider());
    expect(error).toMatchObject({ code: "context-overflow", retryable: false, status: 400 });
  });

  it("another 400 is invalid-request", async () => {
    server.reply({ status: 400, body: apiError("Invalid value for 'temperature'", "invalid_request_error") });
    expect((await failure(server.provider())).error).toMatchObject({ code: "invalid-request", retryable: false });
  });

  it("429 is rate-limited and retryable after the retry-after header", async () => {
    server.reply({
      status: 429,
      body: apiError("Rate limit reached", "requests", "rate_limit_exceeded"),
      headers: { "retry-after": "7" },
    });
    const { error } = await failure(server.provider());
    expect(error).toMatchObject({ code: "rate-limited", retryable: true, retryAfterMs: 7000, status: 429 });
    expect(server.requests).toHaveLength(1); // the SDK does not retry by itself
  });

  it.each([500, 503])("%i is a retryable server-error", async (status) => {
    server.reply({ status, body: apiError("The server had an error", "server_error") });
    expect((await failure(server.provider())).error).toMatchObject({ code: "server-error", retryable: true, status });
  });

  it("an error event mid-stream is a retryable server-error, after the chunks that came before", async () => {
    server.reply({
      sse: [
        roleChunk(),
        chunk({ content: "Hel" }),
        { error: { message: "The server had an error while processing your request.", type: "server_error" } },
      ],
    });
    const { error, chunks } = await failure(server.provider());
    expect(error).toMatchObject({ code: "server-error", retryable: true });
    expect(chunks.map((c) => c.type)).toEqual(["block-start", "text-delta"]);
  });

  it("an overloaded error event mid-stream is retryable overloaded", async () => {
    server.reply({
      sse: [roleChunk(), { error: { message: "Server overloaded, please retry", type: "server_error" } }],
    });
    expect((await failure(server.provider())).error).toMatchObject({ code: "overloaded", retryable: true });
  });

  it("a socket destroyed mid-stream is a retryable connection error", async () => {
    server.reply({ dropAfter: [roleChunk(), chunk({ content: "Hel" })] });
    const { error, chunks } = await failure(server.provider());
    expect(error).toMatchObject({ code: "connection", retryable: true });
    expect(chunks.some((c) => c.type === "finish")).toBe(false);
  });

  it("a refused connection is a retryable connection error naming the base URL and the cause", async () => {
    const url = server.baseURL;
    await server.close();
    const provider = new OpenAICompatibleProvider({ flavor: "compatible", baseURL: url });
    server = await FakeChatServer.start(); // for afterEach
    const { error } = await failure(provider);
    expect(error).toMatchObject({ code: "connection", retryable: true });
    expect(error.message).toMatch(new RegExp(`^could not reach the provider at ${url}: .*ECONNREFUSED`));
  });

  it("a stream that ends cleanly without a finish_reason is a retryable connection error", async () => {
    server.reply({ sse: [roleChunk(), chunk({ content: "Hel" })], done: false });
    expect((await failure(server.provider())).error).toMatchObject({ code: "connection", retryable: true });
  });

  it("a stream that goes silent after its headers is stalled: the request is aborted and the error retryable", async () => {
    server.reply({ hangAfter: [roleChunk(), chunk({ content: "Hel" })] });
    const { error, chunks } = await failure(server.provider({ stallTimeoutMs: 50 }));
    expect(error).toMatchObject({ code: "stalled", retryable: true });
    expect(chunks.map((c) => c.type)).toEqual(["block-start", "text-delta"]);
    await server.requests[0]!.closed; // the adapter hung up
  });

  it("a server that sends no headers at all fails the first-byte deadline, naming the base URL", async () => {
    server.reply({ silent: true });
    const { error } = await failure(server.provider({ firstByteTimeoutMs: 50 }));
    expect(error).toMatchObject({ code: "stalled", retryable: true });
    expect(error.message).toContain(server.baseURL);
    expect(error.message).toContain("first-byte timeout");
    // On a loaded box the 50 ms deadline can fire before the server has read the request; when
    // it has, the client closed that connection.
    await server.requests[0]?.closed;
  });

  it("headers then silence before the first event also fail the first-byte deadline, not the stall one", async () => {
    server.reply({ hangAfter: [] });
    const { error } = await failure(server.provider({ firstByteTimeoutMs: 50, stallTimeoutMs: 60_000 }));
    expect(error).toMatchObject({ code: "stalled", retryable: true });
    expect(error.message).toContain("first-byte timeout");
    // On a loaded box the 50 ms deadline can fire before the server has read the request; when
    // it has, the client closed that connection.
    await server.requests[0]?.closed;
  });

  it("an abort through request.signal stops the stream and closes the connection", async () => {
    server.reply({ hangAfter: [roleChunk(), chunk({ content: "Hel" })] });
    const controller = new AbortController();
    const chunks: StreamChunk[] = [];
    let caught: unknown;
    try {
      for await (const c of server.provider().stream(request({ signal: controller.signal }))) {
        chunks.push(c);
        if (c.type === "text-delta") controller.abort();
      }
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeUndefined();
    expect(chunks.at(-1)).toEqual({ type: "finish", reason: "aborted" });
    await server.requests[0]!.closed;
  });

  it("a consumer that stops reading early closes the connection", async () => {
    server.reply({ hangAfter: [roleChunk(), chunk({ content: "Hel" })] });
    for await (const c of server.provider().stream(request())) if (c.type === "text-delta") break;
    await server.requests[0]!.closed;
  });

  it("an already-aborted signal is not turned into a ProviderError: the stream ends aborted, nothing is sent", async () => {
    const controller = new AbortController();
    controller.abort();
    // The attempt every adapter shares (sdk-attempt.ts): a cancel is an end, never a failure.
    expect(await collect(server.provider(), request({ signal: controller.signal }))).toEqual([
      { type: "finish", reason: "aborted" },
    ]);
    expect(server.requests).toHaveLength(0);
  });

  it("a tool call delta without an id is a protocol error", async () => {
    server.reply({
      sse: [roleChunk(), chunk(toolDelta(0, { name: "read_file", arguments: "{}" })), chunk({}, "tool_calls")],
    });
    const { error } = await failure(server.provider());
    expect(error).toMatchObject({ code: "protocol", retryable: false });
    expect(error.message).toContain("without an id");
  });

  it("a tool call delta without a name is a protocol error", async () => {
    server.reply({
      sse: [roleChunk(), chunk(toolDelta(0, { id: "call_1", arguments: "{}" })), chunk({}, "tool_calls")],
    });
    expect((await failure(server.provider())).error).toMatchObject({ code: "protocol", retryable: false });
  });

  it("an event that is not JSON is a retryable protocol error (garbled in transit)", async () => {
    server.reply({ sse: [roleChunk(), "{not json"] });
    const client = new OpenAI({ apiKey: "k", baseURL: server.baseURL, maxRetries: 0, logLevel: "off" });
    expect((await failure(new OpenAICompatibleProvider({ flavor: "openai", client }))).error).toMatchObject({
      code: "protocol",
      retryable: true,
    });
  });

  it("a missing OpenAI key is an auth error naming OPENAI_API_KEY, at construction", () => {
    vi.stubEnv("OPENAI_API_KEY", undefined);
    const error = thrown(() => new OpenAICompatibleProvider({ flavor: "openai" }), ProviderError);
    expect(error.code).toBe("auth");
    expect(error.message).toContain("OPENAI_API_KEY");
  });

  it("a missing DeepSeek key is an auth error naming DEEPSEEK_API_KEY, at construction", () => {
    vi.stubEnv("DEEPSEEK_API_KEY", "");
    vi.stubEnv("OPENAI_API_KEY", "sk-openai");
    const error = thrown(() => new OpenAICompatibleProvider({ flavor: "deepseek" }), ProviderError);
    expect(error.code).toBe("auth");
    expect(error.message).toContain("DEEPSEEK_API_KEY");
  });

  it("reads the key from the environment and defaults the DeepSeek base URL", () => {
    vi.stubEnv("DEEPSEEK_API_KEY", "sk-deepseek");
    expect(new OpenAICompatibleProvider({ flavor: "deepseek" }).id).toBe("deepseek");
  });

  it("never sends the OpenAI key from the environment to a compatible server", async () => {
    vi.stubEnv("OPENAI_API_KEY", "sk-secret");
    server.reply({ sse: [roleChunk(), chunk({ content: "ok" }), chunk({}, "stop")] });
    await collect(new OpenAICompatibleProvider({ flavor: "compatible", baseURL: server.baseURL }));
    expect(server.requests[0]!.headers.authorization).not.toContain("sk-secret");
  });

  it("a compatible provider without a baseURL is rejected at construction", () => {
    expect(thrown(() => new OpenAICompatibleProvider({ flavor: "compatible" }), ProviderError).message).toContain(
      "baseURL",
    );
  });
});
