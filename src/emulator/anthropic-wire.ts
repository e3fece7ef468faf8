// Parsing a POST /v1/messages body the way the Messages API validates it, into the normalized
// EmulatorRequest plus the cache model's block list (tools → system → message content blocks,
// each flagged when it carries cache_control). Validation errors are the API's 400s: missing
// model/max_tokens/messages, more than 4 cache_control blocks, cache_control on thinking, a
// tool_result without a tool_use in the previous message, a tool_use left unanswered, a
// structured-output schema Anthropic refuses (output-wire.ts).
import type { ToolSchema } from "../llm/index.js";
import type { AssistantContent, ContentBlock, Message, ToolResultPart, UserContent } from "../messages/index.js";
import type { CacheBlock } from "./cache-model.js";
import { isGeminiEmulatorSignature } from "./gemini-signatures.js";
import { blockUnit, systemUnit, toolUnit } from "./message-tokens.js";
import { withToolPrompt } from "./anthropic-tool-prompt.js";
import { parseAnthropicOutput } from "./output-wire.js";
import type { EmulatorRequest } from "./types.js";
import {
  invalid,
  isObj,
  type Obj,
  optionalArray,
  optionalPositiveInt,
  optionalString,
  requireArray,
  requireObj,
  requireString,
  schemaObject,
  stopList,
} from "./wire-json.js";

export interface ParsedAnthropicRequest {
  readonly request: EmulatorRequest;
  readonly blocks: readonly CacheBlock[];
}

const MAX_BREAKPOINTS = 4;

export function parseAnthropicRequest(raw: unknown): ParsedAnthropicRequest {
  const body = requireObj(raw, "body");
  const model = requireString(body.model, "model");
  if (body.max_tokens === undefined) throw invalid("max_tokens: Field required");
  const maxTokens = optionalPositiveInt(body.max_tokens, "max_tokens");
  const wireMessages = requireArray(body.messages, "messages");
  if (wireMessages.length === 0) throw invalid("messages: at least one message is required");

  const blocks: CacheBlock[] = [];
  const tools = optionalArray(body.tools, "tools").map((t, i): ToolSchema => {
    const tool = requireObj(t, `tools.${i}`);
    const name = requireString(tool.name, `tools.${i}.name`);
    const description = optionalString(tool.description, `tools.${i}.description`);
    const parsed: ToolSchema = {
      name,
      inputSchema: schemaObject(tool.input_schema, `tools.${i}.input_schema`),
      ...(description === undefined ? {} : { description }),
    };
    const unit = i === 0 ? withToolPrompt(toolUnit(parsed), model, toolChoiceType(body.tool_choice)) : toolUnit(parsed);
    blocks.push({ ...unit, breakpoint: tool.cache_control != null });
    return parsed;
  });

  const systemTexts = parseSystem(body.system, blocks);
  const messages = parseMessages(wireMessages, blocks);
  if (body.cache_control != null) markLastCacheable(blocks, messages);

  const breakpoints = blocks.filter((b) => b.breakpoint).length;
  if (breakpoints > MAX_BREAKPOINTS)
    throw invalid(`A maximum of ${MAX_BREAKPOINTS} blocks with cache_control may be provided. Found ${breakpoints}.`);

  const metadata = isObj(body.metadata) ? body.metadata : {};
  const output = parseAnthropicOutput(body);
  const request: EmulatorRequest = {
    api: "anthropic",
    model,
    system: systemTexts.join("\n\n"),
    tools,
    messages,
    maxTokens,
    stop: stopList(body.stop_sequences, "stop_sequences"),
    sessionKey: typeof metadata.user_id === "string" && metadata.user_id !== "" ? metadata.user_id : "default",
    stream: body.stream === true,
    ...(output === undefined ? {} : { output }),
  };
  return { request, blocks };
}

/** The wire `tool_choice.type` (auto, any, tool, none), when one is given. */
function toolChoiceType(choice: unknown): string | undefined {
  return isObj(choice) && typeof choice.type === "string" ? choice.type : undefined;
}

function parseSystem(system: unknown, blocks: CacheBlock[]): string[] {
  if (system === undefined || system === null) return [];
  if (typeof system === "string") {
    if (system !== "") blocks.push({ ...systemUnit(system), breakpoint: false });
    return system === "" ? [] : [system];
  }
  return requireArray(system, "system").map((b, i) => {
    const block = requireObj(b, `system.${i}`);
    if (block.type !== "text") throw invalid(`system.${i}.type: Input should be 'text'`);
    const text = requireString(block.text, `system.${i}.text`);
    blocks.push({ ...systemUnit(text), breakpoint: block.cache_control != null });
    return text;
  });
}

function parseMessages(wire: readonly unknown[], blocks: CacheBlock[]): Message[] {
  const out: Message[] = [];
  let openToolUses = new Set<string>();
  wire.forEach((m, mi) => {
    const message = requireObj(m, `messages.${mi}`);
    const role = message.role;
    if (role !== "user" && role !== "assistant")
      throw invalid(`messages.${mi}.role: Input should be 'user' or 'assistant'`);
    const content =
      typeof message.content === "string"
        ? [{ type: "text", text: message.content }]
        : requireArray(message.content, `messages.${mi}.content`);
    const answered = new Set<string>();
    const userParts: UserContent[] = [];
    const assistantParts: AssistantContent[] = [];
    const flushUser = (): void => {
      if (userParts.length > 0) out.push({ role: "user", content: userParts.splice(0) });
    };
    content.forEach((b, bi) => {
      const path = `messages.${mi}.content.${bi}`;
      const block = requireObj(b, path);
      const keelson = parseBlock(block, role, path);
      if (keelson.type === "tool-result") {
        if (!openToolUses.has(keelson.callId)) {
          throw invalid(
            `${path}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${keelson.callId}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
          );
        }
        answered.add(keelson.callId);
        flushUser();
        out.push({ role: "tool", content: [keelson] });
      } else if (role === "user") userParts.push(keelson as UserContent);
      else assistantParts.push(keelson as AssistantContent);
      if (block.cache_control != null && keelson.type === "reasoning")
        throw invalid(`${path}.${block.type}.cache_control: Extra inputs are not permitted`);
      // cache_control on a part inside a tool_result marks the tool_result block.
      const nested = Array.isArray(block.content) && block.content.some((p) => isObj(p) && p.cache_control != null);
      blocks.push({ ...blockUnit(role, bi, keelson), breakpoint: block.cache_control != null || nested });
    });
    const unanswered = [...openToolUses].filter((id) => !answered.has(id));
    if (unanswered.length > 0) {
      throw invalid(
        `messages.${mi - 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${unanswered.join(", ")}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
      );
    }
    flushUser();
    if (role === "assistant") out.push({ role: "assistant", content: assistantParts });
    openToolUses = new Set(assistantParts.flatMap((p) => (p.type === "tool-call" ? [p.callId] : [])));
  });
  return out;
}

function parseBlock(block: Obj, role: "user" | "assistant", path: string): ContentBlock {
  const type = block.type;
  const only = (allowed: "user" | "assistant"): void => {
    if (role !== allowed)
      throw invalid(`${path}: \`${String(type)}\` blocks are only allowed in \`${allowed}\` messages`);
  };
  switch (type) {
    case "text":
      return { type: "text", text: requireString(block.text, `${path}.text`) };
    case "image":
      return parseImage(block, path);
    case "tool_use":
      only("assistant");
      return {
        type: "tool-call",
        callId: requireString(block.id, `${path}.id`),
        name: requireString(block.name, `${path}.name`),
        arguments: JSON.stringify(requireObj(block.input, `${path}.input`)),
      };
    case "tool_result":
      only("user");
      return {
        type: "tool-result",
        callId: requireString(block.tool_use_id, `${path}.tool_use_id`),
        content: parseResultContent(block.content, path),
        isError: block.is_error === true,
      };
    case "thinking": {
      only("assistant");
      const signature = requireString(block.signature, `${path}.signature`);
      // Another provider's signature (the Gemini emulator's) is not one Anthropic can verify.
      if (isGeminiEmulatorSignature(signature)) throw invalid(`${path}: Invalid \`signature\` in \`thinking\` block`);
      return { type: "reasoning", text: requireString(block.thinking, `${path}.thinking`), signature };
    }
    case "redacted_thinking": {
      only("assistant");
      const data = requireString(block.data, `${path}.data`);
      if (data === "") throw invalid(`${path}.data: String should have at least 1 character`);
      return { type: "reasoning", text: data, redacted: true };
    }
    default:
      throw invalid(
        `${path}: Input tag '${String(type)}' found using 'type' does not match any of the expected tags: 'text', 'image', 'tool_use', 'tool_result', 'thinking', 'redacted_thinking'`,
      );
  }
}

function parseImage(block: Obj, path: string): ContentBlock {
  const source = requireObj(block.source, `${path}.source`);
  if (source.type === "base64")
    return {
      type: "image",
      mediaType: requireString(source.media_type, `${path}.source.media_type`),
      data: requireString(source.data, `${path}.source.data`),
    };
  if (source.type === "url")
    return { type: "image", mediaType: "url", data: requireString(source.url, `${path}.source.url`) };
  throw invalid(`${path}.source.type: Input should be 'base64' or 'url'`);
}

function parseResultContent(content: unknown, path: string): ToolResultPart[] {
  if (content === undefined || content === null) return [];
  if (typeof content === "string") return [{ type: "text", text: content }];
  return requireArray(content, `${path}.content`).map((p, i) => {
    const part = requireObj(p, `${path}.content.${i}`);
    if (part.type === "text") return { type: "text", text: requireString(part.text, `${path}.content.${i}.text`) };
    if (part.type === "image") return parseImage(part, `${path}.content.${i}`) as ToolResultPart;
    throw invalid(`${path}.content.${i}.type: Input should be 'text' or 'image'`);
  });
}

/** Top-level automatic caching: a breakpoint on the last block that may carry one. */
function markLastCacheable(blocks: CacheBlock[], messages: readonly Message[]): void {
  const lastMessage = messages.at(-1);
  const lastIsReasoning = lastMessage?.role === "assistant" && lastMessage.content.at(-1)?.type === "reasoning";
  const at = blocks.length - (lastIsReasoning ? 2 : 1);
  if (at >= 0) blocks[at] = { ...blocks[at]!, breakpoint: true };
}
