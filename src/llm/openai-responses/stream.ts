// Responses stream events → Keelson StreamChunks. Each output item the model produces is one
// block at the next assistant content position: a reasoning item a reasoning block (its summary
// parts joined by a blank line), a message a text block (output text and refusals), a
// function_call a tool-call block (`callId` = the item's `call_id`). Items of kinds Keelson does
// not offer are skipped. `response.output_item.done` closes the block with the item's
// `providerData` — for reasoning the whole item as received (its `encrypted_content` is what a
// later request sends back), for messages and calls their item ids — and
// `response.completed` / `response.incomplete` carry usage and the finish. An `error` event or
// `response.failed` is a typed ProviderError; a stream that ends before completing was cut off.
import type OpenAI from "openai";
import type { ProviderData, Usage } from "../../messages/index.js";
import { httpError } from "../http-errors.js";
import { type FinishReason, ProviderError, type StreamChunk } from "../types.js";
import { RESPONSES_API } from "./wire.js";

type Event = OpenAI.Responses.ResponseStreamEvent;
type Item = OpenAI.Responses.ResponseOutputItem;
type Block = { readonly index: number; readonly kind: "reasoning" | "text" | "tool-call"; streamed: string };

export class ResponsesEventMapper {
  #next = 0;
  /** Wire output_index → the block it became; `null` for a skipped item kind. */
  readonly #items = new Map<number, Block | null>();
  #usage: Usage | undefined;
  #finish: FinishReason | undefined;
  #toolCalls = 0;

  map(event: Event): StreamChunk[] {
    switch (event.type) {
      case "response.output_item.added":
        return this.#added(event.output_index, event.item);
      case "response.reasoning_summary_part.added": {
        const block = this.#block(event.output_index, "reasoning", event.type);
        return block === undefined || event.summary_index === 0 ? [] : this.#delta(block, "\n\n");
      }
      case "response.reasoning_summary_text.delta":
      case "response.reasoning_text.delta": {
        const block = this.#block(event.output_index, "reasoning", event.type);
        return block === undefined ? [] : this.#delta(block, event.delta);
      }
      case "response.output_text.delta":
      case "response.refusal.delta": {
        const block = this.#block(event.output_index, "text", event.type);
        return block === undefined ? [] : this.#delta(block, event.delta);
      }
      case "response.function_call_arguments.delta": {
        const block = this.#block(event.output_index, "tool-call", event.type);
        return block === undefined ? [] : this.#delta(block, event.delta);
      }
      case "response.output_item.done":
        return this.#done(event.output_index, event.item);
      case "response.completed":
      case "response.incomplete":
        return this.#completed(event.response);
      case "response.failed":
        throw responseFailure(event.response.error?.code, event.response.error?.message ?? "the response failed");
      case "error":
        throw responseFailure(event.code, event.message);
      default:
        return [];
    }
  }

  /** Closing chunks once the iterator is done; a stream without `response.completed` was cut off (retryable). */
  end(): StreamChunk[] {
    if (this.#finish === undefined)
      throw new ProviderError("connection", "the stream ended before the provider sent response.completed", {
        retryable: true,
      });
    const out: StreamChunk[] = [];
    if (this.#usage !== undefined) out.push({ type: "usage", usage: this.#usage });
    out.push({ type: "finish", reason: this.#finish });
    return out;
  }

  #added(outputIndex: number, item: Item): StreamChunk[] {
    if (this.#items.has(outputIndex)) throw new ProviderError("protocol", `output item ${outputIndex} was added twice`);
    const index = this.#next;
    switch (item.type) {
      case "reasoning":
        this.#open(outputIndex, "reasoning");
        return [{ type: "block-start", index, block: { type: "reasoning" } }];
      case "message":
        this.#open(outputIndex, "text");
        return [{ type: "block-start", index, block: { type: "text" } }];
      case "function_call": {
        if (!item.call_id || !item.name)
          throw new ProviderError(
            "protocol",
            `function_call item ${outputIndex} started without ${item.call_id ? "a name" : "a call_id"}`,
          );
        const block = this.#open(outputIndex, "tool-call");
        this.#toolCalls++;
        return [
          { type: "block-start", index, block: { type: "tool-call", callId: item.call_id, name: item.name } },
          ...(item.arguments ? this.#delta(block, item.arguments) : []),
        ];
      }
      default:
        this.#items.set(outputIndex, null); // a kind Keelson never offers (hosted tools): not part of the answer
        return [];
    }
  }

  #done(outputIndex: number, item: Item): StreamChunk[] {
    const block = this.#block(outputIndex, undefined, "response.output_item.done");
    if (block === undefined) return [];
    this.#items.set(outputIndex, null); // closed
    // The complete value: deltas may have been skipped by the server; send what is missing.
    const full =
      item.type === "message"
        ? item.content.map((c) => (c.type === "output_text" ? c.text : c.refusal)).join("")
        : item.type === "function_call"
          ? item.arguments
          : undefined;
    const rest = full?.startsWith(block.streamed) ? full.slice(block.streamed.length) : "";
    const data = providerDataOf(item);
    return [
      ...(rest === "" ? [] : this.#delta(block, rest)),
      { type: "block-end", index: block.index, ...(data === undefined ? {} : { providerData: data }) },
    ];
  }

  #completed(response: OpenAI.Responses.Response): StreamChunk[] {
    if (response.usage) this.#usage = normalizeResponsesUsage(response.usage);
    const out: StreamChunk[] = [];
    // Items the server never closed end here, without provider data.
    for (const [outputIndex, block] of this.#items) {
      if (block === null) continue;
      out.push({ type: "block-end", index: block.index });
      this.#items.set(outputIndex, null);
    }
    const reason = response.incomplete_details?.reason;
    this.#finish =
      response.status === "incomplete"
        ? reason === "max_output_tokens"
          ? "max-tokens"
          : "stop" // content_filter: what arrived is kept and the turn ends like a stop
        : this.#toolCalls > 0
          ? "tool-calls"
          : "stop";
    return out;
  }

  #open(outputIndex: number, kind: Block["kind"]): Block {
    const block = { index: this.#next++, kind, streamed: "" };
    this.#items.set(outputIndex, block);
    return block;
  }

  /** The open block for `outputIndex`; undefined for a skipped or closed item; a protocol error for one never added (or of another kind). */
  #block(outputIndex: number, kind: Block["kind"] | undefined, what: string): Block | undefined {
    const block = this.#items.get(outputIndex);
    if (block === null) return undefined;
    if (block === undefined || (kind !== undefined && block.kind !== kind))
      throw new ProviderError(
        "protocol",
        `${what} for output item ${outputIndex}, which ${block === undefined ? "never started" : `is a ${block.kind} item`}`,
      );
    return block;
  }

  #delta(block: Block, text: string): StreamChunk[] {
    block.streamed += text;
    if (block.kind === "text") return [{ type: "text-delta", index: block.index, text }];
    if (block.kind === "reasoning") return [{ type: "reasoning-delta", index: block.index, text }];
    return [{ type: "tool-call-delta", index: block.index, argumentsDelta: text }];
  }
}

/**
 * What a later request needs of a finished item: a reasoning item whole, as received (it is
 * sent back verbatim, `encrypted_content` included), a message's id and phase, a function
 * call's item id and its own call id.
 */
function providerDataOf(item: Item): ProviderData | undefined {
  if (item.type === "reasoning") return { api: RESPONSES_API, item: item as unknown as Record<string, unknown> };
  if (item.type === "message") return { api: RESPONSES_API, id: item.id, ...(item.phase ? { phase: item.phase } : {}) };
  if (item.type === "function_call")
    return { api: RESPONSES_API, ...(item.id ? { id: item.id } : {}), callId: item.call_id };
  return undefined;
}

/**
 * Responses usage → Keelson's disjoint buckets: `input_tokens` includes the cached tokens
 * (`input_tokens_details.cached_tokens`) and, from GPT-5.6, the tokens written to the cache
 * (`cache_write_tokens`); both are taken out of the uncached input. Reasoning tokens are part of
 * the output and reported as `reasoningTokens` (when there were any).
 */
export function normalizeResponsesUsage(usage: OpenAI.Responses.ResponseUsage): Usage {
  const details = usage.input_tokens_details as Partial<OpenAI.Responses.ResponseUsage.InputTokensDetails> | undefined;
  const cached = details?.cached_tokens ?? 0;
  const written = details?.cache_write_tokens ?? 0;
  const reasoning = usage.output_tokens_details?.reasoning_tokens;
  return {
    inputTokens: Math.max(0, (usage.input_tokens ?? 0) - cached - written),
    cacheReadTokens: cached,
    cacheWriteTokens: written,
    outputTokens: usage.output_tokens ?? 0,
    // The API reports reasoning_tokens for every model (0 without reasoning): kept only when some.
    ...(typeof reasoning === "number" && reasoning > 0 ? { reasoningTokens: reasoning } : {}),
  };
}

/** An `error` event or a failed response, by its code: transient failures are retryable. */
export function responseFailure(code: string | null | undefined, message: string): ProviderError {
  const text = code ? `${message} (${code})` : message;
  switch (code) {
    case "rate_limit_exceeded":
      return new ProviderError("rate-limited", `rate limited mid-stream: ${text}`, { retryable: true });
    case "server_error":
    case "vector_store_timeout":
      return new ProviderError("server-error", `the provider failed mid-stream: ${text}`, { retryable: true });
    case "context_length_exceeded":
    case "invalid_prompt":
    case "invalid_request_error":
      return httpError(400, text);
    default:
      if (/overloaded/i.test(message)) return httpError(undefined, text);
      return new ProviderError("server-error", `the provider failed mid-stream: ${text}`, { retryable: true });
  }
}
