// Keelson request → Anthropic Messages API params, with cache breakpoints placed from the
// request's structure (CACHING.md, "What this means for Keelson"), at most 4:
//   1. the end of tools+system (the last system block; the last tool when there is no system),
//   2. the end of the session prefix (`prefixLength` leading messages), when present,
//   3. the previous request's last block — the message right before the newest assistant
//      message — so a wide tool step still reads everything before it despite the 20-block
//      lookback,
//   4. the new last block (the rolling tail).
// Breakpoints that would land on the same block are merged; thinking blocks cannot carry
// cache_control, so a breakpoint moves to the last other block of its message. Structured output
// (`request.output`) becomes `output_config.format` (json_schema, in Anthropic's dialect:
// output-schema.ts); a request without it carries no `output_config`.
import type Anthropic from "@anthropic-ai/sdk";
import type { Message } from "../../messages/index.js";
import { ANTHROPIC_API, opaqueOwner } from "../reasoning-carryover.js";
import type { ProviderRequest } from "../types.js";
import { anthropicOutputSchema } from "./output-schema.js";

type MessageParam = Anthropic.Messages.MessageParam;
type ContentBlockParam = Anthropic.Messages.ContentBlockParam;
type CacheControl = { type: "ephemeral" };
const EPHEMERAL: CacheControl = { type: "ephemeral" };

export interface AnthropicWireOptions {
  /** `max_tokens` when the request sets none (the API requires one). */
  readonly defaultMaxTokens: number;
}

/**
 * The `anthropic-version` the core SDK (1.15.0) sends; the Bedrock and Vertex SDKs move it into
 * the body as `anthropic_version`.
 */
export const ANTHROPIC_SDK_VERSION_HEADER = "2026-10-21";

/**
 * The body the Bedrock / Vertex SDK sends for `body` (`anthropicRequestBody`'s): the same object
 * less what the platform puts in the URL — `model` (both) and `stream` (Bedrock) — with
 * `anthropic_version` appended. Everything else, cache breakpoints included, is byte for byte the
 * Anthropic wire's.
 */
export function anthropicPlatformBody(
  body: Anthropic.Messages.MessageCreateParamsStreaming,
  platform: "bedrock" | "vertex",
): Record<string, unknown> {
  const { model: _model, stream, ...rest } = body;
  return platform === "bedrock"
    ? { ...rest, anthropic_version: ANTHROPIC_SDK_VERSION_HEADER }
    : { ...rest, stream, anthropic_version: ANTHROPIC_SDK_VERSION_HEADER };
}

/** AnthropicProvider's `defaultMaxTokens` when none is configured. */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 8192;

/**
 * The exact request body the adapter hands to `client.messages.create` — the params plus
 * `stream: true`, in this key order — and so, once the SDK `JSON.stringify`s it, the bytes on
 * the wire. `keelson requests --wire anthropic` prints this same object: one source for both.
 */
export function anthropicRequestBody(
  request: ProviderRequest,
  options: AnthropicWireOptions,
): Anthropic.Messages.MessageCreateParamsStreaming {
  return { ...toAnthropicParams(request, options), stream: true };
}

/** The params for `client.messages.create` (without `stream`; see `anthropicRequestBody`). */
export function toAnthropicParams(
  request: ProviderRequest,
  options: AnthropicWireOptions,
): Anthropic.Messages.MessageCreateParamsNonStreaming {
  const system: Anthropic.Messages.TextBlockParam[] | undefined = request.system
    ? [{ type: "text", text: request.system }]
    : undefined;
  const tools: Anthropic.Messages.Tool[] | undefined = request.tools?.map((t) => ({
    name: t.name,
    ...(t.description === undefined ? {} : { description: t.description }),
    input_schema: t.inputSchema as Anthropic.Messages.Tool.InputSchema,
  }));
  const { params: messages, lastIndexOf } = toMessageParams(request.messages);

  // 1. tools + system
  if (system !== undefined) (system[system.length - 1] as { cache_control?: CacheControl }).cache_control = EPHEMERAL;
  else if (tools !== undefined && tools.length > 0)
    (tools[tools.length - 1] as { cache_control?: CacheControl }).cache_control = EPHEMERAL;
  // 2–4 on message blocks, by Keelson message index.
  const marks = new Set<number>();
  const prefixLength = request.prefixLength ?? 0;
  if (prefixLength > 0) marks.add(prefixLength - 1);
  const lastAssistant = findLastIndex(request.messages, (m) => m.role === "assistant");
  if (lastAssistant > 0 && lastAssistant - 1 >= prefixLength) marks.add(lastAssistant - 1);
  if (request.messages.length > 0) marks.add(request.messages.length - 1);
  for (const index of marks) markBlock(messages, lastIndexOf(index));

  return {
    model: request.model.includes(":") ? request.model.slice(request.model.indexOf(":") + 1) : request.model,
    max_tokens: request.maxTokens ?? options.defaultMaxTokens,
    messages,
    ...(system === undefined ? {} : { system }),
    ...(tools === undefined || tools.length === 0 ? {} : { tools }),
    ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
    ...(request.stop === undefined ? {} : { stop_sequences: [...request.stop] }),
    metadata: { user_id: request.sessionId },
    // Structured output, natively: only a request that asks for it carries the field.
    ...(request.output === undefined
      ? {}
      : { output_config: { format: { type: "json_schema", schema: anthropicOutputSchema(request.output.schema) } } }),
  };
}

/**
 * Keelson messages → Anthropic turns. Consecutive tool messages become one user turn of
 * tool_result blocks (the API wants every result of an assistant turn right after it); other
 * consecutive user messages stay separate turns, which the API combines. `lastIndexOf(i)` gives
 * the position (turn, block) of Keelson message i's last block.
 */
function toMessageParams(messages: readonly Message[]): {
  params: MessageParam[];
  lastIndexOf: (i: number) => { turn: number; block: number } | undefined;
} {
  const params: MessageParam[] = [];
  const positions: ({ turn: number; block: number } | undefined)[] = [];
  for (const message of messages) {
    if (message.role === "tool") {
      const result = message.content[0];
      const block: ContentBlockParam = {
        type: "tool_result",
        tool_use_id: result.callId,
        content: result.content.map((p) =>
          p.type === "text" ? { type: "text" as const, text: p.text || " " } : imageParam(p.mediaType, p.data),
        ),
        ...(result.isError ? { is_error: true } : {}),
      };
      const previous = params.at(-1);
      if (
        previous !== undefined &&
        previous.role === "user" &&
        Array.isArray(previous.content) &&
        previous.content.every((b) => b.type === "tool_result")
      ) {
        previous.content.push(block);
      } else {
        params.push({ role: "user", content: [block] });
      }
      const last = params.at(-1)!;
      positions.push({ turn: params.length - 1, block: (last.content as ContentBlockParam[]).length - 1 });
      continue;
    }
    const content = message.role === "user" ? userBlocks(message.content) : assistantBlocks(message.content);
    if (content.length === 0) {
      positions.push(undefined); // nothing the API would accept (e.g. an empty text): skipped
      continue;
    }
    params.push({ role: message.role, content });
    positions.push({ turn: params.length - 1, block: content.length - 1 });
  }
  return { params, lastIndexOf: (i) => positions[i] };
}

function userBlocks(content: Extract<Message, { role: "user" }>["content"]): ContentBlockParam[] {
  return content.flatMap((b): ContentBlockParam[] =>
    b.type === "text" ? (b.text === "" ? [] : [{ type: "text", text: b.text }]) : [imageParam(b.mediaType, b.data)],
  );
}

function assistantBlocks(content: Extract<Message, { role: "assistant" }>["content"]): ContentBlockParam[] {
  return content.flatMap((b): ContentBlockParam[] => {
    switch (b.type) {
      case "text":
        return b.text === "" ? [] : [{ type: "text", text: b.text }];
      case "reasoning":
        // Only signed (or redacted) thinking can be replayed; unsigned reasoning from another
        // provider is dropped, and so is another API's opaque reasoning (reasoning-carryover.ts).
        if (opaqueOwner(b) !== ANTHROPIC_API) return [];
        if (b.redacted === true) return [{ type: "redacted_thinking", data: b.text }];
        return b.signature === undefined ? [] : [{ type: "thinking", thinking: b.text, signature: b.signature }];
      case "tool-call":
        return [{ type: "tool_use", id: b.callId, name: b.name, input: parseInput(b.arguments) }];
      default:
        return [];
    }
  });
}

/** tool_use.input must be an object: arguments that are not a JSON object are sent as {} (the tool result already told the model). */
function parseInput(raw: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(raw);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

function imageParam(mediaType: string, data: string): Anthropic.Messages.ImageBlockParam {
  return {
    type: "image",
    source: { type: "base64", media_type: mediaType as Anthropic.Messages.Base64ImageSource["media_type"], data },
  };
}

function markBlock(params: MessageParam[], at: { turn: number; block: number } | undefined): void {
  if (at === undefined) return;
  const content = params[at.turn]?.content;
  if (!Array.isArray(content)) return;
  for (let i = at.block; i >= 0; i--) {
    const block = content[i] as { type: string; cache_control?: CacheControl };
    if (block.type === "thinking" || block.type === "redacted_thinking") continue;
    block.cache_control = EPHEMERAL;
    return;
  }
}

function findLastIndex<T>(items: readonly T[], test: (item: T) => boolean): number {
  for (let i = items.length - 1; i >= 0; i--) if (test(items[i]!)) return i;
  return -1;
}
