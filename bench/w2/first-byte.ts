// W2's latency over the wire: the time from the first byte of an answer's SSE body leaving a
// local HTTP server to the first turn event reaching a consumer of `agent.stream()`, through
// `AnthropicProvider` and the official SDK — loopback TCP, the SDK's SSE parsing and Keelson's
// adapter and feed. The server sends the headers at once and, a few ms later, the message start,
// the first block's start and its first delta in one write, stamping the clock just before it.
import { createServer, type Server } from "node:http";
import { performance } from "node:perf_hooks";
import { AnthropicProvider } from "../../src/llm/index.js";
import { createAgent } from "../../src/loop/index.js";

const TURNS = 400;
const WARMUP = 100;

const sse = (type: string, data: object): string => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
const MESSAGE = {
  id: "msg_bench",
  type: "message",
  role: "assistant",
  model: "claude-sonnet-4-5",
  content: [],
  stop_reason: null,
  stop_sequence: null,
  usage: { input_tokens: 10, output_tokens: 0 },
};
const HEAD =
  sse("message_start", { message: MESSAGE }) +
  sse("content_block_start", { index: 0, content_block: { type: "text", text: "" } }) +
  sse("content_block_delta", { index: 0, delta: { type: "text_delta", text: "hello" } });
const TAIL =
  sse("content_block_stop", { index: 0 }) +
  sse("message_delta", { delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 1 } }) +
  sse("message_stop", {});

export async function firstByteLatency(
  turns = TURNS,
  warmup = WARMUP,
): Promise<{ median: number; p99: number; turns: number }> {
  let sentAt = 0;
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.flushHeaders();
      setTimeout(() => {
        sentAt = performance.now();
        res.write(HEAD);
        setTimeout(() => res.end(TAIL), 1);
      }, 3);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const { port } = server.address() as { port: number };
    const provider = new AnthropicProvider({ apiKey: "bench", baseURL: `http://127.0.0.1:${port}` });
    const agent = createAgent({ provider, model: "anthropic:claude-sonnet-4-5", invariants: false });
    const samples: number[] = [];
    for (let i = 0; i < warmup + turns; i++) {
      let first: number | undefined;
      const stream = agent.stream(`prompt ${i}`);
      for await (const event of stream)
        if (first === undefined && event.type === "text-start") first = performance.now();
      if (first === undefined) throw new Error("no live event reached the consumer");
      if ((await stream.outcome).reason.kind !== "completed") throw new Error("a first-byte turn did not complete");
      if (i >= warmup) samples.push(first - sentAt);
    }
    await agent.dispose();
    samples.sort((a, b) => a - b);
    return {
      median: samples[Math.floor(samples.length / 2)]!,
      p99: samples[Math.floor(samples.length * 0.99)]!,
      turns,
    };
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}
