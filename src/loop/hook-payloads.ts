// The payloads of the loop's own hooks (AgentHooks in types.ts): one frozen object per call,
// owned by the loop. Tool, prompt and approval hooks keep theirs next to their modules.
import type { RequestConfig } from "../header/index.js";
import type { ProviderFailure, ProviderRequest, StreamChunk, ToolSchema } from "../llm/core.js";
import type { Message } from "../messages/index.js";
import type { AnySessionEvent } from "../session/index.js";
import type { Agent, AgentStatus, PromptInput } from "./types.js";

/** `agent/prompt-submit`: one claimed prompt, before it is logged. */
export interface PromptSubmitPayload {
  readonly agent: Agent;
  /** Frozen. */
  readonly prompt: PromptInput;
}

/** `agent/session-prefix`: the composition of the loop instance's session prefix. */
export interface SessionPrefixPayload {
  readonly agent: Agent;
  /** The frozen empty seed the innermost default returns. */
  readonly seed: readonly Message[];
  /** The turn's signal: a cancel or dispose during composition discards the result. */
  readonly signal: AbortSignal;
}

/** `agent/tool-set`: one step, before it reads the agent's tool set. */
export interface ToolSetPayload {
  readonly agent: Agent;
  readonly turn: number;
  readonly step: number;
  readonly signal: AbortSignal;
}

/** `agent/pre-step`: one step, before its boundary. */
export interface PreStepPayload {
  readonly agent: Agent;
  readonly turn: number;
  readonly step: number;
  /** The rendered system prompt this step's request will carry. */
  readonly fullSystemPrompt: string;
  /** The session prefix this step's request will carry (frozen). */
  readonly sessionPrefix: readonly Message[];
  readonly signal: AbortSignal;
}

/** `agent/request`: the call config of one step's request. */
export interface RequestPayload {
  readonly agent: Agent;
  /** The frozen seed config (what the innermost default returns). */
  readonly config: RequestConfig;
  /** The system prompt, tool schemas and session prefix the request will carry (frozen). */
  readonly system: string;
  readonly tools: readonly ToolSchema[];
  readonly sessionPrefix: readonly Message[];
  /** The turn's signal (a listener that calls out, e.g. to create a provider cache, passes it on). */
  readonly signal: AbortSignal;
  /**
   * Set when the step's request just failed with `cache-missing` (a provider-side cache it named
   * is gone): the waterfall runs once more, and a config that differs from the failed request's
   * is logged and sent (the seed is that request's config).
   */
  readonly retryOf?: ProviderFailure;
}

/** `llm/stream`: one provider call. */
export interface LlmStreamPayload {
  readonly agent: Agent;
  /** Deep-frozen and branded loop-built; its signal stays live. */
  readonly request: ProviderRequest;
}

/** `llm/chunk`: one streamed chunk. */
export interface LlmChunkPayload {
  readonly agent: Agent;
  /** The provider's chunk: read it, do not keep it. */
  readonly chunk: StreamChunk;
}

/** `session/event`: one committed session event. */
export interface SessionEventPayload {
  readonly agent: Agent;
  /** Deep-frozen; `event.type` narrows `event.data`. */
  readonly event: AnySessionEvent;
}

/** `agent/status`: a status change. */
export interface StatusPayload {
  readonly agent: Agent;
  readonly status: AgentStatus;
}

/** `agent/prefix-drift`: the contributors' output differs from the logged prefix (all arrays frozen). */
export interface PrefixDriftPayload {
  readonly agent: Agent;
  /** The prefix on the log, which the requests keep sending. */
  readonly logged: readonly Message[];
  /** What the contributors composed now. */
  readonly composed: readonly Message[];
  /** Positions in `composed` that are new or changed. */
  readonly drifted: readonly number[];
}

/** `agent/error`: a contained failure. */
export interface AgentErrorPayload {
  readonly agent: Agent;
  /** The original thrown value. */
  readonly error: unknown;
  /** Where it happened: a hook name, `turn N`, `store flush`, `compaction`, `mcp`, … */
  readonly where: string;
}
