// The session log's vocabulary: the event envelope, every event type and its payload, the
// surface operations, and the session meta. ARCHITECTURE.md §2 is the source.
//
// Contracts: events are deep-frozen lossless JSON; `seq` equals the event's index in the log;
// `time` is epoch ms. Only surface-eligible events carry `surfaceOp`, and they always do.
import type { JsonObject, JsonValue } from "../json/index.js";
import type { AssistantContent, Message, ToolResultPart, Usage, UserContent } from "../messages/index.js";

export type { Usage };

/**
 * Why a turn ended. `interrupted` is written only by crash repair. `awaiting-approval` and
 * `awaiting-input` are not errors: a tool call waits for a person's `approval/decision` or
 * `input/response`, and a later turn continues it.
 */
export type TurnEndReason =
  | { readonly kind: "completed" }
  | { readonly kind: "awaiting-approval" }
  | { readonly kind: "awaiting-input" }
  | { readonly kind: "aborted"; readonly reason: string }
  | { readonly kind: "error"; readonly step: number; readonly message: string; readonly code?: string }
  | { readonly kind: "disposed" }
  | { readonly kind: "max-tokens" }
  | { readonly kind: "rejected"; readonly reason: string }
  | { readonly kind: "interrupted" };

/** The request header's payload types live in the header layer; here they are opaque JSON. */
export type HeaderSnapshotReason = "initial" | "resume" | "fallback";

/** Payload of every event type. Names follow ARCHITECTURE.md §2. */
export interface EventDataMap {
  "turn/start": { readonly turn: number; readonly trigger: string };
  "turn/end": { readonly turn: number; readonly reason: TurnEndReason };
  "step/start": { readonly turn: number; readonly step: number };
  /** `dispatched: false` marks a step that ended before its request was handed to the model. */
  "step/end": { readonly turn: number; readonly step: number; readonly dispatched?: false };
  "user/message": { readonly content: readonly UserContent[]; readonly source: string };
  "prompt/blocked": { readonly content: readonly UserContent[]; readonly source: string; readonly reason: string };
  "context/message": { readonly content: readonly UserContent[]; readonly source: string };
  "steering/message": { readonly turn: number; readonly content: readonly UserContent[]; readonly source: string };
  "assistant/message": {
    readonly turn: number;
    readonly step: number;
    readonly content: readonly AssistantContent[];
    readonly usage?: Usage;
    readonly stopReason?: string;
  };
  "tool/call": {
    readonly turn: number;
    readonly step: number;
    readonly callId: string;
    readonly name: string;
    readonly arguments: string;
  };
  "tool/result": {
    readonly turn: number;
    readonly step: number;
    readonly callId: string;
    readonly content: readonly ToolResultPart[];
    readonly isError: boolean;
    readonly error?: string;
    readonly meta?: JsonObject;
  };
  "request/header": { readonly header: JsonObject; readonly reason: HeaderSnapshotReason };
  "request/header-delta": JsonObject;
  "llm/retry": {
    readonly turn: number;
    readonly step: number;
    readonly attempt: number;
    readonly code: string;
    readonly delayMs: number;
  };
  /**
   * A tool call of the open step needs a person's approval before it runs. `arguments` is the
   * call's JSON text as the model produced it; `reason` says why approval is needed.
   */
  "approval/request": {
    readonly turn: number;
    readonly step: number;
    readonly callId: string;
    readonly tool: string;
    readonly arguments: string;
    readonly reason: string;
  };
  /**
   * The answer to a pending `approval/request`: who decided (`by`), why (`note`), and, for an
   * approval, the edited arguments (JSON text) the call runs with instead of the model's.
   */
  "approval/decision": {
    readonly callId: string;
    readonly approve: boolean;
    readonly by?: string;
    readonly note?: string;
    readonly arguments?: string;
  };
  /**
   * A question to a person, asked by the tool call `id` of the open step (an `ask_user` call, or
   * any tool with a `question`): `message` is what the person reads, `schema` (JSON Schema) what
   * the answer must match, `source` who asks (the tool's name).
   */
  "input/request": {
    readonly id: string;
    readonly source: string;
    readonly schema: JsonObject;
    readonly message: string;
    /**
     * The tool call in flight that asked (an MCP server's `elicitation/create` during its call):
     * its `tool/call` is logged and it has no result yet. Absent for a question asked before its
     * call runs (whose `id` is then the call id). Unanswered, it suspends the call (see structure.ts).
     */
    readonly callId?: string;
  };
  /** The answer to a pending `input/request` (validated against its schema before it is logged). */
  "input/response": { readonly id: string; readonly value: JsonValue; readonly by?: string };
  /**
   * A model request an MCP server asked for during the tool call `callId` (`sampling/createMessage`),
   * as it was sent to the provider (`request`: model, system?, messages, maxTokens, temperature?,
   * stop?). Its own request: never on the surface, never in a loop request's history or header.
   * `id` is `<callId>#sample-<n>`; `server` the configured MCP server's name.
   */
  "mcp/sampling-request": {
    readonly id: string;
    readonly callId: string;
    readonly server: string;
    readonly request: SampledRequest;
  };
  /**
   * What the provider answered the `mcp/sampling-request` `id` (assistant `content`, `usage`,
   * `stopReason`), or why it did not (`error`). The server gets it; the agent's model never sees it.
   */
  "mcp/sampling-response": {
    readonly id: string;
    readonly callId: string;
    readonly content?: readonly AssistantContent[];
    readonly usage?: Usage;
    readonly stopReason?: string;
    readonly error?: { readonly code: string; readonly message: string };
  };
  "compact/start": { readonly turn: number; readonly trigger: string; readonly estimatedTokens?: number };
  "compact/summary": JsonObject;
  "compact/end": { readonly turn: number; readonly error?: string };
}

export type EventType = keyof EventDataMap;

/** A model request made for an MCP server (`mcp/sampling-request`), as sent to the provider. */
export interface SampledRequest {
  readonly model: string;
  readonly system?: string;
  readonly messages: readonly Message[];
  readonly maxTokens: number;
  readonly temperature?: number;
  readonly stop?: readonly string[];
}

/**
 * What a `compact/summary` says (`compactSummaryOf`): the summarizing model, the history
 * messages `start..end` it replaced, their tokens, the summary's tokens and the call's usage.
 * The payload is open JSON, so each fact is `undefined` when it is missing or of another type.
 */
export interface CompactSummaryFacts {
  readonly model: string | undefined;
  readonly start: number | undefined;
  readonly end: number | undefined;
  readonly regionTokens: number | undefined;
  readonly summaryTokens: number | undefined;
  readonly usage: Usage | undefined;
}

/** The event types that take part in the surface (and so in derived history). */
export const SURFACE_EVENT_TYPES = [
  "user/message",
  "context/message",
  "steering/message",
  "assistant/message",
  "tool/result",
] as const satisfies readonly EventType[];
export type SurfaceEventType = (typeof SURFACE_EVENT_TYPES)[number];

/** Position-based surface edit: nodes `start..end` (inclusive) are shadowed by this event. */
export interface ReplaceOp {
  readonly op: "replace";
  readonly start: number;
  readonly end: number;
}
export type SurfaceOp = "append" | ReplaceOp;

/** The envelope of every logged event. */
export interface SessionEvent<T extends EventType = EventType> {
  readonly type: T;
  readonly seq: number;
  readonly time: number;
  readonly data: EventDataMap[T];
  /** Present exactly on surface-eligible events. */
  readonly surfaceOp?: SurfaceOp;
  /** On a replace: the seqs of the surface nodes it shadows, in surface order. */
  readonly sourceEventSeqs?: readonly number[];
}

/** Any event, discriminated on `type`. */
export type AnySessionEvent = { [T in EventType]: SessionEvent<T> }[EventType];

/**
 * The session meta: who the session is (id, log version, creation time, cwd, fork parent and
 * seed length), stored outside the log — the first line of a JSONL file, the session row in
 * PostgreSQL (its `header` column). Not the request header (`EpochHeader`, logged as
 * `request/header` events).
 */
export interface SessionMeta {
  readonly version: 1;
  readonly id: string;
  readonly createdAt: number;
  readonly cwd?: string;
  readonly parentSession?: string;
  /** For a fork: how many events were copied from the parent. */
  readonly seedLength?: number;
  /**
   * For a subagent's session: the session and tool call that started it (its parent's tool
   * result names this session back in `meta.subagent.session`). See `subagentSessionId`.
   */
  readonly spawnedBy?: SpawnedBy;
}

/** The parent session and tool call a subagent's session was started by. */
export interface SpawnedBy {
  readonly session: string;
  readonly callId: string;
}

/** @deprecated Renamed `SessionMeta` (#21): "header" now means only the request header. */
export type SessionHeader = SessionMeta;

/** An event not yet committed: what crash repair and builders produce. */
export interface PendingEvent<T extends EventType = EventType> {
  readonly type: T;
  readonly data: EventDataMap[T];
  readonly surfaceOp?: SurfaceOp;
}

export type { JsonValue };
