// Parsing a POST /v1/chat/completions body the way OpenAI-compatible APIs validate it, into the
// normalized EmulatorRequest plus the automatic-caching segments (the tool list, then one per
// message, system messages in place). Validation errors are the API's 400s: missing model or
// messages, a tool message that answers no pending tool call, an assistant tool call left
// unanswered, stream_options without stream, a `response_format` the provider refuses
// (output-wire.ts). `reasoning_content` sent back never enters the
// normalized messages; in DeepSeek style it is counted where DeepSeek keeps it (tool-call
// spans), tools are counted as DeepSeek's template renders them (deepseek-tokens.ts), and a
// thinking-mode request must send it back (deepseek-thinking.ts).
import type { ToolSchema } from "../llm/index.js";
import type { AssistantContent, ImageBlock, Message, TextBlock, UserContent } from "../messages/index.js";
import type { CacheSegment } from "./cache-model.js";
import { deepseekThinking, requireReasoningReplay, toolSpanAssistants } from "./deepseek-thinking.js";
import { deepseekMessageSegment, deepseekToolsSegment } from "./deepseek-tokens.js";
import { messageSegment, systemSegment, toolsSegment } from "./message-tokens.js";
import { parseOpenAIOutput } from "./output-wire.js";
import type { EmulatorRequest } from "./types.js";
import {
  imageFromUrl,
  invalid,
  isObj,
  optionalArray,
  optionalPositiveInt,
  optionalString,
  requireArray,
  requireObj,
  requireString,
  schemaObject,
  stopList,
} from "./wire-json.js";

export interface ParsedOpenAIRequest {
  readonly request: EmulatorRequest;
  readonly segments: readonly CacheSegment[];
  readonly includeUsage: boolean;
}

export interface OpenAIParseOptions {
  /** DeepSeek style: DeepSeek's prompt accounting and thinking-mode validation. */
  readonly deepseek?: boolean;
}

export function parseOpenAIRequest(raw: unknown, options: OpenAIParseOptions = {}): ParsedOpenAIRequest {
  const body = requireObj(raw, "body");
  if (typeof body.model !== "string" || body.model === "") throw invalid("you must provide a model parameter", "model");
  if (body.messages === undefined) throw invalid("Missing required parameter: 'messages'.", "messages");
  const wire = requireArray(body.messages, "messages");
  if (wire.length === 0) throw invalid("[] is too short - 'messages'", "messages");
  const stream = body.stream === true;
  if (body.stream_options != null && !stream)
    throw invalid("The 'stream_options' parameter is only allowed when 'stream' is enabled.", "stream_options");

  const tools = optionalArray(body.tools, "tools").map((t, i): ToolSchema => {
    const tool = requireObj(t, `tools.[${i}]`);
    if (tool.type !== "function")
      throw invalid(`Invalid value: '${String(tool.type)}'. Supported values are: 'function'.`, `tools[${i}].type`);
    const fn = requireObj(tool.function, `tools[${i}].function`);
    const description = optionalString(fn.description, `tools[${i}].function.description`);
    return {
      name: requireString(fn.name, `tools[${i}].function.name`),
      inputSchema: schemaObject(fn.parameters, `tools[${i}].function.parameters`),
      ...(description === undefined ? {} : { description }),
    };
  });

  /** The prompt in wire order: system texts and (by index) messages. */
  const order: ({ readonly system: string } | { readonly message: number })[] = [];
  const systemTexts: string[] = [];
  const messages: Message[] = [];
  /** Per message: its index in the wire `messages`, and the `reasoning_content` it carried. */
  const wireIndex: number[] = [];
  const replayed: (string | undefined)[] = [];
  let pending: string[] = [];
  let pendingFrom = -1;
  wire.forEach((m, i) => {
    const message = requireObj(m, `messages.[${i}]`);
    const role = message.role;
    if (role !== "tool" && pending.length > 0) throw unanswered(pending, pendingFrom);
    if (role === "system" || role === "developer") {
      const text = textOf(message.content, i);
      systemTexts.push(text);
      order.push({ system: text });
      return;
    }
    let parsed: Message;
    if (role === "user") parsed = { role: "user", content: userContent(message.content, i) };
    else if (role === "assistant") {
      parsed = { role: "assistant", content: assistantContent(message, i) };
      pending = parsed.content.flatMap((b) => (b.type === "tool-call" ? [b.callId] : []));
      pendingFrom = i;
    } else if (role === "tool") {
      const callId = requireString(message.tool_call_id, `messages.[${i}].tool_call_id`);
      if (!pending.includes(callId))
        throw invalid(
          "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
          `messages.[${i}].role`,
        );
      pending = pending.filter((id) => id !== callId);
      parsed = {
        role: "tool",
        content: [
          {
            type: "tool-result",
            callId,
            content: [{ type: "text", text: textOf(message.content, i) }],
            isError: false,
          },
        ],
      };
    } else
      throw invalid(
        `Invalid value: '${String(role)}'. Supported values are: 'system', 'assistant', 'user', 'tool', and 'developer'.`,
        `messages.[${i}].role`,
      );
    order.push({ message: messages.length });
    messages.push(parsed);
    wireIndex.push(i);
    replayed.push(
      role === "assistant" && typeof message.reasoning_content === "string" ? message.reasoning_content : undefined,
    );
  });
  if (pending.length > 0 && wire.length - 1 > pendingFrom) throw unanswered(pending, pendingFrom);

  const spans = options.deepseek === true ? toolSpanAssistants(messages) : new Set<number>();
  if (options.deepseek === true && deepseekThinking(body)) requireReasoningReplay(spans, replayed, wireIndex);
  const segments: CacheSegment[] = [];
  if (tools.length > 0) segments.push(options.deepseek === true ? deepseekToolsSegment(tools) : toolsSegment(tools));
  for (const entry of order) {
    if ("system" in entry) segments.push(systemSegment(entry.system));
    else if (options.deepseek === true)
      segments.push(
        deepseekMessageSegment(
          messages[entry.message]!,
          spans.has(entry.message) ? replayed[entry.message] : undefined,
        ),
      );
    else segments.push(messageSegment(messages[entry.message]!));
  }

  const cacheKey =
    typeof body.prompt_cache_key === "string" && body.prompt_cache_key !== "" ? body.prompt_cache_key : undefined;
  const user = typeof body.user === "string" && body.user !== "" ? body.user : undefined;
  const system = systemTexts.join("\n\n");
  const output = parseOpenAIOutput(body, system, messages, { deepseek: options.deepseek === true });
  const request: EmulatorRequest = {
    api: "openai",
    model: body.model,
    system,
    tools,
    messages,
    maxTokens:
      optionalPositiveInt(body.max_completion_tokens, "max_completion_tokens") ??
      optionalPositiveInt(body.max_tokens, "max_tokens"),
    stop: stopList(body.stop, "stop"),
    sessionKey: cacheKey ?? user ?? "default",
    stream,
    ...(output === undefined ? {} : { output }),
  };
  const includeUsage = stream && isObj(body.stream_options) && body.stream_options.include_usage === true;
  return { request, segments, includeUsage };
}

function unanswered(ids: readonly string[], at: number): Error {
  return invalid(
    `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${ids.join(", ")}`,
    `messages.[${at}].role`,
  );
}

/** Text of a string or text-part content (system, developer, tool, assistant). */
function textOf(content: unknown, i: number): string {
  if (content === undefined || content === null) return "";
  if (typeof content === "string") return content;
  return requireArray(content, `messages.[${i}].content`)
    .map((p, j) => {
      const part = requireObj(p, `messages.[${i}].content.[${j}]`);
      if (part.type === "text") return requireString(part.text, `messages.[${i}].content.[${j}].text`);
      if (part.type === "refusal") return requireString(part.refusal, `messages.[${i}].content.[${j}].refusal`);
      throw invalid(
        `Invalid value: '${String(part.type)}'. Supported values are: 'text'.`,
        `messages.[${i}].content.[${j}].type`,
      );
    })
    .join("");
}

function userContent(content: unknown, i: number): UserContent[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return requireArray(content, `messages.[${i}].content`).map((p, j): TextBlock | ImageBlock => {
    const path = `messages.[${i}].content.[${j}]`;
    const part = requireObj(p, path);
    if (part.type === "text") return { type: "text", text: requireString(part.text, `${path}.text`) };
    if (part.type === "image_url") {
      return imageFromUrl(requireString(requireObj(part.image_url, `${path}.image_url`).url, `${path}.image_url.url`));
    }
    throw invalid(
      `Invalid value: '${String(part.type)}'. Supported values are: 'text' and 'image_url'.`,
      `${path}.type`,
    );
  });
}

function assistantContent(message: { readonly [key: string]: unknown }, i: number): AssistantContent[] {
  const content: AssistantContent[] = [];
  const text = textOf(message.content, i);
  if (text !== "") content.push({ type: "text", text });
  optionalArray(message.tool_calls, `messages.[${i}].tool_calls`).forEach((c, j) => {
    const path = `messages.[${i}].tool_calls.[${j}]`;
    const call = requireObj(c, path);
    const fn = requireObj(call.function, `${path}.function`);
    content.push({
      type: "tool-call",
      callId: requireString(call.id, `${path}.id`),
      name: requireString(fn.name, `${path}.function.name`),
      arguments: requireString(fn.arguments ?? "", `${path}.function.arguments`),
    });
  });
  return content;
}
