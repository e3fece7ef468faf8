// Shared pieces of the llm tests: a request builder, a stream collector and an assembler run.
import {
  BlockAssembler,
  type AssistantResult,
  type Provider,
  type ProviderRequest,
  type StreamChunk,
} from "../../src/llm/index.js";

/** A minimal provider request; pass a signal to drive cancellation. */
export function request(over: Partial<ProviderRequest> = {}): ProviderRequest {
  return { model: "scripted:test", messages: [], signal: new AbortController().signal, sessionId: "s-test", ...over };
}

/** Every chunk of one stream, in order. */
export async function collect(provider: Provider, req: ProviderRequest = request()): Promise<StreamChunk[]> {
  const chunks: StreamChunk[] = [];
  for await (const chunk of provider.stream(req)) chunks.push(chunk);
  return chunks;
}

export function assemble(chunks: readonly StreamChunk[]): AssistantResult {
  const assembler = new BlockAssembler();
  for (const chunk of chunks) assembler.push(chunk);
  return assembler.result();
}

/** Streams one request through a BlockAssembler, as the loop will. */
export async function assembled(provider: Provider, req: ProviderRequest = request()): Promise<AssistantResult> {
  return assemble(await collect(provider, req));
}

export const zeroUsage = { inputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 0 };

/** Lets every pending promise reaction run (one macrotask turn; no timers). */
export const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
