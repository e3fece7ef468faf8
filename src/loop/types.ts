// The loop's vocabulary: the agent event map (every hook the loop fires, with its contract),
// the agent's options and handle, and the loop's error type.
import type { RequestConfig } from "../header/index.js";
import type { EmitHook, HookBus, Plugin, PluginHost, SerialHook, WaterfallHook } from "../hooks/index.js";
import type { AssistantResult, Provider } from "../llm/core.js";
import type { Message, UserContent } from "../messages/index.js";
import type { OutputOf, OutputSchema } from "../output/index.js";
import type { PromptHooks, PromptSection, PromptSections } from "../prompt/index.js";
import type { Session, SessionEvent, TurnEndReason } from "../session/index.js";
import type { SessionStore } from "../store/index.js";
import type { ToolDefinition, ToolHooks, ToolRegistry } from "../tools/index.js";
import type { AgentPauses, AgentQuestions, Answerer, ApprovalHooks, Approver } from "./approval-types.js";
import type { RetryPolicy } from "./retry.js";
import type { TurnEvent } from "./turn-events.js";
import { KeelsonError } from "../errors/index.js";
import type {
  PromptSubmitPayload,
  SessionPrefixPayload,
  ToolSetPayload,
  PreStepPayload,
  RequestPayload,
  LlmStreamPayload,
  LlmChunkPayload,
  SessionEventPayload,
  StatusPayload,
  PrefixDriftPayload,
  AgentErrorPayload,
} from "./hook-payloads.js";

export type * from "./hook-payloads.js";

export type AgentStatus = "idle" | "running" | "disposed";

/** A prompt as `agent/prompt-submit` sees it. */
export interface PromptInput {
  readonly content: readonly UserContent[];
  readonly source: string;
}

export type PromptDecision =
  | {
      readonly action: "allow";
      readonly content?: readonly UserContent[];
      readonly additionalContext?: readonly UserContent[];
    }
  | { readonly action: "block"; readonly reason: string };

/** The compaction gate's shape (ARCHITECTURE.md §7); `createCompaction()` in src/compaction implements it. */
export interface CompactionGate {
  compactIfNeeded(
    agent: Agent,
    fullSystemPrompt: string,
    sessionPrefix: readonly Message[],
    signal: AbortSignal,
  ): Promise<void>;
  /** A manual compaction, whatever the pressure (`agent.compact()`). */
  compactNow?(
    agent: Agent,
    fullSystemPrompt: string,
    sessionPrefix: readonly Message[],
    signal: AbortSignal,
  ): Promise<void>;
}

/**
 * Every hook the loop fires; each takes one payload object, frozen by the bus (`(payload)`, or
 * `(payload, next)` for a waterfall, where `next()` runs the rest over the same payload). Order,
 * for every hook: `globalHooks` listeners first (outermost in a waterfall), then the agent's own,
 * each group in registration order. Ownership: everything a listener receives is frozen and owned
 * by the loop (read it, never keep mutating it); whatever a listener returns is validated and
 * copied before the loop logs or sends it, so mutating it later changes nothing. Emit hooks may
 * not fail the agent: their throws are contained and reported on `agent/error`.
 *
 * Each hook's doc opens with a one-sentence summary (the table in src/loop/README.md is generated
 * from it by `npm run hook-table`); the paragraphs after it are the rest of the contract.
 */
export type AgentHooks = ToolHooks &
  PromptHooks &
  ApprovalHooks & {
    /**
     * Per claimed prompt, before it is logged: `allow{content?, additionalContext?}` or
     * `block{reason}` (logged as `prompt/blocked`; a fully blocked batch ends the turn `rejected`
     * with no model call).
     *
     * Waterfall, registration order. May throw: the turn ends `error` before any model call.
     * The prompt is a frozen `{ content, source }`; returned content is validated, then logged.
     */
    readonly "agent/prompt-submit": WaterfallHook<PromptSubmitPayload, PromptDecision>;
    /**
     * Composes the session prefix once per loop instance, before its first pre-step, over a frozen
     * empty seed; contribute by prepending, `[mine, ...(await next())]`, so the wire order is
     * registration order.
     *
     * May throw: the turn ends `error`, nothing is cached, and the next turn recomposes. The
     * result is validated (lossless JSON, messages), deep-copied and frozen; the signal is the
     * turn's — a cancel or dispose during composition discards the result.
     */
    readonly "agent/session-prefix": WaterfallHook<SessionPrefixPayload, readonly Message[]>;
    /**
     * Before each step reads the agent's tool set: listeners may register or remove tools and wait
     * for them (MCP servers still connecting, `tools/list_changed`), so the change lands in this
     * step's request header.
     *
     * Serial: each listener is awaited in order. May throw: the turn ends `error`; a listener
     * should give up when `signal` aborts (the turn then ends `aborted`).
     */
    readonly "agent/tool-set": SerialHook<ToolSetPayload>;
    /**
     * Before each step's boundary, with the system prompt and session prefix the request will
     * carry; the compaction gate is one listener, and appends made here join this request.
     *
     * Serial: each listener is awaited in order. May throw: the turn ends `error`. The system
     * prompt and prefix are the ones the request will carry (frozen).
     */
    readonly "agent/pre-step": SerialHook<PreStepPayload>;
    /**
     * After the boundary, returns the call config (model, sampling) — never messages.
     *
     * Waterfall over the frozen seed config. May throw: the turn ends `error` (the step is closed
     * as not dispatched). The returned config is validated and logged on the request header
     * before anything is sent. Runs once more in the same step when the request failed
     * `cache-missing` (`retryOf` set, the seed is the failed request's config): a different
     * config is logged after an `llm/retry` and sent (the context-cache plugin recreates its cache
     * this way); the same config lets the failure stand.
     */
    readonly "agent/request": WaterfallHook<RequestPayload, RequestConfig>;
    /**
     * Around the provider call, whose innermost default streams (with retries) and assembles; the
     * request is deep-frozen and branded loop-built.
     *
     * Waterfall. May throw: the turn ends `error`. A mutation attempt on the request throws; its
     * signal stays live. A returned result is validated like a provider's before it is logged.
     */
    readonly "llm/stream": WaterfallHook<LlmStreamPayload, AssistantResult>;
    /**
     * Every streamed chunk, live, never persisted.
     *
     * Emit: contained. The chunk is the provider's; do not keep it.
     */
    readonly "llm/chunk": EmitHook<LlmChunkPayload>;
    /**
     * Every event appended to the agent's session, after commit, typed as `AnySessionEvent` so
     * `event.type` narrows `event.data`.
     *
     * Emit: contained. The event is deep-frozen; `if (event.type === "tool/call")` narrows
     * `event.data` without a cast.
     */
    readonly "session/event": EmitHook<SessionEventPayload>;
    /**
     * Status changes (idle, running, disposed).
     *
     * Emit: contained.
     */
    readonly "agent/status": EmitHook<StatusPayload>;
    /**
     * With `prefixOnResume: 'reuse'`, the contributors' output differs from the logged prefix;
     * `drifted` lists the new or changed positions in `composed`.
     *
     * With the prepend pattern, position i is the i-th contributor in registration order (one
     * message each). Emit: contained. All three arrays are frozen.
     */
    readonly "agent/prefix-drift": EmitHook<PrefixDriftPayload>;
    /**
     * Contained failures (emit listeners, turn errors, store flushes) with where they happened.
     *
     * Emit: a throwing listener here becomes a process warning, never a loop. The error is the
     * original value.
     */
    readonly "agent/error": EmitHook<AgentErrorPayload>;
  };

export type AgentPluginHost = PluginHost<AgentHooks> & { readonly agent: Agent };
export type AgentPlugin = Plugin<AgentHooks, AgentPluginHost>;

export interface AgentOptions {
  /** One provider, or several selected by the `provider:` prefix of `model`. */
  readonly provider?: Provider;
  readonly providers?: Readonly<Record<string, Provider>>;
  /** The model id sent in the request (`provider:model` selects from `providers`). */
  readonly model: string;
  readonly temperature?: number;
  readonly maxTokens?: number;
  readonly stop?: readonly string[];
  /**
   * Run over this existing in-memory session (a new loop instance: it recomposes its prefix and
   * logs a `resume` header). Default: a new session. With `store`, the store file is created
   * from it.
   */
  readonly session?: Session;
  /** Persist the session here (created on first use; see `durability` for when it is flushed). */
  readonly store?: SessionStore;
  /**
   * When the log is made durable (write + fsync, one group commit each time). `step` (default):
   * before every tool that is not `readOnly`, after every step and at turn end — a crash loses at
   * most the step in flight, never the record of a tool that ran. `turn`: at turn end and on
   * dispose only — cheaper (one fsync per turn instead of per step), but a crash mid-turn loses
   * the whole turn, including the records of tools that already ran.
   */
  readonly durability?: "step" | "turn";
  readonly cwd?: string;
  /** The new session's id (default a random UUID); not a safe session id → `LoopError("invalid-id")`. */
  readonly sessionId?: string;
  readonly plugins?: readonly AgentPlugin[];
  readonly tools?: readonly ToolDefinition[];
  /** Agent-scoped system-prompt sections (override global ones by name). */
  readonly system?: string | readonly PromptSection[];
  /** Extra `{{var}}` values for the system prompt (cwd, model and sessionId are built in). */
  readonly promptVars?: Readonly<Record<string, string>>;
  readonly compaction?: CompactionGate;
  /** Steps per turn before the turn ends with error code `max-steps`. Default 50. */
  readonly maxSteps?: number;
  /** Default per-tool-call timeout (ms). Default 120 000. */
  readonly toolTimeoutMs?: number;
  /**
   * The most characters of text one tool result puts in the log (and so before the model): a
   * longer one keeps its head and ends with a marker saying how much was left out (`capToolResult`).
   * Default 100 000 (`DEFAULT_MAX_TOOL_RESULT_CHARS`, about 25,000 tokens); `Infinity`: no cap.
   */
  readonly maxToolResultChars?: number;
  /**
   * What a resumed, forked or restarted instance does with the session prefix. `recompose`
   * (default, the seed's rule): run the contributors again; drift lands on the `resume` header
   * snapshot and re-writes the provider cache after the system prompt once. `reuse`: send the
   * logged prefix byte-for-byte (the whole history stays cached) and append each drifted
   * user-role contribution as a durable `context/message` (source `prefix-update`); drift is
   * reported on `agent/prefix-drift`.
   */
  readonly prefixOnResume?: "recompose" | "reuse";
  /** Retries of failed provider calls (429, overloaded, 5xx, drops, stalls); see `RetryPolicy`. */
  readonly retry?: RetryPolicy;
  /** Check every request against `reconstructRequests`. Default: on under vitest or KEELSON_INVARIANTS=1. */
  readonly invariants?: boolean;
  /** Epoch-ms clock for event times (tests). */
  readonly clock?: () => number;
  /**
   * Structured output for every turn that does not ask for its own (`send(prompt, { output })`
   * wins): the final answer must be JSON matching this schema, and `outcome.output` is the
   * validated value. See `OutputOptions`.
   */
  readonly output?: OutputSchema;
  /** Repair rounds after an answer that fails the output schema (default 1; 0: none). */
  readonly repair?: number;
  /**
   * A live decider for calls that need approval (the innermost `approval/ask`): answer, or
   * return `undefined` to let the turn end `awaiting-approval` for a later `agent.decide`.
   */
  readonly approver?: Approver;
  /**
   * A live answerer for tools' questions (`ask_user`; the innermost `input/ask`): reply, or
   * return `undefined` to let the turn end `awaiting-input` for a later `agent.respond`.
   */
  readonly answerer?: Answerer;
}

/** The output type an agent's options give its turns: the default schema's, or `unknown`. */
export type AgentOutput<O> = O extends { readonly output: infer S }
  ? S extends undefined
    ? unknown
    : OutputOf<S>
  : unknown;

/**
 * Structured output for one turn: `output` is a zod 4 schema, a Standard Schema that converts
 * itself to JSON Schema, `jsonSchema(...)` or a JSON Schema object (exactly what a tool's `input`
 * takes), describing an object. The request carries it (the provider's native mechanism; logged
 * on the request header as `config.output`), the final answer is parsed and validated, and
 * `outcome.output` is the value. An answer that fails gets `repair` more steps (default 1; 0:
 * none), each prompted by a logged `context/message` (source `output-repair`) listing the issues;
 * a final failure ends the turn `error` with code `invalid-output` and `outcome.issues`.
 */
export interface OutputOptions<S = OutputSchema> {
  readonly output?: S;
  readonly repair?: number;
}

/** `send`'s options. */
export type SendOptions<S = OutputSchema> = OutputOptions<S>;

export interface TurnOutcome<O = unknown> {
  readonly turn: number;
  readonly reason: TurnEndReason;
  /**
   * The turn's final assistant text: the text parts of its last assistant message, joined by
   * newlines (reasoning and tool calls left out); `""` when the turn logged no assistant message.
   * Not enumerable: spreading or serializing an outcome gives the `turn/end` record without it.
   */
  readonly text: string;
  /**
   * With a store: whether everything the turn logged is durable. `false` means a flush failed
   * (`storeError` says why; the turn ended `error` with code `not-saved` unless it had already
   * ended otherwise); the agent retries the flush before its next turn and refuses the turn
   * while the store still fails (`agent.flush()` retries on demand). Absent without a store.
   */
  readonly saved?: boolean;
  readonly storeError?: unknown;
  /**
   * Structured output: the validated value of the final answer, typed by the turn's schema.
   * Absent when the turn asked for none, or did not end `completed`. Not enumerable (like `text`).
   */
  readonly output?: O;
  /**
   * Structured output that failed (`reason` error code `invalid-output`): the last answer's
   * issues, one `path: problem` line each, bounded. Not enumerable.
   */
  readonly issues?: readonly string[];
}

export interface StreamOptions<S = OutputSchema> extends OutputOptions<S> {
  /** Aborting it cancels the turn (e.g. the client's request signal, to cancel on disconnect). */
  readonly signal?: AbortSignal;
  /** Bound on buffered live delta characters for a lagging consumer (default 1 MiB). */
  readonly maxBufferedChars?: number;
}

export interface FollowOptions {
  /** The last seq the client has (events after it are delivered); default -1 (everything). */
  readonly from?: number;
  readonly maxBufferedChars?: number;
}

/** A streamed turn: iterate its events (once); `outcome` resolves when the turn has ended and been flushed. */
export interface TurnStream<O = unknown> extends AsyncIterable<TurnEvent> {
  readonly outcome: Promise<TurnOutcome<O>>;
  /** Cancels the turn (queued: it ends `aborted` as soon as it starts). */
  cancel(reason?: string): void;
  /**
   * The last seq of the agent's log that no crash can take back — flushed to its store (every
   * logged one without a store). Committed events are streamed as they are appended, before the
   * step's group commit: the SSE encoder gives a client an id (a position to resume from) only
   * up to this. Every stream Keelson makes has it; a `TurnStream` of an app's own may leave it
   * out (its ids are then given at once).
   */
  durableThrough?(): number;
}

/** `agent.follow()`: the session's events, and how far its log is durable (an SSE encoder's ids stop there). */
export interface FollowFeed extends AsyncIterableIterator<TurnEvent> {
  /** The last seq of the agent's log that no crash can take back (`TurnStream.durableThrough`). */
  durableThrough(): number;
}

/**
 * The handle of a loop instance. `Out` is the output type of the agent's default structured
 * output (`createAgent({ output })`); `unknown` without one.
 */
export interface Agent<Out = unknown> extends AgentPauses, AgentQuestions {
  readonly session: Session;
  /** The provider this agent calls (compaction's summary call uses it too). */
  readonly provider: Provider;
  /** The model id from the options (the initial call config's `model`). */
  readonly model: string;
  readonly status: AgentStatus;
  /** This agent's hook scope (a child of `globalHooks`). */
  readonly hooks: HookBus<AgentHooks>;
  readonly tools: ToolRegistry;
  readonly prompt: PromptSections;
  /**
   * The session's events after seq `from` (default: from the start), read from the log, then
   * the turn in flight live (deltas only for blocks that start after the feed joined: the
   * committed answer replaces what it missed), ending once the log is read, no turn is open and
   * the agent has nothing queued or driving: input accepted but not yet started (a `stream` or
   * `send` just called) counts as the turn in flight, so a follow right after it gets that turn.
   * What a reconnecting client asks for (`Last-Event-ID`). `from` at or past the end of the log:
   * `LoopError('position-beyond-log')`; not an integer ≥ -1: `invalid-position`; options that
   * are not an object: `invalid-options`. Its `durableThrough()` says how far the log is
   * flushed, as a turn stream's does (`TurnStream.durableThrough`).
   */
  follow(options?: FollowOptions): FollowFeed;
  /**
   * Queues a prompt; resolves when the turn that processed it ends. Prompts sent while the agent
   * is idle or busy wait for the next turn, and every prompt waiting when a turn starts joins that
   * one turn (each `send` then resolves with the same outcome): to run prompts as separate turns,
   * await each, or use an agent host (`createAgentHost`), which queues turns per session.
   * With `{ output }` the final answer is structured (`OutputOptions`) and `outcome.output` is
   * typed by the schema; only prompts asking for the same output (same schema object, same
   * `repair`) join one turn — a prompt asking for another starts the next turn.
   */
  send<S extends OutputSchema>(
    content: string | readonly UserContent[],
    options: SendOptions<S> & { readonly output: S },
  ): Promise<TurnOutcome<OutputOf<S>>>;
  /** Queues a prompt (see above); the agent's default `output`, if any, applies. */
  send(content: string | readonly UserContent[], options?: SendOptions<never>): Promise<TurnOutcome<Out>>;
  /**
   * Queues a prompt like `send` and streams the turn that runs it: its events in log order
   * (committed ones carry their `seq`; live deltas carry the log's ids), ending with `turn-end`
   * and the outcome. A consumer that lags never blocks the loop: deltas coalesce within a bound
   * and committed events are read from the log. Breaking the iteration early (or
   * `cancelOnDisconnect` signals, or `stream.cancel()`) cancels the turn — also for any prompt
   * that joined it. Draining it gives what `send` gives (`outcome`).
   */
  stream<S extends OutputSchema>(
    content: string | readonly UserContent[],
    options: StreamOptions<S> & { readonly output: S },
  ): TurnStream<OutputOf<S>>;
  /** Streams a prompt's turn (see above); the agent's default `output`, if any, applies. */
  stream(content: string | readonly UserContent[], options?: StreamOptions<never>): TurnStream<Out>;
  /** Steers a running turn at its next step boundary (forcing another step); idle: starts a turn. */
  steer(content: string | readonly UserContent[]): Promise<TurnOutcome>;
  /**
   * Adds durable context: at the next step boundary if a turn is running, else in a one-shot
   * turn. Resolves once it is logged and its turn has ended (and been flushed, with a store).
   */
  inject(content: string | readonly UserContent[]): Promise<void>;
  /**
   * Aborts the running turn, or the one about to start for queued input (it ends
   * `aborted{reason}`). Idle while approvals are pending: cancels the paused turn — a turn of its
   * own closes every waiting call with an aborted result and ends `aborted{reason}`, and a later
   * decision gets `ApprovalError('cancelled')`. Otherwise a no-op when idle.
   */
  cancel(reason?: string): void;
  /**
   * Compacts the history now, in a turn of its own (needs a `compaction` gate with
   * `compactNow`, e.g. `createCompaction()`); resolves when that turn ends.
   */
  compact(): Promise<TurnOutcome>;
  /** Resolves when nothing runs and nothing is queued. */
  whenIdle(): Promise<void>;
  /**
   * With a store: makes everything logged so far durable now (retrying what a failed flush left
   * owed); rejects with the store's error while it still fails. Without a store: no-op.
   */
  flush(): Promise<void>;
  /** With a store: false while the log on disk is behind the session (a flush failed); else true. Undefined without a store. */
  readonly saved: boolean | undefined;
  /** Ends the running turn `disposed`, flushes and releases the store, unloads plugins. Idempotent. */
  dispose(): Promise<void>;
}

export type LoopErrorCode =
  | "aborted"
  | "invalid-options"
  /** `createAgent({ sessionId })` that is not a safe session id (the stores' code for the same id). */
  | "invalid-id"
  | "unknown-provider"
  | "disposed"
  | "invalid-prefix"
  | "invalid-config"
  | "invariant"
  | "max-steps"
  | "not-saved"
  /** A prompt (`send`, `stream`, `steer`, `inject`) that is not text or content parts, or has nothing in it: nothing is logged. */
  | "invalid-prompt"
  /** A prompt that alone is far over the model's context window (as the provider knows it): nothing is logged. */
  | "prompt-too-large"
  /** `follow({ from })` with a `from` that is not an integer ≥ -1. */
  | "invalid-position"
  /** `follow({ from })` with a `from` at or past the end of the log. */
  | "position-beyond-log"
  /** Input (a prompt, steer, inject or compaction) while a tool call awaits approval: decide it first. */
  | "awaiting-approval"
  /** A subagent spent its `tokenBudget`: its next request is not sent. */
  | "token-budget"
  /** A turn stream's events iterated a second time: they can be read once (`follow` reads them again from the log). */
  | "already-iterated";

export class LoopError extends KeelsonError<LoopErrorCode> {}

export type { Session, SessionEvent };
