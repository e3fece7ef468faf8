// MCP sampling (`sampling/createMessage`, decision 0026): a server asks, during one of its tool
// calls, for a model completion. Offered only when the application enables it; each request is
// bounded (requests per call, maxTokens), approved by a person first (by default) through the
// call's `ToolContext.ask` — the pause machinery elicitation uses — then answered by the agent's
// provider and logged as its own request (`mcp/sampling-request` / `mcp/sampling-response`),
// which no loop request's history or header ever contains. Unapproved with nobody to answer now,
// the server's request fails, the call is suspended and the turn ends `awaiting-input`; once a
// person answers (`agent.respond`), the call runs again and the same request is approved (or
// denied) from the log.
import { errorMessage } from "../errors/index.js";
import type { CreateMessageRequestParams, CreateMessageResult } from "@modelcontextprotocol/sdk/types.js";
import { type AssistantResult, BlockAssembler, type Provider, untilAborted } from "../llm/core.js";
import type { Agent } from "../loop/index.js";
import { type EventDataMap, type SampledRequest, SessionError } from "../session/index.js";
import type { ToolContext } from "../tools/index.js";
import {
  approvalQuestion,
  createMessageResult,
  INTERNAL_ERROR,
  INVALID_REQUEST,
  SAMPLING_APPROVAL_SCHEMA,
  sampledRequest,
  samplingRefusal,
  USER_REJECTED,
} from "./sampling-wire.js";
import { McpError, type McpSamplingApproval, type McpSamplingOptions } from "./types.js";

export const DEFAULT_SAMPLING_MAX_TOKENS = 1_024;
export const DEFAULT_SAMPLING_REQUESTS_PER_CALL = 3;

/** The tool call a server samples during. */
export interface SamplingCall {
  readonly server: string;
  /** The Keelson tool name (`mcp__<server>__<tool>`). */
  readonly tool: string;
  readonly callId: string;
  readonly ask: ToolContext["ask"];
  readonly signal: AbortSignal;
}

/** Answers one server request of the call: `signal` is the request's own, `suspend` suspends the call. */
export type SampleFn = (
  params: CreateMessageRequestParams,
  signal: AbortSignal,
  suspend: () => void,
) => Promise<CreateMessageResult>;

/** The sampling options with their defaults, checked (`McpError('invalid-config')` naming the key). */
export interface SamplingSettings {
  readonly maxTokens: number;
  readonly maxRequestsPerCall: number;
  readonly needsApproval: boolean;
  readonly provider?: Provider;
  readonly model?: string;
  readonly approve?: McpSamplingOptions["approve"];
}

export function samplingSettings(options: McpSamplingOptions | boolean | undefined): SamplingSettings | undefined {
  if (options === undefined || options === false) return undefined;
  const o: McpSamplingOptions = options === true ? {} : options;
  for (const key of ["maxTokens", "maxRequestsPerCall"] as const) {
    const value = o[key];
    if (value !== undefined && (!Number.isInteger(value) || value <= 0))
      throw new McpError(
        "invalid-config",
        `mcpTools options: sampling.${key} must be a positive integer (got ${value})`,
      );
  }
  if (o.model !== undefined && (typeof o.model !== "string" || o.model === ""))
    throw new McpError("invalid-config", "mcpTools options: sampling.model must be a non-empty string");
  return {
    maxTokens: o.maxTokens ?? DEFAULT_SAMPLING_MAX_TOKENS,
    maxRequestsPerCall: o.maxRequestsPerCall ?? DEFAULT_SAMPLING_REQUESTS_PER_CALL,
    needsApproval: o.needsApproval ?? true,
    ...(o.provider === undefined ? {} : { provider: o.provider }),
    ...(o.model === undefined ? {} : { model: o.model }),
    ...(o.approve === undefined ? {} : { approve: o.approve }),
  };
}

/**
 * The sampler of one agent: `forCall(call)` gives the function that answers a server's requests
 * during that call; `asking` is the approval being asked now (for the `sampling.approve` hook,
 * which the plugin installs as an `input/ask` listener).
 */
export class Sampler {
  asking: (McpSamplingApproval & { readonly message: string }) | undefined;
  readonly #agent: Agent;
  readonly #settings: SamplingSettings;

  constructor(agent: Agent, settings: SamplingSettings) {
    this.#agent = agent;
    this.#settings = settings;
  }

  forCall(call: SamplingCall): SampleFn {
    let made = 0;
    return async (params, requestSignal, suspend) => {
      const { maxRequestsPerCall, maxTokens } = this.#settings;
      if (++made > maxRequestsPerCall)
        throw samplingRefusal(
          INVALID_REQUEST,
          `sampling refused: at most ${maxRequestsPerCall} sampling requests per tool call (this is request ${made})`,
        );
      const request = sampledRequest(params, this.#settings.model ?? this.#agent.model, maxTokens);
      if (this.#settings.needsApproval) await this.#approval(call, request, suspend);
      return this.#complete(call, request, AbortSignal.any([call.signal, requestSignal]));
    };
  }

  /** Resolves when approved; throws the refusal the server gets otherwise (and suspends the call when nobody answered). */
  async #approval(call: SamplingCall, request: SampledRequest, suspend: () => void): Promise<void> {
    if (call.ask === undefined)
      throw samplingRefusal(USER_REJECTED, "User rejected sampling request: nobody can approve it");
    const message = approvalQuestion(call.server, call.tool, request);
    this.asking = { server: call.server, tool: call.tool, callId: call.callId, request, message };
    let answer: unknown;
    try {
      answer = await call.ask({ message, schema: SAMPLING_APPROVAL_SCHEMA });
    } finally {
      this.asking = undefined;
    }
    if (answer === undefined) {
      suspend();
      throw samplingRefusal(
        USER_REJECTED,
        "User rejected sampling request: nobody approved it yet (the call is suspended until a person answers)",
      );
    }
    if (answer !== "approve") throw samplingRefusal(USER_REJECTED, "User rejected sampling request");
  }

  /** Logs the request, asks the provider, logs and returns its answer (or logs the failure and throws). */
  async #complete(call: SamplingCall, request: SampledRequest, signal: AbortSignal): Promise<CreateMessageResult> {
    const session = this.#agent.session;
    const id = `${call.callId}#sample-${samplesOf(this.#agent, call.callId) + 1}`;
    session.append("mcp/sampling-request", { id, callId: call.callId, server: call.server, request });
    let result: AssistantResult;
    try {
      result = await complete(this.#settings.provider ?? this.#agent.provider, request, session.id, signal);
    } catch (error) {
      result = { content: [], finish: signal.aborted ? "aborted" : "error", error: { message: errorMessage(error) } };
    }
    const failed = result.finish === "error" || result.finish === "aborted";
    logAnswer(this.#agent, {
      id,
      callId: call.callId,
      ...(failed
        ? {
            error: {
              code: result.error?.code ?? result.finish,
              message: result.error?.message ?? `the request ended ${result.finish}`,
            },
          }
        : {
            content: result.content,
            ...(result.usage === undefined ? {} : { usage: result.usage }),
            stopReason: result.finish,
          }),
    });
    if (failed)
      throw samplingRefusal(INTERNAL_ERROR, `the model request failed: ${result.error?.message ?? result.finish}`);
    return createMessageResult(result, request.model);
  }
}

/** One streamed completion, assembled. */
async function complete(
  provider: Provider,
  request: SampledRequest,
  sessionId: string,
  signal: AbortSignal,
): Promise<AssistantResult> {
  const assembler = new BlockAssembler();
  // read only until the abort: a provider that ignores its signal must not keep the request open
  for await (const chunk of untilAborted(provider.stream(Object.freeze({ ...request, signal, sessionId })), signal)) {
    assembler.push(chunk);
    if (assembler.finished) break;
  }
  return signal.aborted && !assembler.finished ? { content: [], finish: "aborted" } : assembler.result();
}

/** Logs the answer unless the call was closed meanwhile (a cancel logged its aborted result): then there is nothing to attach it to. */
function logAnswer(agent: Agent, data: EventDataMap["mcp/sampling-response"]): void {
  try {
    agent.session.append("mcp/sampling-response", data);
  } catch (error) {
    if (!(error instanceof SessionError && error.code === "structure")) throw error;
  }
}

/** How many sampling requests the call `callId` has logged (in every run of it): scans back to its `tool/call`. */
function samplesOf(agent: Agent, callId: string): number {
  const session = agent.session;
  let count = 0;
  for (let seq = session.length - 1; seq >= 0; seq--) {
    const event = session.eventAt(seq)!;
    const data = event.data as { readonly callId?: string };
    if (data.callId !== callId) continue;
    if (event.type === "tool/call") break;
    if (event.type === "mcp/sampling-request") count++;
  }
  return count;
}
