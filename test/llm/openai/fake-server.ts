// A minimal Chat Completions server for the adapter tests: `POST /v1/chat/completions` answered
// from a FIFO of canned replies, shaped like TOOLCHAIN.md §5 (SSE `data: <json>\n\n` events, a
// usage chunk with empty choices, `[DONE]`). It records every request body and can fail the way
// real servers do: an HTTP error, an error event mid-stream, a dropped socket, a stall.
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { OpenAICompatibleProvider, type OpenAICompatibleOptions } from "../../../src/llm/index.js";

export type FakeReply =
  /** SSE events (objects are JSON'd, strings sent as raw data); `[DONE]` unless `done: false`. */
  | { readonly sse: readonly (object | string)[]; readonly done?: boolean }
  /** A non-200 answer with a JSON body. */
  | { readonly status: number; readonly body: unknown; readonly headers?: Readonly<Record<string, string>> }
  /** The given events, then the socket is destroyed. */
  | { readonly dropAfter: readonly object[] }
  /** The given events (maybe none) after the 200 headers, then silence until the client goes away. */
  | { readonly hangAfter: readonly object[] }
  /** No answer at all, not even headers, until the client goes away. */
  | { readonly silent: true };

export interface ReceivedRequest {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  // biome-ignore lint/suspicious/noExplicitAny: the wire body is asserted field by field
  readonly body: any;
  /** Resolves when the client side of this request's connection has gone away. */
  readonly closed: Promise<void>;
}

export class FakeChatServer {
  readonly requests: ReceivedRequest[] = [];
  readonly #replies: FakeReply[] = [];
  readonly #server: Server;
  #port = 0;

  private constructor() {
    this.#server = createServer((req, res) => {
      let raw = "";
      req.setEncoding("utf8");
      req.on("data", (piece: string) => {
        raw += piece;
      });
      req.on("end", () => {
        const closed = new Promise<void>((resolve) => res.once("close", () => resolve()));
        this.requests.push({
          path: req.url ?? "",
          headers: req.headers,
          body: raw === "" ? undefined : JSON.parse(raw),
          closed,
        });
        const reply = this.#replies.shift();
        answer(res, reply ?? { status: 500, body: { error: { message: "fake server: no reply scripted" } } });
      });
    });
  }

  static async start(): Promise<FakeChatServer> {
    const fake = new FakeChatServer();
    await new Promise<void>((resolve) => fake.#server.listen(0, "127.0.0.1", resolve));
    fake.#port = (fake.#server.address() as AddressInfo).port;
    return fake;
  }

  /** With `/v1`, as the openai SDK expects. */
  get baseURL(): string {
    return `http://127.0.0.1:${this.#port}/v1`;
  }

  reply(...replies: FakeReply[]): this {
    this.#replies.push(...replies);
    return this;
  }

  /** The last request's body. */
  // biome-ignore lint/suspicious/noExplicitAny: see ReceivedRequest.body
  get body(): any {
    return this.requests.at(-1)?.body;
  }

  provider(options: Partial<OpenAICompatibleOptions> = {}): OpenAICompatibleProvider {
    return new OpenAICompatibleProvider({ flavor: "openai", apiKey: "test-key", baseURL: this.baseURL, ...options });
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve, reject) => this.#server.close((error) => (error ? reject(error) : resolve())));
  }
}

function answer(res: ServerResponse, reply: FakeReply): void {
  if ("status" in reply) {
    json(res, reply.status, reply.body, reply.headers);
    return;
  }
  if ("silent" in reply) return;
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  if ("sse" in reply) {
    for (const event of reply.sse) send(res, event);
    if (reply.done !== false) send(res, "[DONE]");
    res.end();
  } else if ("dropAfter" in reply) {
    for (const event of reply.dropAfter) send(res, event);
    // Let the events reach the client before the connection goes.
    res.write("", () => res.socket?.destroy());
  } else {
    for (const event of reply.hangAfter) send(res, event);
    res.flushHeaders();
  }
}

function send(res: ServerResponse, event: object | string): void {
  res.write(`data: ${typeof event === "string" ? event : JSON.stringify(event)}\n\n`);
}

function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

// --- chunk builders (TOOLCHAIN.md §5 shapes) ---

type Delta = Record<string, unknown>;

/** One `chat.completion.chunk` for choice 0. */
export function chunk(delta: Delta, finish: string | null = null): object {
  return {
    id: "chatcmpl-1",
    object: "chat.completion.chunk",
    created: 1_700_000_000,
    model: "gpt-test",
    choices: [{ index: 0, delta, finish_reason: finish }],
  };
}

/** The first chunk real servers send: the role, empty content. */
export const roleChunk = (): object => chunk({ role: "assistant", content: "" });

/** The trailing usage chunk (`include_usage`): no choices. */
export function usageChunk(usage: object): object {
  return {
    id: "chatcmpl-1",
    object: "chat.completion.chunk",
    created: 1_700_000_000,
    model: "gpt-test",
    choices: [],
    usage,
  };
}

export function toolDelta(index: number, fields: { id?: string; name?: string; arguments?: string }): Delta {
  const fn = {
    ...(fields.name === undefined ? {} : { name: fields.name }),
    ...(fields.arguments === undefined ? {} : { arguments: fields.arguments }),
  };
  return {
    tool_calls: [{ index, ...(fields.id === undefined ? {} : { id: fields.id, type: "function" }), function: fn }],
  };
}

/** A whole text answer: role, the text in pieces, finish, usage. */
export function textReply(
  pieces: readonly string[],
  usage: object = { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 },
): FakeReply {
  return { sse: [roleChunk(), ...pieces.map((p) => chunk({ content: p })), chunk({}, "stop"), usageChunk(usage)] };
}
