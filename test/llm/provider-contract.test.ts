// The provider contract (#24, "Done when"): every real adapter — Anthropic, OpenAI (Chat
// Completions and Responses), Gemini, and Anthropic on Bedrock and on Vertex — passes the same cases, through
// its official SDK, against the emulator speaking that provider's wire: streaming, tools,
// parallel tools, reasoning kept for replay, retryable HTTP failures with retry-after, the stall
// deadline, cancel mid-stream, usage and cache normalization (the adapter's buckets equal the
// emulator's accounting, and a repeated long prefix is read from the cache), malformed and cut
// streams, and the request body byte for byte as the wire function (what `keelson requests
// --wire` prints) builds it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EmulatorServer, startEmulator } from "../../src/emulator/index.js";
import type { ContentReply } from "../../src/emulator/types.js";
import {
  AnthropicProvider,
  anthropicRequestBody,
  GeminiProvider,
  geminiRequestBody,
  OpenAICompatibleProvider,
  OpenAIResponsesProvider,
  type Provider,
  ProviderError,
  type ProviderRequest,
  responsesRequestBody,
  responsesWireOptions,
  type StreamChunk,
} from "../../src/llm/index.js";
import { anthropicPlatformBody } from "../../src/llm/anthropic/index.js";
import { chatWireOptions, toChatCompletionsParams } from "../../src/llm/openai/index.js";
import type { AssistantContent, Message } from "../../src/messages/index.js";
import { assemble } from "./support.js";

interface Target {
  readonly name: string;
  readonly model: string;
  readonly make: (
    emulator: EmulatorServer,
    timeouts?: { stallTimeoutMs?: number; firstByteTimeoutMs?: number },
  ) => Provider;
  /** The body bytes the adapter's wire function builds for `request`. */
  readonly body: (request: ProviderRequest) => string;
  /** The path the SDK posts to. */
  readonly path: RegExp;
  /**
   * Reasoning comes back signed for replay (Anthropic, Gemini) or as an encrypted item (Responses);
   * OpenAI's Chat Completions keeps it hidden.
   */
  readonly reasoning: "signed" | "hidden";
}

const vertexAuth = {
  projectId: "proj",
  getRequestHeaders: async () => new Headers({ authorization: "Bearer ya29.test-token" }),
};

const TARGETS: readonly Target[] = [
  {
    name: "anthropic",
    model: "anthropic:claude-sonnet-4-5",
    make: (e, t) => new AnthropicProvider({ apiKey: "k", baseURL: e.anthropicBaseURL, ...t }),
    body: (r) => JSON.stringify(anthropicRequestBody(r, { defaultMaxTokens: 8192 })),
    path: /^\/v1\/messages$/,
    reasoning: "signed",
  },
  {
    name: "openai",
    model: "openai:gpt-5.1",
    make: (e, t) => new OpenAICompatibleProvider({ flavor: "openai", apiKey: "k", baseURL: e.openaiBaseURL, ...t }),
    body: (r) => JSON.stringify(toChatCompletionsParams(r, chatWireOptions({ flavor: "openai" }))),
    path: /^\/v1\/chat\/completions$/,
    reasoning: "hidden",
  },
  {
    name: "responses",
    model: "openai-responses:gpt-5.4",
    make: (e, t) => new OpenAIResponsesProvider({ apiKey: "k", baseURL: e.openaiBaseURL, ...t }),
    body: (r) => JSON.stringify(responsesRequestBody(r, responsesWireOptions())),
    path: /^\/v1\/responses$/,
    reasoning: "signed",
  },
  {
    name: "gemini",
    model: "gemini:gemini-2.5-flash",
    make: (e, t) => new GeminiProvider({ apiKey: "k", baseURL: e.geminiBaseURL, ...t }),
    body: (r) => JSON.stringify(geminiRequestBody(r)),
    path: /^\/v1beta\/models\/gemini-2\.5-flash:streamGenerateContent$/,
    reasoning: "signed",
  },
  {
    name: "bedrock",
    model: "bedrock:anthropic.claude-sonnet-4-5-20250929-v1:0",
    make: (e, t) =>
      new AnthropicProvider({
        platform: "bedrock",
        baseURL: e.bedrockBaseURL,
        platformOptions: { awsRegion: "us-east-1", awsAccessKey: "AKIDTEST", awsSecretKey: "secret" },
        ...t,
      }),
    body: (r) => JSON.stringify(anthropicPlatformBody(anthropicRequestBody(r, { defaultMaxTokens: 8192 }), "bedrock")),
    path: /^\/model\/anthropic\.claude-sonnet-4-5-20250929-v1:0\/invoke-with-response-stream$/,
    reasoning: "signed",
  },
  {
    name: "vertex",
    model: "vertex:claude-sonnet-4-5@20250929",
    make: (e, t) =>
      new AnthropicProvider({
        platform: "vertex",
        baseURL: e.vertexBaseURL,
        platformOptions: { region: "us-east5", projectId: "proj", authClient: vertexAuth },
        ...t,
      }),
    body: (r) => JSON.stringify(anthropicPlatformBody(anthropicRequestBody(r, { defaultMaxTokens: 8192 }), "vertex")),
    path: /^\/v1\/projects\/proj\/locations\/us-east5\/publishers\/anthropic\/models\/claude-sonnet-4-5@20250929:streamRawPredict$/,
    reasoning: "signed",
  },
];

const READ_TOOL = {
  name: "read",
  description: "Read a file",
  inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
};

/** The replies the emulator's model gives, in order (a test queues its own). */
const replies: ContentReply[] = [];
let emulator: EmulatorServer;

beforeAll(async () => {
  emulator = await startEmulator({ keepRawBodies: true, model: () => replies.shift() ?? { text: "ok" } });
}, 60_000); // startEmulator loads the tokenizer: slow on a busy machine
afterAll(async () => {
  await emulator.close();
});

function requestFor(
  target: Target,
  messages: readonly Message[],
  over: Partial<ProviderRequest> = {},
): ProviderRequest {
  return {
    model: target.model,
    system: "You are terse.",
    tools: [READ_TOOL],
    messages,
    signal: new AbortController().signal,
    sessionId: `contract-${target.name}`,
    ...over,
  };
}

const user = (text: string): Message => ({ role: "user", content: [{ type: "text", text }] });

/** Content without text blocks' `providerData` (the Responses API's message item ids). */
const withoutItemIds = (content: readonly AssistantContent[]): AssistantContent[] =>
  content.map((b) => {
    if (b.type !== "text" || b.providerData === undefined) return b;
    const { providerData: _ids, ...rest } = b;
    return rest;
  });

async function chunksOf(provider: Provider, request: ProviderRequest): Promise<StreamChunk[]> {
  const out: StreamChunk[] = [];
  for await (const chunk of provider.stream(request)) out.push(chunk);
  return out;
}

async function failure(run: () => Promise<unknown>): Promise<ProviderError> {
  try {
    await run();
  } catch (error) {
    expect(error).toBeInstanceOf(ProviderError);
    return error as ProviderError;
  }
  throw new Error("expected a ProviderError");
}

/** The last request the emulator recorded (asserting it went where the target's SDK posts). */
function lastRecorded(target: Target) {
  const record = emulator.requests.at(-1)!;
  expect(record.path).toMatch(target.path);
  return record;
}

describe.each(TARGETS)("provider contract: $name", (target) => {
  it("streams a text answer, with usage equal to the emulator's accounting, and sends the wire function's bytes", async () => {
    replies.push({ text: "Hello from the model, in a few pieces." });
    const request = requestFor(target, [user("say hello")]);
    const result = assemble(await chunksOf(target.make(emulator), request));
    expect(withoutItemIds(result.content)).toEqual([{ type: "text", text: "Hello from the model, in a few pieces." }]);
    expect(result.finish).toBe("stop");
    const record = lastRecorded(target);
    expect(record.status).toBe(200);
    expect(result.usage).toEqual(record.usage);
    expect(record.rawBody).toBe(target.body(request));
  });

  it("calls tools in parallel with distinct call ids, and the results round-trip", async () => {
    replies.push({
      toolCalls: [
        { name: "read", arguments: { path: "a.txt" } },
        { name: "read", arguments: { path: "b.txt" } },
      ],
    });
    const provider = target.make(emulator);
    const first = assemble(await chunksOf(provider, requestFor(target, [user("read a and b")])));
    expect(first.finish).toBe("tool-calls");
    const calls = first.content.filter((b) => b.type === "tool-call");
    expect(calls.map((c) => JSON.parse(c.arguments))).toEqual([{ path: "a.txt" }, { path: "b.txt" }]);
    expect(new Set(calls.map((c) => c.callId)).size).toBe(2);
    replies.push({ text: "a is 1, b is 2" });
    const results: Message[] = calls.map((c, i) => ({
      role: "tool",
      content: [
        { type: "tool-result", callId: c.callId, content: [{ type: "text", text: String(i + 1) }], isError: false },
      ],
    }));
    const request = requestFor(target, [
      user("read a and b"),
      { role: "assistant", content: first.content },
      ...results,
    ]);
    const second = assemble(await chunksOf(provider, request));
    expect(withoutItemIds(second.content)).toEqual([{ type: "text", text: "a is 1, b is 2" }]);
    const record = lastRecorded(target);
    expect(record.status).toBe(200);
    expect(record.rawBody).toBe(target.body(request));
    // The emulator saw each result answer its own call.
    const seen = record.request!.messages.filter((m) => m.role === "tool").map((m) => m.content[0].content[0]);
    expect(seen).toEqual([
      { type: "text", text: "1" },
      { type: "text", text: "2" },
    ]);
  });

  it("keeps reasoning for replay as the provider wants it, and the replay is accepted", async () => {
    replies.push({
      reasoning: "Let me think about the file.",
      toolCalls: [{ name: "read", arguments: { path: "x" } }],
    });
    const provider = target.make(emulator);
    const first = assemble(await chunksOf(provider, requestFor(target, [user("think, then read x")])));
    const reasoning = first.content.filter((b) => b.type === "reasoning");
    // Anthropic signs its thinking block; Gemini signs the part it came with (here the call);
    // Responses returns the reasoning item's encrypted content.
    const signatures = first.content.flatMap((b) => {
      const encrypted = (b.providerData?.item as { encrypted_content?: unknown } | undefined)?.encrypted_content;
      const own = b.providerData?.thoughtSignature ?? (b.type === "reasoning" ? (b.signature ?? encrypted) : undefined);
      return typeof own === "string" && own !== "" ? [own] : [];
    });
    if (target.reasoning === "hidden") {
      expect(reasoning).toEqual([]);
      expect(signatures).toEqual([]);
      expect(first.usage?.reasoningTokens).toBeGreaterThan(0);
    } else expect(signatures.length).toBeGreaterThan(0);
    replies.push({ text: "done" });
    const call = first.content.find((b) => b.type === "tool-call")!;
    const request = requestFor(target, [
      user("think, then read x"),
      { role: "assistant", content: first.content },
      {
        role: "tool",
        content: [
          { type: "tool-result", callId: call.callId, content: [{ type: "text", text: "x!" }], isError: false },
        ],
      },
    ]);
    await chunksOf(provider, request);
    const record = lastRecorded(target);
    expect(record.status).toBe(200);
    for (const signature of signatures) expect(record.rawBody).toContain(signature); // sent back, verbatim
  });

  it.each([
    ["http-429", "rate-limited"],
    ["http-529", "overloaded"],
    ["http-500", "server-error"],
  ] as const)("a %s is a retryable %s error", async (fault, code) => {
    emulator.faults.next(fault);
    const error = await failure(() => chunksOf(target.make(emulator), requestFor(target, [user("hi")])));
    expect(error).toMatchObject({ code, retryable: true });
    if (fault === "http-429") expect(error.retryAfterMs).toBe(1000);
  });

  it("an error event mid-stream is retryable", async () => {
    replies.push({ text: "a long enough answer to be cut somewhere in the middle of it" });
    emulator.faults.next({ kind: "stream-error", afterEvents: 1 });
    const error = await failure(() => chunksOf(target.make(emulator), requestFor(target, [user("hi")])));
    expect(error.retryable).toBe(true);
    expect(["overloaded", "server-error"]).toContain(error.code);
  });

  it("a stream event that is not JSON is a retryable protocol error", async () => {
    replies.push({ text: "an answer that will be garbled in transit, piece by piece" });
    emulator.faults.next({ kind: "malformed-sse", afterEvents: 1 });
    const error = await failure(() => chunksOf(target.make(emulator), requestFor(target, [user("hi")])));
    expect(error).toMatchObject({ code: "protocol", retryable: true });
  });

  it("a stream cut mid-event is a retryable connection error", async () => {
    replies.push({ text: "an answer whose connection drops partway through the stream" });
    emulator.faults.next({ kind: "reset", afterEvents: 1 });
    const error = await failure(() => chunksOf(target.make(emulator), requestFor(target, [user("hi")])));
    expect(error).toMatchObject({ code: "connection", retryable: true });
  });

  it("a stream that goes silent fails the stall deadline, retryably", async () => {
    replies.push({ text: "an answer that stops after its first event and never resumes" });
    emulator.faults.next({ kind: "stall", afterEvents: 1 });
    const provider = target.make(emulator, { stallTimeoutMs: 300, firstByteTimeoutMs: 5_000 });
    const error = await failure(() => chunksOf(provider, requestFor(target, [user("hi")])));
    emulator.releaseStalls();
    expect(error).toMatchObject({ code: "stalled", retryable: true });
  });

  it("a cancel mid-stream ends the stream without an error", async () => {
    replies.push({ text: "an answer that the caller cancels after its first piece arrives" });
    // The rest never comes after the first text piece (Anthropic: message_start, ping,
    // content_block_start, delta; OpenAI: role chunk, delta; Responses: created, in_progress, item
    // and content part added, delta; Gemini: one event): only the cancel can end it.
    const afterEvents =
      target.name === "gemini" ? 1 : target.name === "openai" ? 2 : target.name === "responses" ? 5 : 4;
    emulator.faults.next({ kind: "stall", afterEvents });
    const controller = new AbortController();
    const chunks: StreamChunk[] = [];
    const stream = target.make(emulator).stream(requestFor(target, [user("hi")], { signal: controller.signal }));
    for await (const chunk of stream) {
      chunks.push(chunk);
      if (chunk.type === "text-delta") controller.abort();
    }
    emulator.releaseStalls();
    expect(chunks.some((c) => c.type === "text-delta")).toBe(true);
    expect(chunks.filter((c) => c.type === "finish").every((c) => c.type === "finish" && c.reason === "aborted")).toBe(
      true,
    );
  });

  it("normalizes cache reads: a long prefix sent twice is read from the cache the second time", async () => {
    const system = `You follow the house rules.\n${"Rule: keep every answer short and exact. ".repeat(600)}`;
    const provider = target.make(emulator);
    replies.push({ text: "first" }, { text: "second" });
    const first = assemble(
      await chunksOf(provider, requestFor(target, [user("one")], { system, sessionId: `cache-${target.name}` })),
    );
    const second = assemble(
      await chunksOf(
        provider,
        requestFor(target, [user("one"), { role: "assistant", content: first.content }, user("two")], {
          system,
          sessionId: `cache-${target.name}`,
        }),
      ),
    );
    const record = lastRecorded(target);
    expect(second.usage).toEqual(record.usage);
    expect(second.usage!.cacheReadTokens).toBeGreaterThan(2048);
    expect(first.usage!.cacheReadTokens).toBe(0);
  });
});
