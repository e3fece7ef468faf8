// DeepSeek prompt accounting: the automatic-caching segments of a DeepSeek-style request, so the
// emulated `prompt_tokens` (and with it cache hits and compaction pressure) track the real API.
// Two things the OpenAI-style count leaves out, and DeepSeek bills:
//  - tool definitions are rendered into the prompt by a template: a fixed tool-use preamble
//    once per request with tools, plus per tool a small wrapper around the JSON of its
//    `{name, description, parameters}`;
//  - the `reasoning_content` sent back on assistant messages of tool-call spans (thinking mode
//    keeps it in the context); reasoning elsewhere is ignored by DeepSeek and not counted.
// Calibration (an approximation, cl100k_base standing in for DeepSeek's tokenizer): a recorded
// api.deepseek.com exchange — model deepseek-chat, one `get_weather(city)` tool with a short
// description, one short user message, no system prompt — reported `prompt_tokens: 309`, where
// the OpenAI-style count gives 52 (tool 36, user message 16). The tool's JSON counts 45; the
// preamble (240) and wrapper (8) are fitted to that pair: 16 + 45 + 8 + 240 = 309. No recorded
// pair with several tools or replayed reasoning was available, so the split between preamble
// and per-tool wrapper is an assumption; test/emulator/deepseek-tokens.test.ts pins the pair.
import { contentHash, type JsonValue } from "../json/index.js";
import type { ToolSchema } from "../llm/index.js";
import type { Message } from "../messages/index.js";
import type { CacheSegment } from "./cache-model.js";
import { messageSegment } from "./message-tokens.js";
import { plannedAssistantMessage, type PlannedReply } from "./reply-plan.js";
import { countTokens } from "./tokenizer.js";

/** The tool-use preamble DeepSeek's template adds once to a request that offers tools. */
export const DEEPSEEK_TOOLS_TEMPLATE_TOKENS = 240;
/** The template's wrapper around each tool's JSON. */
export const DEEPSEEK_TOOL_OVERHEAD_TOKENS = 8;

/** The tool list as DeepSeek's template renders it (preamble included). */
export function deepseekToolsSegment(tools: readonly ToolSchema[]): CacheSegment {
  let tokens = DEEPSEEK_TOOLS_TEMPLATE_TOKENS;
  for (const tool of tools) {
    const rendered = {
      name: tool.name,
      ...(tool.description === undefined ? {} : { description: tool.description }),
      parameters: tool.inputSchema,
    };
    tokens += DEEPSEEK_TOOL_OVERHEAD_TOKENS + countTokens(JSON.stringify(rendered));
  }
  return { tokens, hash: contentHash({ deepseekTools: tools } as unknown as JsonValue) };
}

/** One message, plus the `reasoning_content` replayed with it (counted, and part of its identity). */
export function deepseekMessageSegment(message: Message, replayedReasoning: string | undefined): CacheSegment {
  const base = messageSegment(message);
  if (replayedReasoning === undefined || replayedReasoning === "") return base;
  return {
    tokens: base.tokens + countTokens(replayedReasoning),
    hash: contentHash({ message: base.hash, reasoning: replayedReasoning }),
  };
}

/** The reasoning a DeepSeek client sends back with a Keelson assistant message (its reasoning blocks). */
export function reasoningText(message: Message): string | undefined {
  if (message.role !== "assistant") return undefined;
  const parts = message.content.flatMap((b) => (b.type === "reasoning" ? [b.text] : []));
  return parts.length === 0 ? undefined : parts.join("\n");
}

/**
 * The unit DeepSeek stores after the model's output: the answer as the next request will send
 * it back — with its reasoning when it falls in a tool-call span (the answer calls a tool, or
 * the request's open span already did).
 */
export function deepseekOutputSegment(plan: PlannedReply, requestMessages: readonly Message[]): CacheSegment {
  const replayed = plan.toolCalls.length > 0 || openSpanCalledTool(requestMessages);
  return deepseekMessageSegment(plannedAssistantMessage(plan), replayed ? plan.reasoning?.text : undefined);
}

/** Whether an assistant message after the last user message called a tool. */
function openSpanCalledTool(messages: readonly Message[]): boolean {
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const message = messages[i]!;
    if (message.role === "user") return false;
    if (message.role === "assistant" && message.content.some((b) => b.type === "tool-call")) return true;
  }
  return false;
}
