// ScriptedProvider: a real Provider driven by a script, for tests, examples and benchmarks. It
// answers each request with the next scripted step (FIFO) — a canned reply, a function of the
// request, an error, or "hang until aborted" — streams it through the chunk protocol, and
// records every request it receives (frozen, exactly as sent).
import type { Usage } from "../messages/index.js";
import {
  type FinishReason,
  type Provider,
  ProviderError,
  type ProviderFailure,
  type ProviderRequest,
  type StreamChunk,
} from "./types.js";

export interface ScriptedToolCall {
  readonly name: string;
  /** Raw JSON text, or a value that is JSON.stringify'd. */
  readonly arguments?: string | object;
}

export type ScriptedReply =
  | {
      readonly text?: string;
      readonly reasoning?: string;
      readonly toolCalls?: readonly ScriptedToolCall[];
      readonly usage?: Partial<Usage>;
      /** Defaults to `tool-calls` when there are tool calls, else `stop`. */
      readonly finish?: FinishReason;
    }
  | { readonly error: ProviderFailure }
  | { readonly throws: Error }
  | "hang";

export type ScriptedStep = ScriptedReply | ((request: ProviderRequest) => ScriptedReply | Promise<ScriptedReply>);

export interface ScriptedProviderOptions {
  readonly id?: string;
  /** Answers requests once the FIFO is empty; without it an empty script is a ProviderError. */
  readonly fallback?: ScriptedStep;
  /** Keep every request in `requests` (default true); benchmarks turn it off to hold no history. */
  readonly record?: boolean;
}

export class ScriptedProvider implements Provider {
  readonly id: string;
  readonly requests: ProviderRequest[] = [];
  readonly #script: ScriptedStep[];
  readonly #fallback: ScriptedStep | undefined;
  readonly #record: boolean;
  #callCounter = 0;

  constructor(script: readonly ScriptedStep[] = [], options: ScriptedProviderOptions = {}) {
    this.id = options.id ?? "scripted";
    this.#script = [...script];
    this.#fallback = options.fallback;
    this.#record = options.record ?? true;
  }

  /** Appends steps to the script. */
  push(...steps: ScriptedStep[]): this {
    this.#script.push(...steps);
    return this;
  }

  /** Steps not consumed yet. */
  get remaining(): number {
    return this.#script.length;
  }

  async *stream(request: ProviderRequest): AsyncGenerator<StreamChunk> {
    if (this.#record) this.requests.push(request);
    const step = this.#script.shift() ?? this.#fallback;
    if (step === undefined)
      throw new ProviderError("script-exhausted", `ScriptedProvider has no reply for request ${this.requests.length}`);
    const reply = typeof step === "function" ? await step(request) : step;
    if (!isContentReply(reply)) {
      yield* controlReplyChunks(reply, request.signal);
      return;
    }
    let index = 0;
    const chunks: StreamChunk[] = [];
    if (reply.reasoning !== undefined) chunks.push(...textBlock(index++, "reasoning", reply.reasoning));
    if (reply.text !== undefined) chunks.push(...textBlock(index++, "text", reply.text));
    for (const call of reply.toolCalls ?? []) {
      const args = typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments ?? {});
      const at = index++;
      chunks.push({
        type: "block-start",
        index: at,
        block: { type: "tool-call", callId: `toolu_${++this.#callCounter}`, name: call.name },
      });
      chunks.push({ type: "tool-call-delta", index: at, argumentsDelta: args });
      chunks.push({ type: "block-end", index: at });
    }
    const u = reply.usage ?? {};
    chunks.push({
      type: "usage",
      usage: {
        inputTokens: u.inputTokens ?? 0,
        cacheReadTokens: u.cacheReadTokens ?? 0,
        cacheWriteTokens: u.cacheWriteTokens ?? 0,
        outputTokens: u.outputTokens ?? 0,
        ...(u.reasoningTokens === undefined ? {} : { reasoningTokens: u.reasoningTokens }),
      },
    });
    chunks.push({
      type: "finish",
      reason: reply.finish ?? ((reply.toolCalls?.length ?? 0) > 0 ? "tool-calls" : "stop"),
    });
    for (const chunk of chunks) {
      if (request.signal.aborted) {
        yield { type: "finish", reason: "aborted" };
        return;
      }
      yield chunk;
    }
  }
}

function textBlock(index: number, type: "text" | "reasoning", text: string): StreamChunk[] {
  const half = Math.ceil(text.length / 2);
  const delta = (t: string): StreamChunk =>
    type === "text" ? { type: "text-delta", index, text: t } : { type: "reasoning-delta", index, text: t };
  return [
    { type: "block-start", index, block: { type } },
    delta(text.slice(0, half)),
    delta(text.slice(half)),
    { type: "block-end", index },
  ];
}

/** The content variant of a reply (text, reasoning, tool calls), as opposed to `'hang'`, `{error}`, `{throws}`. */
export type ContentReply = Exclude<ScriptedReply, "hang" | { readonly error: unknown } | { readonly throws: Error }>;

export function isContentReply(reply: ScriptedReply): reply is ContentReply {
  return reply !== "hang" && !("throws" in reply) && !("error" in reply);
}

/**
 * The stream for a control reply, shared by every scripted model (this provider, the emulator):
 * `'hang'` waits for the abort and finishes `aborted`; `{error}` finishes `error`; `{throws}` throws.
 */
export async function* controlReplyChunks(
  reply: Exclude<ScriptedReply, ContentReply>,
  signal: AbortSignal,
): AsyncGenerator<StreamChunk> {
  if (reply === "hang") {
    await whenAborted(signal);
    yield { type: "finish", reason: "aborted" };
    return;
  }
  if ("throws" in reply) throw reply.throws;
  yield { type: "finish", reason: "error", error: reply.error };
}

function whenAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}
