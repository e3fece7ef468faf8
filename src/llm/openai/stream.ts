// Chat Completions stream chunks → Keelson StreamChunks. Chat Completions has no block events:
// a choice's delta carries `content`, `reasoning_content` (DeepSeek and several compatible
// servers) and `tool_calls` pieces keyed by a wire index. Each kind gets a block at the next
// assistant content position the first time it carries data; every block stays open until the
// stream ends (text may resume after a tool call), then all are closed in index order, followed
// by usage and finish. `finish_reason` arrives before the usage chunk, so nothing is final
// until `end()`.
import type OpenAI from "openai";
import type { Usage } from "../../messages/index.js";
import { type FinishReason, ProviderError, type StreamChunk } from "../types.js";

/** llama.cpp's server adds `timings` to its final chunk: `cache_n` prompt tokens reused from the slot's KV cache, `prompt_n` processed anew. */
interface Timings {
  readonly cache_n?: number;
  readonly prompt_n?: number;
  readonly predicted_n?: number;
}
type Chunk = OpenAI.Chat.Completions.ChatCompletionChunk & { timings?: Timings };
type Delta = OpenAI.Chat.Completions.ChatCompletionChunk.Choice.Delta & {
  reasoning_content?: string | null;
  reasoning?: string | null;
};
type WireToolCall = OpenAI.Chat.Completions.ChatCompletionChunk.Choice.Delta.ToolCall;
/** Usage as OpenAI and DeepSeek shape it; the DeepSeek fields pass through the SDK untyped. */
type WireUsage = OpenAI.CompletionUsage & {
  prompt_cache_hit_tokens?: number;
  prompt_cache_miss_tokens?: number;
  cache_write_tokens?: number;
};

// content_filter: the provider cut the answer; what arrived is kept and the turn ends like a stop.
const FINISH: Record<string, FinishReason> = {
  stop: "stop",
  tool_calls: "tool-calls",
  length: "max-tokens",
  content_filter: "stop",
};

export class ChatChunkMapper {
  #next = 0;
  #text: number | undefined;
  #reasoning: number | undefined;
  /** Wire tool-call index → Keelson block index. */
  readonly #tools = new Map<number, number>();
  #finish: string | undefined;
  #usage: WireUsage | undefined;
  #timings: Timings | undefined;

  map(chunk: Chunk): StreamChunk[] {
    if (chunk.usage) this.#usage = chunk.usage as WireUsage;
    if (chunk.timings && typeof chunk.timings === "object") this.#timings = chunk.timings;
    // Keelson asks for one choice (n = 1); any other index is not part of this answer.
    const choice = chunk.choices?.find((c) => (c.index ?? 0) === 0);
    if (choice === undefined) return [];
    const out: StreamChunk[] = [];
    const delta = (choice.delta ?? {}) as Delta;
    const reasoning = delta.reasoning_content ?? delta.reasoning;
    if (typeof reasoning === "string" && reasoning !== "") {
      this.#reasoning ??= this.#start(out, { type: "reasoning" });
      out.push({ type: "reasoning-delta", index: this.#reasoning, text: reasoning });
    }
    // A refusal is the model's answer in another field; Keelson shows it as text.
    for (const text of [delta.content, delta.refusal]) {
      if (typeof text !== "string" || text === "") continue;
      this.#text ??= this.#start(out, { type: "text" });
      out.push({ type: "text-delta", index: this.#text, text });
    }
    for (const [position, call] of (delta.tool_calls ?? []).entries()) this.#toolCall(out, call, position);
    if (choice.finish_reason) this.#finish = choice.finish_reason;
    return out;
  }

  /**
   * The closing chunks once the SDK iterator is done: block-ends, usage (when the server sent
   * it), finish. A stream that ended without a `finish_reason` was cut off: a retryable
   * connection failure, since nothing of it may reach history.
   */
  end(): StreamChunk[] {
    if (this.#finish === undefined)
      throw new ProviderError("connection", "the stream ended before the provider sent a finish_reason", {
        retryable: true,
      });
    const out: StreamChunk[] = [];
    for (let index = 0; index < this.#next; index++) out.push({ type: "block-end", index });
    const usage = chatUsage(this.#usage, this.#timings);
    if (usage !== undefined) out.push({ type: "usage", usage });
    let reason = FINISH[this.#finish] ?? "stop";
    // Some compatible servers say `stop` after tool calls; the content decides.
    if (reason === "stop" && this.#tools.size > 0) reason = "tool-calls";
    out.push({ type: "finish", reason });
    return out;
  }

  #start(
    out: StreamChunk[],
    block: { type: "text" } | { type: "reasoning" } | { type: "tool-call"; callId: string; name: string },
  ): number {
    const index = this.#next++;
    out.push({ type: "block-start", index, block });
    return index;
  }

  #toolCall(out: StreamChunk[], call: WireToolCall, position: number): void {
    const wire = call.index ?? position;
    let index = this.#tools.get(wire);
    if (index === undefined) {
      const name = call.function?.name;
      if (!call.id || !name) {
        throw new ProviderError(
          "protocol",
          `tool call ${wire} started without ${call.id ? "a function name" : "an id"}: ${JSON.stringify(call)}`,
        );
      }
      index = this.#start(out, { type: "tool-call", callId: call.id, name });
      this.#tools.set(wire, index);
    }
    const args = call.function?.arguments;
    if (typeof args === "string" && args !== "") out.push({ type: "tool-call-delta", index, argumentsDelta: args });
  }
}

/**
 * The usage of a stream: the server's `usage` object, with llama.cpp's `timings` (when it sent
 * them) deciding the cache split — they count exactly what the slot reused (`cache_n`) and
 * processed (`prompt_n`), also on servers too old to report `prompt_tokens_details`. Undefined
 * when the server sent neither.
 */
export function chatUsage(usage: WireUsage | undefined, timings: Timings | undefined): Usage | undefined {
  const cacheN = timings?.cache_n;
  const promptN = timings?.prompt_n;
  if (typeof cacheN !== "number" || typeof promptN !== "number" || cacheN < 0 || promptN < 0)
    return usage === undefined ? undefined : normalizeUsage(usage);
  const base = usage === undefined ? undefined : normalizeUsage(usage);
  const predicted = typeof timings?.predicted_n === "number" ? timings.predicted_n : 0;
  return {
    inputTokens: promptN,
    cacheReadTokens: cacheN,
    cacheWriteTokens: 0,
    outputTokens: base?.outputTokens ?? predicted,
    ...(base?.reasoningTokens === undefined ? {} : { reasoningTokens: base.reasoningTokens }),
  };
}

/**
 * Provider usage → Keelson's disjoint buckets. DeepSeek: `prompt_cache_hit_tokens` is the cache
 * read and `prompt_cache_miss_tokens` the uncached input (`prompt_tokens` counts both). OpenAI:
 * `prompt_tokens` includes `cached_tokens` and, from GPT-5.6, the `cache_write_tokens` written;
 * both are taken out of the uncached input.
 */
export function normalizeUsage(usage: WireUsage): Usage {
  const prompt = usage.prompt_tokens ?? 0;
  const reasoning = usage.completion_tokens_details?.reasoning_tokens;
  const output = {
    outputTokens: usage.completion_tokens ?? 0,
    ...(typeof reasoning === "number" ? { reasoningTokens: reasoning } : {}),
  };
  if (typeof usage.prompt_cache_hit_tokens === "number") {
    const hit = usage.prompt_cache_hit_tokens;
    const miss =
      typeof usage.prompt_cache_miss_tokens === "number" ? usage.prompt_cache_miss_tokens : Math.max(0, prompt - hit);
    return { inputTokens: miss, cacheReadTokens: hit, cacheWriteTokens: 0, ...output };
  }
  const cached = usage.prompt_tokens_details?.cached_tokens ?? 0;
  const written = usage.prompt_tokens_details?.cache_write_tokens ?? usage.cache_write_tokens ?? 0;
  return {
    inputTokens: Math.max(0, prompt - cached - written),
    cacheReadTokens: cached,
    cacheWriteTokens: written,
    ...output,
  };
}
