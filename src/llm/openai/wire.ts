// Keelson request → Chat Completions params (`client.chat.completions.create`, streaming).
// The provider differences live in `ChatWireOptions`, decided once per flavor by the adapter:
// the system role, the max-tokens field, whether `prompt_cache_key` (OpenAI) or `cache_prompt`
// (llama.cpp) is sent, which reasoning is replayed, and how structured output is asked for. The mapping is a pure function of the request, so the same history always
// serializes to the same bytes and the provider's automatic prefix cache keeps hitting.
import type OpenAI from "openai";
import type { AssistantMessage, Message, ToolResultPart, UserContent } from "../../messages/index.js";
import { withJsonModeInstruction } from "../json-mode.js";
import type { ProviderRequest } from "../types.js";
import { type OutputMode, responseFormat } from "./response-format.js";

type MessageParam = OpenAI.Chat.Completions.ChatCompletionMessageParam;
type ContentPart = OpenAI.Chat.Completions.ChatCompletionContentPart;
/** DeepSeek reads `reasoning_content` back on assistant messages; the SDK does not type it. */
type AssistantParam = OpenAI.Chat.Completions.ChatCompletionAssistantMessageParam & { reasoning_content?: string };

export interface ChatWireOptions {
  /** Role of the system prompt message: `developer` for OpenAI reasoning models that prefer it. */
  readonly systemRole: "system" | "developer";
  /** OpenAI deprecated `max_tokens` for `max_completion_tokens`; DeepSeek and most servers read `max_tokens`. */
  readonly maxTokensField: "max_completion_tokens" | "max_tokens";
  /** Send `prompt_cache_key: request.sessionId` (OpenAI routes a session to one cache with it). */
  readonly promptCacheKey: boolean;
  /**
   * Which reasoning goes back to the provider. `none`: dropped (OpenAI keeps its reasoning
   * server-side; most servers reject or ignore it). `tool-turns` (DeepSeek thinking mode): a
   * `reasoning_content` on every assistant message between two user messages in which the model
   * called a tool — its reasoning, or `""` when it had none (DeepSeek answers 400 when the field
   * is missing, and streams no reasoning block for an empty one) — and nothing for turns without
   * tool calls, whose reasoning DeepSeek documents as not part of the context.
   */
  readonly reasoningReplay: "none" | "tool-turns";
  /**
   * How structured output (`request.output`) is asked for: `json_schema` (OpenAI, compatible
   * servers) sends the schema in `response_format`; `json_object` (DeepSeek's JSON mode) sends
   * `{ type: "json_object" }` and appends the schema instruction to the system prompt.
   */
  readonly outputMode: OutputMode;
  /** llama.cpp's server: `cache_prompt: true`, so the slot keeps the prompt's KV cache for the next request. */
  readonly cachePrompt?: boolean;
}

/** The streaming params for one request: `stream: true` with `include_usage`. */
export function toChatCompletionsParams(
  request: ProviderRequest,
  options: ChatWireOptions,
): OpenAI.Chat.Completions.ChatCompletionCreateParamsStreaming {
  const messages: MessageParam[] = [];
  const output = request.output;
  const system =
    output !== undefined && options.outputMode === "json_object"
      ? withJsonModeInstruction(request.system, output)
      : request.system;
  if (system) messages.push({ role: options.systemRole, content: system });
  messages.push(...toMessageParams(request.messages, options));
  const tools = request.tools?.map(
    (t): OpenAI.Chat.Completions.ChatCompletionFunctionTool => ({
      type: "function",
      function: {
        name: t.name,
        ...(t.description === undefined ? {} : { description: t.description }),
        parameters: t.inputSchema as OpenAI.FunctionParameters,
      },
    }),
  );
  return {
    model: modelId(request.model),
    messages,
    ...(tools === undefined || tools.length === 0 ? {} : { tools }),
    ...(request.maxTokens === undefined ? {} : { [options.maxTokensField]: request.maxTokens }),
    ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
    ...(request.stop === undefined || request.stop.length === 0 ? {} : { stop: [...request.stop] }),
    ...(options.promptCacheKey ? { prompt_cache_key: request.sessionId } : {}),
    // Only a request that asks for structured output carries the field (byte-identical otherwise).
    ...(output === undefined ? {} : { response_format: responseFormat(output, options.outputMode) }),
    ...(options.cachePrompt === true ? { cache_prompt: true } : {}),
    stream: true,
    stream_options: { include_usage: true },
  };
}

/** `provider:model` → `model` (the selector's prefix picks the provider; the rest is the model id). */
export function modelId(model: string): string {
  return model.includes(":") ? model.slice(model.indexOf(":") + 1) : model;
}

function toMessageParams(history: readonly Message[], options: ChatWireOptions): MessageParam[] {
  const replay = options.reasoningReplay === "tool-turns" ? toolTurnAssistants(history) : new Set<number>();
  return history.map((message, i): MessageParam => {
    if (message.role === "user") return { role: "user", content: userContent(message.content) };
    if (message.role === "assistant") return assistantParam(message, replay.has(i));
    const result = message.content[0];
    return { role: "tool", tool_call_id: result.callId, content: toolResultText(result.content) };
  });
}

/** A single text block is sent as a plain string (the common, cheapest shape); anything else as parts. */
function userContent(content: readonly UserContent[]): string | ContentPart[] {
  const only = content[0];
  if (content.length === 1 && only?.type === "text") return only.text;
  return content.map(
    (part): ContentPart =>
      part.type === "text"
        ? { type: "text", text: part.text }
        : { type: "image_url", image_url: { url: `data:${part.mediaType};base64,${part.data}` } },
  );
}

function assistantParam(message: AssistantMessage, withReasoning: boolean): AssistantParam {
  const texts: string[] = [];
  const reasoning: string[] = [];
  const toolCalls: OpenAI.Chat.Completions.ChatCompletionMessageFunctionToolCall[] = [];
  for (const block of message.content) {
    if (block.type === "text") texts.push(block.text);
    else if (block.type === "reasoning") reasoning.push(block.text);
    else
      toolCalls.push({
        id: block.callId,
        type: "function",
        function: { name: block.name, arguments: block.arguments },
      });
  }
  // `content` may be null only when there are tool calls; an empty answer is "".
  const content = texts.length > 0 ? texts.join("\n") : toolCalls.length > 0 ? null : "";
  return {
    role: "assistant",
    content,
    ...(withReasoning ? { reasoning_content: reasoning.join("\n") } : {}),
    ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
  };
}

/** Chat Completions tool messages carry text only: images become a marker the model can see. */
function toolResultText(parts: readonly ToolResultPart[]): string {
  return parts.map((p) => (p.type === "text" ? p.text : "[image]")).join("\n");
}

/** Indexes of the assistant messages in user-to-user spans where some assistant message called a tool. */
function toolTurnAssistants(history: readonly Message[]): Set<number> {
  const keep = new Set<number>();
  let span: number[] = [];
  let called = false;
  const close = (): void => {
    if (called) for (const i of span) keep.add(i);
    span = [];
    called = false;
  };
  history.forEach((message, i) => {
    if (message.role === "user") close();
    else if (message.role === "assistant") {
      span.push(i);
      called ||= message.content.some((b) => b.type === "tool-call");
    }
  });
  close();
  return keep;
}
