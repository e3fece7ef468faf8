// DeepSeek prompt accounting (issue #12, P6): tool definitions count as DeepSeek's template
// renders them and replayed reasoning_content counts where DeepSeek keeps it, so emulated
// prompt_tokens (and cache hits) stay within ~15% of the real API. Calibrated against a recorded
// api.deepseek.com exchange (see src/emulator/deepseek-tokens.ts).
import { describe, expect, test } from "vitest";
import {
  countTokens,
  DEEPSEEK_TOOL_OVERHEAD_TOKENS,
  EmulatorProvider,
  MESSAGE_OVERHEAD_TOKENS,
  ScriptedEmulatorModel,
} from "../../src/emulator/index.js";
import { OpenAICompatibleProvider, type ProviderRequest } from "../../src/llm/index.js";
import type { Message } from "../../src/messages/index.js";
import { emulator, openaiClient } from "./support.js";

type DeepSeekUsage = { prompt_tokens: number; prompt_cache_hit_tokens: number; prompt_cache_miss_tokens: number };

const weather = {
  type: "function" as const,
  function: {
    name: "get_weather",
    description: "获取指定城市的天气信息",
    parameters: {
      type: "object",
      properties: { city: { type: "string", description: "城市名称" } },
      required: ["city"],
    },
  },
};
const toolCall = {
  id: "c1",
  type: "function" as const,
  function: { name: "get_weather", arguments: '{"city":"北京"}' },
};

async function promptTokens(body: Record<string, unknown>): Promise<number> {
  const server = await emulator({ style: "deepseek", model: () => ({ text: "ok" }) });
  const completion = await openaiClient(server).chat.completions.create(body as never);
  return (completion as unknown as { usage: DeepSeekUsage }).usage.prompt_tokens;
}

describe("DeepSeek prompt_tokens with tools", () => {
  test("matches a recorded api.deepseek.com exchange (one tool, one user message: 309) within 15%", async () => {
    // Recorded: deepseek-chat, this exact request, usage.prompt_tokens 309 (prompt_cache_miss_tokens 309).
    const emulated = await promptTokens({
      model: "deepseek-chat",
      messages: [{ role: "user", content: "北京现在的天气怎么样?" }],
      tools: [weather],
      tool_choice: "auto",
    });
    expect(emulated / 309).toBeGreaterThan(0.85);
    expect(emulated / 309).toBeLessThan(1.15);
  });

  test("each further tool adds the template's wrapper plus the JSON of its name, description and parameters", async () => {
    const other = { type: "function" as const, function: { name: "get_time", parameters: { type: "object" } } };
    const messages = [{ role: "user", content: "hi" }];
    const one = await promptTokens({ model: "deepseek-chat", messages, tools: [weather] });
    const two = await promptTokens({ model: "deepseek-chat", messages, tools: [weather, other] });
    expect(two - one).toBe(
      DEEPSEEK_TOOL_OVERHEAD_TOKENS + countTokens(JSON.stringify({ name: "get_time", parameters: { type: "object" } })),
    );
  });

  test("reasoning_content sent back in a tool-call span is counted; outside one it is not", async () => {
    const reasoning = "The user wants the weather in Beijing, so I should call get_weather with city Beijing.";
    const span = (reasoning_content: string) => ({
      model: "deepseek-reasoner",
      tools: [weather],
      messages: [
        { role: "user", content: "北京现在的天气怎么样?" },
        { role: "assistant", content: null, reasoning_content, tool_calls: [toolCall] },
        { role: "tool", tool_call_id: "c1", content: "晴" },
      ],
    });
    expect((await promptTokens(span(reasoning))) - (await promptTokens(span("")))).toBe(countTokens(reasoning));

    const noTools = (reasoning_content: string) => ({
      model: "deepseek-reasoner",
      messages: [
        { role: "user", content: "hi" },
        { role: "assistant", content: "hello", reasoning_content },
        { role: "user", content: "bye" },
      ],
    });
    expect(await promptTokens(noTools(reasoning))).toBe(await promptTokens(noTools("")));
  });

  test("the next step of a tool turn hits the previous input plus the output, reasoning included", async () => {
    const server = await emulator({
      style: "deepseek",
      model: new ScriptedEmulatorModel([
        {
          reasoning: "I should call get_weather for Beijing right away.",
          toolCalls: [{ name: "get_weather", arguments: { city: "北京" } }],
        },
        { text: "晴。" },
      ]),
    });
    const client = openaiClient(server);
    const messages = [{ role: "user" as const, content: "北京现在的天气怎么样?" }];
    const first = await client.chat.completions.create({ model: "deepseek-reasoner", tools: [weather], messages });
    const answer = first.choices[0]!.message as unknown as {
      reasoning_content: string;
      tool_calls: { id: string; function: { name: string; arguments: string } }[];
    };
    const call = answer.tool_calls[0]!;
    const second = await client.chat.completions.create({
      model: "deepseek-reasoner",
      tools: [weather],
      messages: [
        ...messages,
        {
          role: "assistant",
          content: null,
          reasoning_content: answer.reasoning_content,
          tool_calls: [{ id: call.id, type: "function", function: call.function }],
        } as never,
        { role: "tool", tool_call_id: call.id, content: "晴" },
      ],
    });
    const unit =
      (first.usage as unknown as DeepSeekUsage).prompt_tokens +
      MESSAGE_OVERHEAD_TOKENS +
      countTokens(call.function.name) +
      countTokens(call.function.arguments) +
      countTokens(answer.reasoning_content);
    expect((second.usage as unknown as DeepSeekUsage).prompt_cache_hit_tokens).toBe(Math.floor(unit / 64) * 64);
  });

  test("the in-process provider counts a Keelson request as the HTTP DeepSeek style counts what the adapter sends", async () => {
    const history: Message[] = [
      { role: "user", content: [{ type: "text", text: "what is the weather in Beijing?" }] },
      {
        role: "assistant",
        content: [
          { type: "reasoning", text: "I should look it up." },
          { type: "tool-call", callId: "c1", name: "get_weather", arguments: '{"city":"Beijing"}' },
        ],
      },
      {
        role: "tool",
        content: [{ type: "tool-result", callId: "c1", content: [{ type: "text", text: "sunny" }], isError: false }],
      },
    ];
    const request: ProviderRequest = {
      model: "deepseek-reasoner",
      system: "Be brief.",
      tools: [{ name: "get_weather", description: "Weather of a city.", inputSchema: weather.function.parameters }],
      messages: history,
      signal: new AbortController().signal,
      sessionId: "s1",
    };
    const server = await emulator({ style: "deepseek", model: () => ({ text: "Sunny." }) });
    const adapter = new OpenAICompatibleProvider({ flavor: "deepseek", apiKey: "k", baseURL: server.openaiBaseURL });
    for await (const _ of adapter.stream(request)) {
      // drain
    }
    const inProcess = new EmulatorProvider({ cacheStyle: "deepseek", model: () => ({ text: "Sunny." }) });
    for await (const _ of inProcess.stream(request)) {
      // drain
    }
    const wire = server.requests[0]!.usage!;
    const local = inProcess.usages[0]!;
    expect(local.inputTokens + local.cacheReadTokens).toBe(wire.inputTokens + wire.cacheReadTokens);
    expect(wire.inputTokens).toBeGreaterThan(240); // the tool template is in both
  });
});
