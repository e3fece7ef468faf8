// Gemini stream chunks (`GenerateContentResponse`s) → Keelson StreamChunks. A chunk carries
// parts of the first candidate: text runs and thought runs stream as several parts and become one
// text / reasoning block each; a function call arrives whole and becomes one tool-call block
// (opened and closed at once). A thought signature stays on the block of the part that carried
// it — thought, text or function call — as `providerData: { api: "gemini", thoughtSignature }`
// on its `block-end`; a signed part closes its block. A function call without an id gets a minted one
// (`gemini_call_<response id>_<n>`), logged and therefore stable. Usage arrives on every chunk
// and the last one wins; `finishReason` on the last. A stream that ends without a finish reason
// was cut: a retryable connection failure, so nothing of it reaches history.
import type { Usage } from "../../messages/index.js";
import { type BlockStart, type FinishReason, ProviderError, type StreamChunk } from "../types.js";
import { GEMINI_API, MINTED_CALL_ID_PREFIX } from "./wire.js";

/** A block's end, with the thought signature Gemini put on its part (what replay sends back). */
function blockEnd(index: number, signature: string | undefined): StreamChunk {
  return signature === undefined
    ? { type: "block-end", index }
    : { type: "block-end", index, providerData: { api: GEMINI_API, thoughtSignature: signature } };
}

/** The fields of an SDK response chunk the mapper reads (structurally `GenerateContentResponse`). */
export interface GeminiChunk {
  readonly responseId?: string;
  readonly candidates?: readonly {
    readonly content?: { readonly parts?: readonly GeminiStreamPart[] };
    readonly finishReason?: string;
  }[];
  readonly usageMetadata?: GeminiUsage;
  readonly promptFeedback?: { readonly blockReason?: string; readonly blockReasonMessage?: string };
}

export interface GeminiStreamPart {
  readonly text?: string;
  readonly thought?: boolean;
  readonly thoughtSignature?: string;
  readonly functionCall?: { readonly id?: string; readonly name?: string; readonly args?: Record<string, unknown> };
}

export interface GeminiUsage {
  readonly promptTokenCount?: number;
  readonly cachedContentTokenCount?: number;
  readonly candidatesTokenCount?: number;
  readonly thoughtsTokenCount?: number;
  readonly toolUsePromptTokenCount?: number;
  readonly totalTokenCount?: number;
}

// Safety, recitation and the like cut the answer: what arrived is kept and the turn ends like a stop.
const FINISH: Record<string, FinishReason> = {
  STOP: "stop",
  MAX_TOKENS: "max-tokens",
};

/**
 * Gemini usage → Keelson's disjoint buckets: `promptTokenCount` includes the cached tokens
 * (implicit or explicit caching), so uncached input = prompt − cached; thinking tokens are billed
 * as output, so output = candidates + thoughts (`reasoningTokens` = thoughts). Gemini charges no
 * cache write per request (explicit caches are billed by storage time), so `cacheWriteTokens` is 0.
 */
export function normalizeGeminiUsage(usage: GeminiUsage): Usage {
  const prompt = usage.promptTokenCount ?? 0;
  const cached = usage.cachedContentTokenCount ?? 0;
  const thoughts = usage.thoughtsTokenCount;
  return {
    inputTokens: Math.max(0, prompt - cached),
    cacheReadTokens: cached,
    cacheWriteTokens: 0,
    outputTokens: (usage.candidatesTokenCount ?? 0) + (thoughts ?? 0),
    ...(typeof thoughts === "number" && thoughts > 0 ? { reasoningTokens: thoughts } : {}),
  };
}

export class GeminiStreamMapper {
  #next = 0;
  #open: { readonly kind: "text" | "thought"; readonly index: number } | undefined;
  #calls = 0;
  #finish: string | undefined;
  #usage: Usage | undefined;
  #blocked: string | undefined;
  readonly #mint: (responseId: string | undefined, ordinal: number) => string;

  /** `mint` names a function call Gemini sent without an id (default: from the response id, else random). */
  constructor(mint?: (responseId: string | undefined, ordinal: number) => string) {
    const fallback = Math.random().toString(36).slice(2, 10);
    this.#mint = mint ?? ((responseId, n) => `${MINTED_CALL_ID_PREFIX}${responseId ?? fallback}_${n}`);
  }

  map(chunk: GeminiChunk): StreamChunk[] {
    if (chunk.usageMetadata) this.#usage = normalizeGeminiUsage(chunk.usageMetadata);
    if (chunk.promptFeedback?.blockReason)
      this.#blocked = chunk.promptFeedback.blockReasonMessage ?? chunk.promptFeedback.blockReason;
    const candidate = chunk.candidates?.[0];
    if (candidate === undefined) return [];
    const out: StreamChunk[] = [];
    for (const part of candidate.content?.parts ?? []) this.#part(out, part, chunk.responseId);
    if (candidate.finishReason && candidate.finishReason !== "FINISH_REASON_UNSPECIFIED")
      this.#finish = candidate.finishReason;
    return out;
  }

  /** The closing chunks once the SDK iterator is done: the open block's end, usage, finish. */
  end(): StreamChunk[] {
    if (this.#finish === undefined) {
      if (this.#blocked !== undefined)
        throw new ProviderError("invalid-request", `Gemini blocked the prompt: ${this.#blocked}`);
      throw new ProviderError("connection", "the Gemini stream ended before a finishReason (cut off)", {
        retryable: true,
      });
    }
    const out: StreamChunk[] = [];
    this.#close(out);
    if (this.#usage !== undefined) out.push({ type: "usage", usage: this.#usage });
    let reason = FINISH[this.#finish] ?? "stop";
    if (reason === "stop" && this.#calls > 0) reason = "tool-calls";
    out.push({ type: "finish", reason });
    return out;
  }

  #part(out: StreamChunk[], part: GeminiStreamPart, responseId: string | undefined): void {
    const signature =
      typeof part.thoughtSignature === "string" && part.thoughtSignature !== "" ? part.thoughtSignature : undefined;
    if (part.functionCall !== undefined) {
      this.#close(out);
      const call = part.functionCall;
      if (!call.name)
        throw new ProviderError("protocol", `a Gemini function call without a name: ${JSON.stringify(call)}`);
      const callId = call.id || this.#mint(responseId, this.#calls);
      this.#calls += 1;
      const index = this.#start(out, { type: "tool-call", callId, name: call.name });
      out.push({ type: "tool-call-delta", index, argumentsDelta: JSON.stringify(call.args ?? {}) });
      out.push(blockEnd(index, signature));
      return;
    }
    const text = typeof part.text === "string" ? part.text : "";
    if (text === "" && signature === undefined) return; // empty, or inline data / code execution: not Keelson's
    const kind = part.thought === true ? "thought" : "text";
    // An empty signed part of the open run's kind signs that run (Gemini often streams the
    // signature on a last, empty part); of another kind it is a part of its own.
    if (this.#open?.kind !== kind) {
      this.#close(out);
      const index = this.#start(out, kind === "thought" ? { type: "reasoning" } : { type: "text" });
      this.#open = { kind, index };
    }
    const open = this.#open!;
    if (text !== "")
      out.push(
        open.kind === "thought"
          ? { type: "reasoning-delta", index: open.index, text }
          : { type: "text-delta", index: open.index, text },
      );
    if (signature === undefined) return;
    // A signed part ends its block, the signature kept on it for replay.
    this.#open = undefined;
    out.push(blockEnd(open.index, signature));
  }

  #start(out: StreamChunk[], block: BlockStart): number {
    const index = this.#next++;
    out.push({ type: "block-start", index, block });
    return index;
  }

  #close(out: StreamChunk[]): void {
    if (this.#open === undefined) return;
    out.push({ type: "block-end", index: this.#open.index });
    this.#open = undefined;
  }
}
