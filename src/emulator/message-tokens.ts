// Token counts and content hashes of the units the cache models work on, computed from
// Keelson's message vocabulary so the HTTP wires and the in-process provider agree. Frozen
// messages and tools (everything the loop sends) are memoized by identity: a long session
// pays for each message once, not once per request.
import { contentHash, type JsonValue } from "../json/index.js";
import type { ToolSchema } from "../llm/index.js";
import type { ContentBlock, Message } from "../messages/index.js";
import type { CacheSegment } from "./cache-model.js";
import { countTokens } from "./tokenizer.js";

/** Flat cost of one image (the emulator does not decode images). */
export const IMAGE_TOKENS = 1000;
/** Role and separator tokens per message in the chat formats. */
export const MESSAGE_OVERHEAD_TOKENS = 4;

const segmentMemo = new WeakMap<object, CacheSegment>();
const blockMemo = new WeakMap<object, number>();
const unitMemo = new WeakMap<object, Map<string, { tokens: number; hash: string }>>();

/** Tokens of one content block's model-visible text. */
export function contentBlockTokens(block: ContentBlock): number {
  const known = blockMemo.get(block);
  if (known !== undefined) return known;
  const tokens = uncachedBlockTokens(block);
  if (Object.isFrozen(block)) blockMemo.set(block, tokens);
  return tokens;
}

function uncachedBlockTokens(block: ContentBlock): number {
  switch (block.type) {
    case "text":
      return countTokens(block.text);
    case "reasoning":
      return block.redacted === true ? Math.ceil(block.text.length / 4) : countTokens(block.text);
    case "image":
      return IMAGE_TOKENS;
    case "tool-call":
      return countTokens(block.name) + countTokens(block.arguments);
    case "tool-result":
      return block.content.reduce((sum, part) => sum + contentBlockTokens(part), 0);
  }
}

/** Tokens of one tool definition as the model sees it (name, description, schema). */
export function toolTokens(tool: ToolSchema): number {
  return countTokens(tool.name) + countTokens(tool.description ?? "") + countTokens(JSON.stringify(tool.inputSchema));
}

/** Anthropic unit: one content block; its hash covers the role and position that frame it. */
export function blockUnit(role: string, indexInMessage: number, block: ContentBlock): { tokens: number; hash: string } {
  const first = indexInMessage === 0;
  const variant = `${role}:${first}`;
  const known = unitMemo.get(block)?.get(variant);
  if (known !== undefined) return known;
  const unit = { tokens: contentBlockTokens(block), hash: contentHash({ role, first, block } as unknown as JsonValue) };
  if (Object.isFrozen(block)) unitMemo.set(block, (unitMemo.get(block) ?? new Map()).set(variant, unit));
  return unit;
}

/** Anthropic unit: one tool definition. */
export function toolUnit(tool: ToolSchema): { tokens: number; hash: string } {
  return { tokens: toolTokens(tool), hash: contentHash({ tool } as unknown as JsonValue) };
}

/** Anthropic unit: one system text block. */
export function systemUnit(text: string): { tokens: number; hash: string } {
  return { tokens: countTokens(text), hash: contentHash({ system: text }) };
}

/** Automatic-caching unit: one whole message (reasoning excluded, as it is never sent back). */
export function messageSegment(message: Message): CacheSegment {
  const known = segmentMemo.get(message);
  if (known !== undefined) return known;
  const content =
    message.role === "assistant" ? message.content.filter((b) => b.type !== "reasoning") : message.content;
  const segment = {
    tokens: MESSAGE_OVERHEAD_TOKENS + content.reduce((sum, block) => sum + contentBlockTokens(block), 0),
    hash: contentHash({ role: message.role, content } as unknown as JsonValue),
  };
  if (Object.isFrozen(message)) segmentMemo.set(message, segment);
  return segment;
}

/** Automatic-caching unit: a system (or developer) message. */
export function systemSegment(text: string): CacheSegment {
  return { tokens: MESSAGE_OVERHEAD_TOKENS + countTokens(text), hash: contentHash({ role: "system", text }) };
}

/** Automatic-caching unit: the tool list (rendered ahead of the messages). */
export function toolsSegment(tools: readonly ToolSchema[]): CacheSegment {
  return {
    tokens: tools.reduce((sum, tool) => sum + toolTokens(tool), 0),
    hash: contentHash({ tools } as unknown as JsonValue),
  };
}
