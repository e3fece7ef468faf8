// Builders for the serve tests: the AI SDK's own client path (DefaultChatTransport's parser over
// a Response, its chunk schema, readUIMessageStream), a provider that streams given chunks and
// can hold mid-stream until the test opens a gate, and an `echo` tool.
import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Chat } from "@ai-sdk/react";
import {
  DefaultChatTransport,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  readUIMessageStream,
  type UIMessage,
  uiMessageChunkSchema,
} from "ai";
import { expect } from "vitest";
import type { Provider, ProviderRequest, StreamChunk } from "../../src/llm/core.js";
import { type Agent, ApprovalError, InputError, type TurnStream } from "../../src/loop/index.js";
import {
  type ChatAnswers,
  type ChatRequest,
  type PendingRequests,
  parseChatRequest,
  ServeError,
  type UIMessageChunk,
  uiMessageStreamResponse,
} from "../../src/serve/index.js";
import { defineTool, jsonSchema } from "../../src/tools/index.js";
import { deferred } from "../support/deferred.js";

export const echo = defineTool({
  name: "echo",
  description: "echoes",
  input: jsonSchema({ type: "object", properties: { text: { type: "string" } } }),
  readOnly: true,
  execute: (args: { text?: string }) => `echo: ${args.text ?? ""}`,
});

/** A tool `deploy` that needs approval before each call. */
export const deployTool = defineTool({
  name: "deploy",
  description: "Deploys.",
  input: jsonSchema<{ target: string }>({
    type: "object",
    properties: { target: { type: "string" } },
    required: ["target"],
  }),
  needsApproval: true,
  execute: ({ target }) => `deployed ${target}`,
});

/**
 * A tool `wait` (or `name`) that says when it runs (`running`) and returns once the test opens
 * `gate` — with `needsApproval`, only once a person approved it.
 */
export function waitingTool(name = "wait", needsApproval = false) {
  const gate = deferred();
  const running = deferred();
  const tool = defineTool({
    name,
    description: "waits",
    input: jsonSchema({ type: "object", properties: {} }),
    readOnly: true,
    needsApproval,
    execute: async () => {
      running.resolve();
      await gate.promise;
      return "waited";
    },
  });
  return { tool, gate, running };
}

const servers = new Set<Server>();

/** A node:http server on 127.0.0.1, port 0; its origin. `closeServers` (in afterEach) closes it. */
export async function listen(handler: RequestListener): Promise<string> {
  const server = createServer(handler);
  servers.add(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

export async function closeServers(): Promise<void> {
  const open = [...servers];
  servers.clear();
  for (const server of open) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

/** Drains a web stream. */
export async function collect<T>(stream: ReadableStream<T>): Promise<T[]> {
  const out: T[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return out;
    out.push(value);
  }
}

/** Every chunk (as JSON on the wire) passes the `ai` package's own chunk schema. */
export async function expectValidChunks(chunks: readonly UIMessageChunk[]): Promise<void> {
  const schema = uiMessageChunkSchema();
  for (const chunk of chunks) {
    const result = await schema.validate!(JSON.parse(JSON.stringify(chunk)));
    expect(result.success, `chunk ${JSON.stringify(chunk)}`).toBe(true);
  }
}

/**
 * What `readUIMessageStream` (the `ai` package) assembles from the chunks: the message's last
 * state, and the texts of the `error` chunks it reported. A chunk the reader cannot apply (a
 * delta for a part never started, an output for an unknown call) fails the test.
 */
export async function assemble(
  chunks: readonly UIMessageChunk[],
): Promise<{ message: UIMessage | undefined; errors: string[] }> {
  const stream = new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(JSON.parse(JSON.stringify(chunk)));
      controller.close();
    },
  });
  let message: UIMessage | undefined;
  const errors: string[] = [];
  const broken: string[] = [];
  const onError = (error: unknown): void => {
    const { name, message } = error as Error;
    (name === "AI_UIMessageStreamError" ? broken : errors).push(message);
  };
  for await (const state of readUIMessageStream({ stream, onError })) message = state;
  expect(broken, "chunks the reader could not apply").toEqual([]);
  return { message, errors };
}

/**
 * The chunks `useChat`'s default transport reads from `respond`'s Response (its SSE parser and
 * chunk schema; an invalid chunk throws), for a chat whose last message is `prompt`.
 */
export async function viaChatTransport(
  prompt: string,
  respond: (body: unknown, signal: AbortSignal | undefined) => Response | Promise<Response>,
): Promise<ReadableStream<UIMessageChunk>> {
  const transport = new DefaultChatTransport({
    api: "http://keelson.invalid/api/chat",
    fetch: async (_url, init) => respond(JSON.parse(String(init?.body)), init?.signal ?? undefined),
  });
  const stream = await transport.sendMessages({
    chatId: "chat-1",
    messages: [{ id: "m1", role: "user", parts: [{ type: "text", text: prompt }] }],
    abortSignal: undefined,
    trigger: "submit-message",
    messageId: undefined,
  });
  return stream as unknown as ReadableStream<UIMessageChunk>;
}

/** One provider call: chunks to stream, optionally holding before the chunk at `holdAt` until `gate` resolves. */
export interface ChunkReply {
  readonly chunks: readonly StreamChunk[];
  readonly holdAt?: number;
  readonly gate?: Promise<void>;
  /** Called when the stream reaches the hold. */
  readonly held?: () => void;
}

/** A provider answering each call with the next reply's chunks (a hold ends `aborted` on cancel). */
export function chunkProvider(replies: readonly ChunkReply[]): Provider & { readonly calls: number } {
  const queue = [...replies];
  let calls = 0;
  return {
    id: "chunks",
    get calls() {
      return calls;
    },
    async *stream(request: ProviderRequest): AsyncGenerator<StreamChunk> {
      calls++;
      const reply = queue.shift();
      if (reply === undefined) throw new Error("chunkProvider: no reply left");
      for (const [i, chunk] of reply.chunks.entries()) {
        if (i === reply.holdAt && reply.gate !== undefined) {
          reply.held?.();
          const aborted = new Promise<"aborted">((resolve) =>
            request.signal.addEventListener("abort", () => resolve("aborted"), { once: true }),
          );
          if ((await Promise.race([reply.gate, aborted])) === "aborted" || request.signal.aborted) {
            yield { type: "finish", reason: "aborted" };
            return;
          }
        }
        yield chunk;
      }
    },
  };
}

/** The chunks of a text block `index` streamed as `pieces`. */
export function textChunks(index: number, ...pieces: string[]): StreamChunk[] {
  return [
    { type: "block-start", index, block: { type: "text" } },
    ...pieces.map((text): StreamChunk => ({ type: "text-delta", index, text })),
    { type: "block-end", index },
  ];
}

export const usage: StreamChunk = {
  type: "usage",
  usage: { inputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 1 },
};
export const finish = (reason: "stop" | "tool-calls" = "stop"): StreamChunk => ({ type: "finish", reason });

/** A page's `sendAutomaticallyWhen`. */
export type SendWhen = (options: { messages: UIMessage[] }) => boolean;

/**
 * A `Chat` (useChat's own class) whose transport calls `handler` in process, starting from
 * `messages` (a reloaded page); with `automatic` it sends once every approval of the last step is
 * answered (the AI SDK's check), or when that function says. `finished()` resolves when its next
 * request ends.
 */
export function chatOver(
  handler: (body: unknown) => Promise<Response>,
  automatic: boolean | SendWhen,
  messages?: UIMessage[],
) {
  const waiting: (() => void)[] = [];
  const chat = new Chat<UIMessage>({
    id: "chat-1",
    ...(messages === undefined ? {} : { messages }),
    transport: new DefaultChatTransport({
      api: "http://keelson.invalid/api/chat",
      fetch: async (_url, init) => handler(JSON.parse(String(init?.body))),
    }),
    ...(automatic === false
      ? {}
      : {
          sendAutomaticallyWhen: automatic === true ? lastAssistantMessageIsCompleteWithApprovalResponses : automatic,
        }),
    onFinish: () => waiting.shift()?.(),
  });
  return { chat, finished: () => new Promise<void>((resolve) => waiting.push(resolve)) };
}

/** What a `/api/chat` handler does with a parsed request (`chatHandler`). */
export interface ChatServer {
  /** The session's pending requests, for `parseChatRequest`. */
  readonly pending: () => PendingRequests | Promise<PendingRequests>;
  /** Streams the prompt or the answers. */
  readonly run: (chat: ChatRequest) => TurnStream;
  /** Checks answers before the response starts (`agent.checkAnswers`); its `ApprovalError` / `InputError` is a 409. */
  readonly check?: (chat: ChatAnswers) => Promise<void>;
}

/**
 * The server side of /api/chat in process: parse against `pending` (by "page"), check answers,
 * stream; each response's status is pushed on `seen` (a `ServeError`'s status, 409 for a refused
 * answer, else 500).
 */
export function chatHandler(server: ChatServer, seen: number[]) {
  return async (body: unknown): Promise<Response> => {
    try {
      const chat = parseChatRequest(body, { pending: await server.pending(), by: "page" });
      if (chat.kind === "answers") await server.check?.(chat);
      seen.push(200);
      return uiMessageStreamResponse(server.run(chat));
    } catch (error) {
      const refused = error instanceof ApprovalError || error instanceof InputError;
      const status = error instanceof ServeError ? error.status : refused ? 409 : 500;
      seen.push(status);
      return new Response(String(error), { status });
    }
  };
}

/** An agent serving /api/chat: `parseChatRequest` against its pending lists, answers checked first, then streamed. */
export const agentServer = (agent: Agent): ChatServer => ({
  pending: () => agent,
  run: (chat) => (chat.kind === "prompt" ? agent.stream(chat.content) : agent.streamAnswers(chat)),
  check: (chat) => agent.checkAnswers(chat),
});

/** A page (`chatOver`) served in process by `server`, each response's status on `seen`. */
export function pageOver(server: ChatServer, automatic: boolean | SendWhen, messages?: UIMessage[]) {
  const seen: number[] = [];
  return { ...chatOver(chatHandler(server, seen), automatic, messages), seen };
}

/**
 * Messages as a replay can rebuild them: the page's own approval answer (`approval.approved`,
 * `approval.reason`) has no chunk in the protocol — a replayed part shows the call's outcome (its
 * output, or `output-denied`) and the approval's id; a reload from the log shows all of it.
 */
export const withoutAnswers = (messages: readonly (UIMessage | undefined)[]): unknown =>
  (JSON.parse(JSON.stringify(messages)) as UIMessage[]).map((message) => ({
    ...message,
    parts: message.parts.map((part) => {
      const approval = (part as { approval?: { id: string } }).approval;
      return approval === undefined ? part : { ...part, approval: { id: approval.id } };
    }),
  }));
