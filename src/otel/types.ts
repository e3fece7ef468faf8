// OpenTelemetry vocabulary: the plugin's options, the attribute names it writes (GenAI semantic
// conventions, plus `keelson.*` ones that lead back to the log), and the layer's error.
import type { Tracer } from "@opentelemetry/api";
import { KeelsonError } from "../errors/index.js";

export interface OtelTracingOptions {
  /** Where spans go. Default: `trace.getTracer("keelson")` from the globally registered provider. */
  readonly tracer?: Tracer;
  /**
   * Record prompt and answer content (`gen_ai.system_instructions`, `gen_ai.input.messages`,
   * `gen_ai.output.messages`, `gen_ai.tool.call.arguments`, `gen_ai.tool.call.result`). Default
   * false: spans carry sizes, ids and usage, never what was said.
   */
  readonly captureContent?: boolean;
  /** `gen_ai.agent.name`; the turn span is then named `invoke_agent {name}`. */
  readonly agentName?: string;
}

/** `@opentelemetry/api` is not installed (it is an optional peer dependency). */
export class OtelError extends KeelsonError<"api-missing"> {}

/** Attribute names (semantic conventions for GenAI, 1.3x; `keelson.*` are Keelson's own). */
export const ATTR = {
  operation: "gen_ai.operation.name",
  provider: "gen_ai.provider.name",
  agentName: "gen_ai.agent.name",
  conversation: "gen_ai.conversation.id",
  requestModel: "gen_ai.request.model",
  temperature: "gen_ai.request.temperature",
  maxTokens: "gen_ai.request.max_tokens",
  outputType: "gen_ai.output.type",
  finishReasons: "gen_ai.response.finish_reasons",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  cacheRead: "gen_ai.usage.cache_read.input_tokens",
  cacheWrite: "gen_ai.usage.cache_creation.input_tokens",
  reasoningTokens: "gen_ai.usage.reasoning.output_tokens",
  toolName: "gen_ai.tool.name",
  toolCallId: "gen_ai.tool.call.id",
  toolType: "gen_ai.tool.type",
  toolArguments: "gen_ai.tool.call.arguments",
  toolResult: "gen_ai.tool.call.result",
  systemInstructions: "gen_ai.system_instructions",
  inputMessages: "gen_ai.input.messages",
  outputMessages: "gen_ai.output.messages",
  errorType: "error.type",
  sessionId: "keelson.session.id",
  seqStart: "keelson.seq.start",
  seqEnd: "keelson.seq.end",
  turn: "keelson.turn",
  step: "keelson.step",
  endReason: "keelson.turn.end_reason",
  abortReason: "keelson.turn.abort_reason",
  retries: "keelson.retries",
} as const;
