// The provider-facing vocabulary (ARCHITECTURE.md §6): the request a provider receives, the
// stream-chunk protocol it answers with, and the `Provider` interface. Providers never see the
// session: only this request.
import type { JsonObject } from "../json/index.js";
import type { AssistantContent, Message, ProviderData, Usage } from "../messages/index.js";
import { boundedMessage, KeelsonError } from "../errors/index.js";

/** A tool as the model sees it (in a request and in the logged header). `inputSchema` is a JSON Schema object. */
export interface ToolSchema {
  readonly name: string;
  readonly description?: string;
  readonly inputSchema: JsonObject;
}

/**
 * Structured output a request asks for: the answer is one JSON value matching `schema` (a JSON
 * Schema object, root type `object`). It is call config — logged on the request header, so the
 * request stays a function of the log — and each adapter maps it to its provider's native
 * mechanism (see the llm README, "Structured output"). `name` matches `^[A-Za-z0-9_-]{1,64}$`
 * (OpenAI's rule for `json_schema.name`).
 */
export type OutputFormat = {
  readonly name: string;
  readonly schema: JsonObject;
};

/**
 * A request's content, exactly as the log records and `reconstructRequests` rebuilds it: the
 * call config's fields (`model`, sampling, any extra provider field as lossless JSON), then
 * `system`, `tools` and `messages`. Absent values are omitted keys, never `undefined`.
 */
export interface ModelRequest {
  readonly model: string;
  readonly system?: string;
  readonly tools?: readonly ToolSchema[];
  readonly messages: readonly Message[];
  readonly temperature?: number;
  readonly maxTokens?: number;
  readonly stop?: readonly string[];
  /** Structured output (call config); absent for a free-form answer. */
  readonly output?: OutputFormat;
  /** Extra call-config fields (lossless JSON) and, on a `ProviderRequest`, the live parts. */
  readonly [key: string]: unknown;
}

/**
 * What a provider is asked: the request's content plus its live parts — the abort signal and
 * the session id (for cache routing such as `prompt_cache_key`). Frozen when the loop built it;
 * providers must not mutate it.
 */
export interface ProviderRequest extends ModelRequest {
  readonly signal: AbortSignal;
  readonly sessionId: string;
  /**
   * How many leading `messages` are the session prefix (derived from the header, so still a
   * function of the log). Adapters use it to place a cache breakpoint at the prefix's end.
   */
  readonly prefixLength?: number;
}

export type FinishReason = "stop" | "tool-calls" | "max-tokens" | "aborted" | "error";

export type BlockStart =
  | { readonly type: "text" }
  | { readonly type: "reasoning"; readonly redacted?: boolean }
  | { readonly type: "tool-call"; readonly callId: string; readonly name: string };

/**
 * The stream-chunk protocol. Block indexes are the assistant content positions. A `block-end`
 * may carry the producing API's opaque `providerData` for the block (known only once the block
 * is complete, e.g. a Responses reasoning item's encrypted content); the assembler keeps it on
 * the block.
 */
export type StreamChunk =
  | { readonly type: "block-start"; readonly index: number; readonly block: BlockStart }
  | { readonly type: "text-delta"; readonly index: number; readonly text: string }
  | { readonly type: "reasoning-delta"; readonly index: number; readonly text: string; readonly signature?: string }
  | { readonly type: "tool-call-delta"; readonly index: number; readonly argumentsDelta: string }
  | { readonly type: "block-end"; readonly index: number; readonly providerData?: ProviderData }
  | { readonly type: "usage"; readonly usage: Usage }
  | { readonly type: "finish"; readonly reason: FinishReason; readonly error?: ProviderFailure };

export interface ProviderFailure {
  readonly message: string;
  /** Stable code, e.g. `rate-limited`, `overloaded`, `auth`, `invalid-request`, `context-overflow`. */
  readonly code?: string;
  readonly retryable?: boolean;
  readonly retryAfterMs?: number;
}

export interface Provider {
  /** Short id used in `provider:model` selectors, e.g. `anthropic`, `openai`, `scripted`. */
  readonly id: string;
  /**
   * Streams one response. Must end with a `finish` chunk or throw; honours `request.signal` (the
   * loop also stops reading at the abort, so a stream that does not is dropped, not waited on). A
   * stream whose chunks are all at hand may also be a sync iterable (`Symbol.iterator`): the loop
   * then reads it without a promise per chunk (the replay's model does).
   */
  stream(request: ProviderRequest): AsyncIterable<StreamChunk>;
  /**
   * The context window of `model` in tokens, when this provider knows it (its model registry):
   * an agent refuses at its door a prompt that could never fit it (`prompt-too-large`). Optional:
   * without it, nothing is checked before the request.
   */
  contextWindow?(model: string): number | undefined;
}

/** A fully assembled response. */
export interface AssistantResult {
  readonly content: readonly AssistantContent[];
  readonly usage?: Usage;
  readonly finish: FinishReason;
  readonly error?: ProviderFailure;
}

/**
 * Stable provider failure codes. Retryable: `rate-limited` (429), `overloaded` (529 or an
 * in-stream overloaded error), `server-error` (5xx), `connection` (refused, reset, dropped
 * mid-stream), `stalled` (no data within the stall timeout), `protocol` when a stream event is
 * not JSON (garbled in transit; the partial attempt never reaches the log). Not retryable:
 * `auth` (401/403), `invalid-request` (400/404/422), `context-overflow`, `protocol` for a
 * well-formed stream that breaks the protocol (a delta for a block never started, a tool call
 * without an id), `script-exhausted`, `provider-error` (anything else), `cache-missing` (the
 * explicit context cache the request names is gone: the loop asks `agent/request` once more, and
 * sends again when a listener gave a new config — see the context-cache plugin).
 */
export type ProviderErrorCode =
  | "rate-limited"
  | "overloaded"
  | "server-error"
  | "connection"
  | "stalled"
  | "auth"
  | "invalid-request"
  | "context-overflow"
  | "protocol"
  | "script-exhausted"
  | "provider-error"
  | "cache-missing"
  | (string & {});

export class ProviderError extends KeelsonError<ProviderErrorCode> {
  readonly retryable: boolean;
  /** From a `retry-after` header, when the provider sent one. */
  readonly retryAfterMs: number | undefined;
  /** HTTP status, when there was one. */
  readonly status: number | undefined;
  constructor(
    code: ProviderErrorCode,
    message: string,
    options: { retryable?: boolean; retryAfterMs?: number; status?: number; cause?: unknown } = {},
  ) {
    super(code, boundedMessage(message), options); // a provider's error body may be megabytes
    this.retryable = options.retryable ?? false;
    this.retryAfterMs = options.retryAfterMs;
    this.status = options.status;
  }
}
