// The emulator's vocabulary: the normalized request every model sees (whatever wire it came in
// on), the model interface, the clock the cache models and faults run on, and the error a wire
// turns into the provider's own JSON error body. Depends on llm and messages types only.
import type { ToolSchema, ScriptedReply } from "../llm/index.js";
import type { JsonObject } from "../json/index.js";
import type { Message, Usage } from "../messages/index.js";
import { KeelsonError } from "../errors/index.js";

/**
 * A request as the emulator's models see it, independent of the wire format: the system text
 * (system blocks or system messages joined with a blank line), the offered tools and the
 * conversation in Keelson's message vocabulary (tool results are `tool` messages, in order).
 */
export interface EmulatorRequest {
  readonly api: "anthropic" | "openai" | "responses" | "gemini" | "in-process";
  readonly model: string;
  readonly system: string;
  readonly tools: readonly ToolSchema[];
  readonly messages: readonly Message[];
  /** The request's output cap; `undefined` when the wire allows omitting it. */
  readonly maxTokens: number | undefined;
  readonly stop: readonly string[];
  /** Anthropic `metadata.user_id`; OpenAI (both wires) `prompt_cache_key` or `user`; in-process `sessionId`; else (Gemini) `default`. */
  readonly sessionKey: string;
  readonly stream: boolean;
  /** Structured output the request asks for; absent for a free-form answer. */
  readonly output?: EmulatorOutput;
}

/**
 * Structured output as a wire asked for it: `json_schema` (Anthropic `output_config.format`,
 * OpenAI `response_format` json_schema, in-process `request.output`) with its schema, or
 * `json_object` (JSON mode), whose schema — if any — is the one stated in the system prompt by
 * Keelson's JSON-mode instruction.
 */
export interface EmulatorOutput {
  readonly mode: "json_schema" | "json_object";
  readonly schema?: JsonObject;
}

/** Answers one normalized request. May be async; a thrown error becomes a 500 (or a thrown ProviderError in-process). */
export interface EmulatorModel {
  reply(request: EmulatorRequest): ScriptedReply | Promise<ScriptedReply>;
}

export type EmulatorModelFunction = (request: EmulatorRequest) => ScriptedReply | Promise<ScriptedReply>;

/** `'rule-based'` (the default), a model object, or a plain function of the request. */
export type EmulatorModelOption = "rule-based" | EmulatorModel | EmulatorModelFunction;

/** The content variant of a ScriptedReply (not `'hang'`, `{error}` or `{throws}`). */
export type { ContentReply } from "../llm/core.js";

/** Milliseconds; the cache models' TTLs and the OpenAI `created` field read it. */
export interface Clock {
  now(): number;
}

/** The provider-neutral cache outcome; wires map it to their own usage fields. */
export type CacheUsage = Pick<Usage, "inputTokens" | "cacheReadTokens" | "cacheWriteTokens">;

/** Error classes both wires know; each renders them in its provider's JSON error shape. */
export type WireErrorKind =
  | "invalid-request"
  | "authentication"
  | "permission"
  | "not-found"
  | "too-large"
  | "rate-limit"
  | "api"
  | "unavailable"
  | "overloaded";

export const WIRE_ERROR_STATUS: { readonly [K in WireErrorKind]: number } = {
  "invalid-request": 400,
  authentication: 401,
  permission: 403,
  "not-found": 404,
  "too-large": 413,
  "rate-limit": 429,
  api: 500,
  unavailable: 503,
  overloaded: 529,
};

/** An HTTP-level failure the server answers with (a validation error, an injected fault, a scripted error). */
export class WireError extends KeelsonError<WireErrorKind> {
  readonly status: number;
  /** Extra response headers, e.g. `retry-after`. */
  readonly headers: Readonly<Record<string, string>>;
  /** OpenAI `param` (e.g. `messages.[3].role`); ignored by the Anthropic wire. */
  readonly param: string | null;
  /** OpenAI-shape `code` when the provider sets one the kind does not imply (DeepSeek: `invalid_request_error`). */
  readonly openaiCode: string | undefined;
  constructor(
    kind: WireErrorKind,
    message: string,
    options: { status?: number; headers?: Record<string, string>; param?: string; openaiCode?: string } = {},
  ) {
    super(kind, message);
    this.status = options.status ?? WIRE_ERROR_STATUS[kind];
    this.headers = options.headers ?? {};
    this.param = options.param ?? null;
    this.openaiCode = options.openaiCode;
  }
}
