// Anthropic's tool-use system prompt: when a request has tools, the API adds a system prompt of
// its own that enables tool use and bills it as input. Its size is documented per model and
// tool_choice ("Tool use system prompt token count", docs.anthropic.com tool-use pricing and
// tokens): for a small request with one tool it is most of the prompt (recorded: 398 input
// tokens real, 27 emulated without it). The emulator adds it to the first tool's cache unit, so
// it sits in the cacheable tools+system prefix, is read and written with it, and leaves the
// block list (and its breakpoints) as Keelson lays it out.
import { contentHash, type JsonValue } from "../json/index.js";

/** Tokens for `tool_choice` auto / none, and for any / tool. */
interface ToolPromptTokens {
  readonly auto: number;
  readonly any: number;
}

/**
 * Per model family, first match wins (model ids as the API names them, with or without a date
 * or a `provider:` prefix). Claude 3 rows from the docs' table (Opus 530/281, Sonnet 159/235,
 * Haiku 264/340); Haiku 3.5 264/340; every later model (Sonnet 3.5 and 3.7, the 4.x family,
 * and names the table does not know — the emulator's own) 346/313.
 */
const TABLE: readonly (readonly [RegExp, ToolPromptTokens])[] = [
  [/claude-3-opus/, { auto: 530, any: 281 }],
  [/claude-3-sonnet/, { auto: 159, any: 235 }],
  [/claude-3-haiku/, { auto: 264, any: 340 }],
  [/claude-3-5-haiku|claude-haiku-3-5/, { auto: 264, any: 340 }],
];
const LATER_MODELS: ToolPromptTokens = { auto: 346, any: 313 };

/** The tool-use system prompt's tokens for `model` and a wire `tool_choice` type (default auto). */
export function anthropicToolPromptTokens(model: string, toolChoice: string | undefined = "auto"): number {
  const row = TABLE.find(([pattern]) => pattern.test(model))?.[1] ?? LATER_MODELS;
  return toolChoice === "any" || toolChoice === "tool" ? row.any : row.auto;
}

/** The first tool's unit with the tool-use system prompt folded in (tokens added, hash covering both). */
export function withToolPrompt(
  unit: { readonly tokens: number; readonly hash: string },
  model: string,
  toolChoice: string | undefined,
): { tokens: number; hash: string } {
  const prompt = anthropicToolPromptTokens(model, toolChoice);
  return {
    tokens: unit.tokens + prompt,
    hash: contentHash({ tool: unit.hash, toolUsePrompt: prompt } as unknown as JsonValue),
  };
}
