// The replay layer's vocabulary: what a replay is given (the app's agent options plus the replay's
// own), and what it reports — per request, identical or the first differing segment with the log
// event that explains it and the predicted cache cost of the difference.
import { KeelsonError } from "../errors/index.js";
import type { ModelRegistry, OutputFormat, TokenCounter } from "../llm/core.js";
import type { AgentOptions } from "../loop/index.js";
import type { OutputSchema } from "../output/index.js";

/** A child session a logged tool result names (a subagent: `meta.subagent.session`). */
export interface ReplayChild {
  /** The parent's tool call that started the child. */
  readonly callId: string;
  /** The child's session id. */
  readonly session: string;
}

/**
 * The app's agent options — what it passes `createAgent` (`provider`, `providers`, `store`,
 * `retry` and `invariants` are ignored: the replay answers from the log, in memory, never retrying)
 * — plus the replay's own options.
 */
export interface ReplayOptions extends Omit<AgentOptions, "model" | "store" | "session" | "sessionId"> {
  /** The model the agent is configured with; default, per loop instance, the model its first logged request used. */
  readonly model?: string;
  /**
   * Run the tools (the app's current tools, `tools/pre-execute` and `tools/post-execute`
   * listeners) instead of answering each call with its logged result. Calls of recorded tools
   * (below) and calls whose logged result names a child session are still answered from the log.
   */
  readonly liveTools?: boolean;
  /**
   * Tools whose schema and results come from the log when the current code does not register a
   * tool of that name: facts of an outside system rather than the app's code. Default: MCP tools
   * (`mcp__<server>__<tool>`), so a replay starts no MCP server.
   */
  readonly recordedTools?: (name: string) => boolean;
  /**
   * The output schema (current code) for a turn whose logged requests asked for structured
   * output with no agent default `output`; default the logged schema itself.
   */
  readonly outputFor?: (turn: number, logged: OutputFormat) => OutputSchema | undefined;
  /**
   * Options to replay a child session (a subagent) with; `undefined` leaves it out. Default: the
   * options the replayed parent's subagent tool gives the child now, built as the loop builds
   * them (the tool's profile or agent options, the parent's model and tools); a child whose call's
   * tool is no subagent tool now is listed `skipped`.
   */
  readonly children?: (child: ReplayChild) => ReplayOptions | undefined;
  /** Token counter for the cache cost; default ≈ bytes/4 (`estimateTokens`). */
  readonly countTokens?: TokenCounter;
  /** Prices and cache rules per model; default the built-in registry (src/llm/models.ts). */
  readonly models?: ModelRegistry;
}

/** Where two requests first differ, in the order a provider caches a request. */
export type DiffSegment =
  /** A call-config key (`model` first: a model change shares no cache). */
  | { readonly kind: "config"; readonly key: string }
  /** A tool's schema (tools are sorted by name); `path` is the first differing JSON path inside it. */
  | {
      readonly kind: "tool";
      readonly name: string;
      readonly change: "added" | "removed" | "changed";
      readonly path?: string;
    }
  /** The system prompt, at a line (1-based). */
  | { readonly kind: "system"; readonly line: number }
  /** Session-prefix message `index` (0-based), with the name of the contributor that made the rebuilt one. */
  | { readonly kind: "prefix"; readonly index: number; readonly contributor?: string }
  /** Derived history at message `index` (0-based, after the prefix). */
  | { readonly kind: "history"; readonly index: number }
  /** The log has this request; the replay did not make it. */
  | { readonly kind: "missing" }
  /** The replay made a request the log does not have. */
  | { readonly kind: "extra" };

/** The logged event that explains a difference: the header record in force, or the history message's event. */
export interface Explanation {
  readonly seq: number;
  readonly type: string;
  /** One line: what the event is (`request/header (resume)`, `tool/result call_2_1_0`, …). */
  readonly text: string;
}

/**
 * What a difference costs at the provider's prompt cache (CACHING.md rules for the model's
 * provider, token estimates from the layer's counter): tokens the logged request would read from
 * the cache its predecessor warmed, and how many of them the rebuilt request no longer shares.
 */
export interface ReplayCacheCost {
  readonly model: string;
  /** Tokens the logged request reads from cache (its predecessor's cached prefix it extends). */
  readonly expectedTokens: number;
  /** Of those, tokens the rebuilt request no longer reads from the cache the logged session warmed. */
  readonly lostTokens: number;
  /**
   * Of those, tokens lost even against the rebuilt previous request: the difference changes from
   * request to request (a timestamp), so it costs on every request, not once per deploy.
   */
  readonly recurringLostTokens: number;
  /**
   * USD: `lostTokens` paid as a cache write (or uncached input, for providers with no write fee)
   * instead of a cache read, under the model's pricing; absent for a model the registry lacks.
   */
  readonly cost?: number;
}

export interface RequestDifference {
  /** Position in the logged requests (for `extra`: in the rebuilt ones). */
  readonly index: number;
  readonly turn: number;
  readonly step: number;
  /** The logged request's `step/start` seq (absent for `extra`). */
  readonly stepStartSeq?: number;
  readonly segment: DiffSegment;
  /** The logged and rebuilt values at the segment, shortened (JSON or a line of text). */
  readonly logged?: string;
  readonly replayed?: string;
  /** Other segments of the same request that differ too, as labels. */
  readonly also: readonly string[];
  readonly explainedBy?: Explanation;
  /** The request belongs to the part a fork shares with its parent (before `seedLength`). */
  readonly inherited: boolean;
  readonly cache: ReplayCacheCost;
}

/** A turn whose replay ended differently from the log in a way no request shows. */
export interface TurnNote {
  readonly turn: number;
  readonly logged: string;
  readonly replayed: string;
}

export interface ReplayedChild extends ReplayChild {
  readonly report?: ReplayReport;
  /** Why the child was not replayed. */
  readonly skipped?: string;
}

export interface ReplayReport {
  readonly sessionId: string;
  /** Every logged request was rebuilt identical, and the replay made no other request. */
  readonly identical: boolean;
  readonly requests: { readonly logged: number; readonly replayed: number; readonly identical: number };
  readonly differences: readonly RequestDifference[];
  /**
   * What the differences cost the session at the prompt cache: every recurring loss (the rebuilt
   * requests lose it even among themselves), plus once the largest other loss (where the changed
   * code first meets the cache the logged session warmed: a deploy, a resume). `cost` in USD for
   * the models the registry prices.
   */
  readonly cache: {
    readonly lostTokens: number;
    readonly recurringLostTokens: number;
    readonly onceLostTokens: number;
    readonly cost: number;
  };
  readonly turns: readonly TurnNote[];
  /** Child sessions (subagents) the log names, replayed when `options.children` gives their options. */
  readonly children: readonly ReplayedChild[];
}

export type ReplayErrorCode = "differs";

/**
 * `differs`: a replay that had to be identical was not (`expectReplayIdentical`); the message is
 * the readable report, `report` the whole of it.
 */
export class ReplayError extends KeelsonError<ReplayErrorCode> {
  readonly report: ReplayReport | undefined;
  constructor(code: ReplayErrorCode, message: string, options: { report?: ReplayReport; cause?: unknown } = {}) {
    super(code, message, options);
    this.report = options.report;
  }
}
