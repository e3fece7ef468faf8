// A request aborted after its whole answer has arrived (found from outside: a turn cancelled
// mid-stream hung for ever, its session locked). The official Anthropic SDK over Node's fetch hands
// out the events it had buffered, then waits for ever on a body that was complete before the
// abort — so the provider never ended and the loop never logged the turn's end. The providers read
// an SDK's events only until the abort (src/llm/until-aborted.ts). Here a local server answers each
// request with the emulator's whole SSE body in one write and ends it; the consumer takes one
// chunk and aborts: every provider's stream must end at once, with no finish but `aborted` (each
// of the four SDKs waited for ever here before).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EmulatorServer, startEmulator } from "../../src/emulator/index.js";
import {
  AnthropicProvider,
  GeminiProvider,
  OpenAICompatibleProvider,
  OpenAIResponsesProvider,
  type Provider,
  type StreamChunk,
} from "../../src/llm/index.js";
import { untilAborted } from "../../src/llm/until-aborted.js";
import { createAgent } from "../../src/loop/index.js";
import { request } from "./support.js";

let emulator: EmulatorServer;
let server: Server;
let url: string;

beforeAll(async () => {
  emulator = await startEmulator({ keepRequests: 0, model: () => ({ text: "lorem ipsum ".repeat(400) }) });
  const upstream = new URL(emulator.anthropicBaseURL).origin;
  // Reads the emulator's whole answer, then sends it in one write and ends the response.
  server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers))
      if (typeof value === "string" && name !== "host" && name !== "content-length") headers[name] = value;
    const answer = await fetch(`${upstream}${req.url}`, {
      method: req.method ?? "POST",
      headers,
      body: Buffer.concat(chunks),
    });
    const body = Buffer.from(await answer.arrayBuffer());
    res.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "text/event-stream" });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 60_000); // startEmulator loads the tokenizer: slow on a busy machine
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await emulator.close();
});

const providers: [string, () => Provider, string][] = [
  ["Anthropic", () => new AnthropicProvider({ apiKey: "k", baseURL: url }), "emulator-anthropic"],
  [
    "OpenAI chat completions",
    () => new OpenAICompatibleProvider({ flavor: "compatible", apiKey: "k", baseURL: `${url}/v1` }),
    "emulator-openai",
  ],
  ["OpenAI Responses", () => new OpenAIResponsesProvider({ apiKey: "k", baseURL: `${url}/v1` }), "emulator-openai"],
  ["Gemini", () => new GeminiProvider({ apiKey: "k", baseURL: url }), "gemini-2.5-flash"],
];

describe("a request aborted once its whole answer has arrived", () => {
  it.each(providers)(
    "%s: the stream ends at the abort (an aborted finish at most), never waits on the SDK",
    async (_name, make, model) => {
      const controller = new AbortController();
      const messages = [{ role: "user" as const, content: [{ type: "text" as const, text: "hi" }] }];
      const stream = make()
        .stream(request({ model, messages, signal: controller.signal }))
        [Symbol.asyncIterator]();
      const first = await stream.next();
      expect(first.done).toBe(false);
      controller.abort();
      const after: StreamChunk[] = [];
      for (let read = await stream.next(); read.done !== true; read = await stream.next()) after.push(read.value);
      // At most the rest of the event already read (one event can map to a few chunks) — not the
      // hundreds of deltas the answer holds — and no finish but `aborted`.
      expect(after.length).toBeLessThan(4);
      for (const chunk of after) if (chunk.type === "finish") expect(chunk.reason).toBe("aborted");
    },
  );
});

describe("the turn over it", () => {
  it("a turn cancelled there ends aborted and is logged so (it used to hang, its session locked)", async () => {
    const agent = createAgent({
      provider: new AnthropicProvider({ apiKey: "k", baseURL: url }),
      model: "emulator-anthropic",
    });
    const stream = agent.stream("go");
    for await (const event of stream) if (event.type === "text-delta") break; // breaking out cancels the turn
    expect((await stream.outcome).reason).toEqual({ kind: "aborted", reason: "stream closed" });
    expect(agent.session.events.at(-1)?.type).toBe("turn/end");
    await agent.dispose();
  });
});

describe("untilAborted", () => {
  it("ends at the abort while a read waits, and closes the iterator without waiting for the close", async () => {
    let closed = false;
    const never = new Promise<IteratorResult<number>>(() => {});
    const events: AsyncIterable<number> = {
      [Symbol.asyncIterator]: () => ({
        next: () => never,
        return: () => {
          closed = true;
          return never; // a close that never settles either
        },
      }),
    };
    const controller = new AbortController();
    const reading = untilAborted(events, controller.signal).next();
    controller.abort();
    expect(await reading).toEqual({ done: true, value: undefined });
    expect(closed).toBe(true);
  });

  it("hands out every event until the end, and does not close an iterator that ended", async () => {
    let closes = 0;
    let at = 0;
    const events: AsyncIterable<number> = {
      [Symbol.asyncIterator]: () => ({
        next: async () => (at < 3 ? { done: false, value: ++at } : { done: true, value: undefined }),
        return: async () => {
          closes++;
          return { done: true, value: undefined };
        },
      }),
    };
    const read: number[] = [];
    for await (const n of untilAborted(events, new AbortController().signal)) read.push(n);
    expect(read).toEqual([1, 2, 3]);
    expect(closes).toBe(0);
    // Left early (the adapter's mapper threw, the consumer broke off): closed.
    at = 0;
    for await (const _n of untilAborted(events, new AbortController().signal)) break;
    expect(closes).toBe(1);
  });
});
