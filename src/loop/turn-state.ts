// The state one turn threads through its parts (turn.ts, tool-batch.ts): the per-instance and
// per-turn context, the turn's own state, and the two control-flow helpers — a durability point
// (`commit`) and the abort check that unwinds a cancelled turn.
import type { ToolProgressEvent } from "./turn-events.js";
import { errorMessage } from "../errors/index.js";
import type { HeaderWriter, RequestConfig } from "../header/index.js";
import type { HookBus } from "../hooks/index.js";
import type { Provider, StreamChunk } from "../llm/core.js";
import type { Message } from "../messages/index.js";
import type { PromptSections } from "../prompt/index.js";
import type { Session } from "../session/index.js";
import type { SessionPersistence, SessionStore } from "../store/index.js";
import type { AbortState, ToolRegistry } from "../tools/index.js";
import type { Answerer, Approver } from "./approval-types.js";
import type { Inbox, QueuedInject, QueuedSteer } from "./inbox.js";
import type { RetryPolicy } from "./retry.js";
import type { SubagentTurnEvent } from "./turn-events.js";
import type { OutputProgress, TurnOutput } from "./turn-output.js";
import { type Agent, type AgentHooks, type CompactionGate, LoopError } from "./types.js";

/** Why a turn's signal was aborted. */
export type AbortCause = { readonly kind: "cancel"; readonly reason: string } | { readonly kind: "dispose" };

/** Per-loop-instance state: a resume, fork or new process is a new instance. */
export interface InstanceState {
  prefix: readonly Message[] | undefined;
  readonly writer: HeaderWriter;
  requestsSent: number;
}

export interface TurnContext {
  readonly agent: Agent;
  readonly session: Session;
  readonly hooks: HookBus<AgentHooks>;
  readonly tools: ToolRegistry;
  readonly prompt: PromptSections;
  readonly provider: Provider;
  readonly initialConfig: RequestConfig;
  readonly promptVars: Readonly<Record<string, string>>;
  readonly instance: InstanceState;
  readonly inbox: Inbox;
  readonly maxSteps: number;
  readonly toolTimeoutMs: number | undefined;
  /** The cap on a tool result's text (`AgentOptions.maxToolResultChars`, defaulted). */
  readonly maxToolResultChars: number;
  readonly invariants: boolean;
  readonly cwd: string | undefined;
  readonly persistence: SessionPersistence | undefined;
  readonly durability: "step" | "turn";
  /** True once the agent is disposed (wins over a cancel that aborted the signal first). */
  readonly isDisposed: () => boolean;
  readonly retry: RetryPolicy;
  readonly compaction: CompactionGate | undefined;
  readonly prefixOnResume: "recompose" | "reuse";
  /** The provider's chunks, live, for the agent's turn streams (before `llm/chunk`). */
  readonly onChunk?: (chunk: StreamChunk) => void;
  /** A running call's progress report, for the live feeds. */
  readonly onProgress?: (event: ToolProgressEvent) => void;
  /** The agent's default structured output (turns without prompts, e.g. a steer's, use it). */
  readonly output?: TurnOutput;
  /** The agent's live decider (`approver` option): the innermost `approval/ask` answer. */
  readonly approver: Approver | undefined;
  /** The agent's live answerer (`answerer` option): the innermost `input/ask` answer. */
  readonly answerer: Answerer | undefined;
  /** The agent's store (subagents' sessions are created in it). */
  readonly store: SessionStore | undefined;
  /** The agent's clock option (its subagents use it too). */
  readonly clock: (() => number) | undefined;
  /** Subagents' sessions of a store-less agent, by id (a held call collects its child from here). */
  readonly memoryChildren: Map<string, Session>;
  /** A subagent's committed event, for the agent's turn streams. */
  readonly onSubagent?: (event: SubagentTurnEvent) => void;
}

/** Control flow only: unwinds a turn whose signal aborted (never reported as an error). */
export class Aborted extends LoopError {
  constructor() {
    super("aborted", "the turn was aborted");
  }
}

export interface TurnState {
  step: number;
  /** Whether the open step's request was handed to `llm/stream`. */
  dispatched: boolean;
  error?: { step: number; message: string; code: string };
  maxTokens: boolean;
  rejected?: string;
  /** Settled after turn/end and the flush: steers consumed and injects logged by this turn. */
  steers: QueuedSteer[];
  injects: QueuedInject[];
  /** The first flush failure of this turn: the store is behind the session. */
  storeError?: unknown;
  /** The structured output the turn asks for, and how its check went. */
  output?: TurnOutput;
  progress: OutputProgress;
  /** The final answer's issues when it failed the output schema (`invalid-output`). */
  issues?: readonly string[];
  /** Set when a step paused for a person: the turn ends `awaiting-approval` or `awaiting-input`. */
  awaiting: boolean;
}

/**
 * A durability point: makes everything appended so far durable. A failure is remembered on the
 * turn and thrown as `LoopError('not-saved')`, which ends the turn before anything else runs.
 */
/** Whether `commit` would flush: a store, per-step durability, and no failed flush yet. */
export const flushDue = (ctx: TurnContext, state: TurnState): boolean =>
  ctx.persistence !== undefined && ctx.durability !== "turn" && state.storeError === undefined;

export async function commit(ctx: TurnContext, state: TurnState): Promise<void> {
  if (ctx.persistence === undefined || !flushDue(ctx, state)) return;
  try {
    await ctx.persistence.flush();
  } catch (error) {
    state.storeError = error;
    throw new LoopError("not-saved", `the session could not be saved: ${errorMessage(error)}`, { cause: error });
  }
}

/** Unwinds the turn if it was aborted (reads the turn's `AbortState`, never the signal: one shape every turn). */
export function checkAbort(abort: AbortState): void {
  if (abort.aborted) throw new Aborted();
}
