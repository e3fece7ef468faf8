// Issue #20, section 5: with tools, the emulator's Anthropic input tokens were far below the
// real API's for small requests (one tool: real 398, emulated 27) — Anthropic adds a tool-use
// system prompt of a documented size per model and tool_choice. The emulator now counts it
// (src/emulator/anthropic-tool-prompt.ts), over HTTP and in process alike.
import { describe, expect, test } from "vitest";
import { anthropicBlocks, anthropicToolPromptTokens } from "../../src/emulator/index.js";
import type { ToolSchema } from "../../src/llm/index.js";
import { anthropicClient, emulator } from "./support.js";

const weather = {
  name: "get_weather",
  description: "Get the current weather in a given location",
  input_schema: {
    type: "object" as const,
    properties: { location: { type: "string", description: "The city and state, e.g. San Francisco, CA" } },
    required: ["location"],
  },
};

async function inputTokens(body: Record<string, unknown>): Promise<number> {
  const server = await emulator({ model: () => ({ text: "ok" }) }); // closed after the test
  const message = await anthropicClient(server).messages.create({ max_tokens: 100, ...body } as never);
  return (message as unknown as { usage: { input_tokens: number } }).usage.input_tokens;
}

describe("Anthropic's tool-use system prompt", () => {
  test("is counted per model and tool_choice, from the documented table", () => {
    expect(anthropicToolPromptTokens("claude-sonnet-4-5")).toBe(346);
    expect(anthropicToolPromptTokens("anthropic:claude-opus-4-1-20250805", "none")).toBe(346);
    expect(anthropicToolPromptTokens("claude-3-7-sonnet-20250219", "any")).toBe(313);
    expect(anthropicToolPromptTokens("claude-sonnet-4-5", "tool")).toBe(313);
    expect(anthropicToolPromptTokens("claude-3-5-haiku-20241022")).toBe(264);
    expect(anthropicToolPromptTokens("claude-3-5-haiku-20241022", "any")).toBe(340);
    expect(anthropicToolPromptTokens("claude-3-opus-20240229")).toBe(530);
    expect(anthropicToolPromptTokens("claude-3-sonnet-20240229", "tool")).toBe(235);
  });

  test("a small one-tool request is within 15% of the real count (398 recorded; 27 emulated before)", async () => {
    const body = {
      model: "claude-sonnet-4-20250514",
      messages: [{ role: "user", content: "What is the weather like in San Francisco?" }],
    };
    const withTool = await inputTokens({ ...body, tools: [weather] });
    const without = await inputTokens(body);
    expect(withTool - without).toBeGreaterThan(346); // the tool's own tokens plus the prompt
    expect(withTool / 398).toBeGreaterThan(0.85);
    expect(withTool / 398).toBeLessThan(1.15);
    // tool_choice any / tool take the other column; no tools, no prompt.
    expect(await inputTokens({ ...body, tools: [weather], tool_choice: { type: "any" } })).toBe(withTool - 346 + 313);
  });

  test("the in-process block list counts it in the first tool's unit, once, leaving the block layout alone", () => {
    const tools: ToolSchema[] = [
      { name: "a", inputSchema: { type: "object" } },
      { name: "b", inputSchema: { type: "object" } },
    ];
    const request = {
      tools,
      system: "s",
      messages: [{ role: "user" as const, content: [{ type: "text" as const, text: "hi" }] }],
    };
    const plain = anthropicBlocks(request);
    const counted = anthropicBlocks({ ...request, model: "claude-sonnet-4-5" });
    expect(counted.map((b) => b.breakpoint)).toEqual(plain.map((b) => b.breakpoint));
    expect(counted.map((b) => b.tokens)).toEqual(plain.map((b, i) => b.tokens + (i === 0 ? 346 : 0)));
  });
});
