// W2's latency note: the time Keelson adds between the provider yielding its first chunk and the
// first turn event reaching a consumer of `agent.stream()`, in process. The provider stamps the
// clock just before it yields; the consumer stamps it when the first live event arrives.
import { performance } from "node:perf_hooks";
import type { Provider, ProviderRequest, StreamChunk } from "../../src/llm/core.js";
import { createAgent } from "../../src/loop/index.js";

const TURNS = 2_000;
const WARMUP = 200;

/** Answers every request with one short text, stamping when its first chunk is yielded. */
class StampingProvider implements Provider {
  readonly id = "stamping";
  firstChunkAt = 0;
  async *stream(_request: ProviderRequest): AsyncGenerator<StreamChunk> {
    this.firstChunkAt = performance.now();
    yield { type: "block-start", index: 0, block: { type: "text" } };
    yield { type: "text-delta", index: 0, text: "hello" };
    yield { type: "block-end", index: 0 };
    yield { type: "finish", reason: "stop" };
  }
}

export async function firstEventLatency(): Promise<{ median: number; p99: number; turns: number }> {
  const provider = new StampingProvider();
  const agent = createAgent({ provider, model: "stamping:bench", invariants: false });
  const samples: number[] = [];
  for (let i = 0; i < WARMUP + TURNS; i++) {
    let first: number | undefined;
    const stream = agent.stream(`prompt ${i}`);
    for await (const event of stream) if (first === undefined && event.type === "text-start") first = performance.now();
    if (first === undefined) throw new Error("no live event reached the consumer");
    if (i >= WARMUP) samples.push(first - provider.firstChunkAt);
  }
  await agent.dispose();
  samples.sort((a, b) => a - b);
  return {
    median: samples[Math.floor(samples.length / 2)]!,
    p99: samples[Math.floor(samples.length * 0.99)]!,
    turns: TURNS,
  };
}
