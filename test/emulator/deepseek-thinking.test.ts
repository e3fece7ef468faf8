// DeepSeek style, thinking mode (issue #12, P1): a request in thinking mode whose tool-call-span
// assistant messages lack `reasoning_content` is a 400 in DeepSeek's error shape, as the real API
// answers it; an empty string is accepted; turns without tool calls need none. Thinking mode: the
// body's `thinking.type`, else on for deepseek-reasoner / deepseek-v4* and off for other models.
import OpenAI from "openai";
import { describe, expect, test } from "vitest";
import { emulator, openaiClient, post, rejection } from "./support.js";

const toolCall = { id: "c1", type: "function", function: { name: "read", arguments: '{"path":"a"}' } };
const tools = [{ type: "function", function: { name: "read", parameters: { type: "object" } } }];

/** A tool-call span (system first, so the assistant message is wire index 2), then a new user turn. */
function body(model: string, assistant: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return {
    model,
    tools,
    messages: [
      { role: "system", content: "be brief" },
      { role: "user", content: "read a" },
      { role: "assistant", content: null, tool_calls: [toolCall], ...assistant },
      { role: "tool", tool_call_id: "c1", content: "contents" },
    ],
    ...extra,
  };
}

describe("DeepSeek thinking mode requires reasoning_content back in tool-call spans", () => {
  test("a missing reasoning_content is a 400 in DeepSeek's error shape, naming the message index", async () => {
    const server = await emulator({ style: "deepseek", model: () => ({ text: "ok" }) });
    const response = await post(`${server.openaiBaseURL}/chat/completions`, body("deepseek-reasoner", {}));
    expect(response.status).toBe(400);
    expect(JSON.parse(response.text)).toEqual({
      error: {
        message:
          "Missing `reasoning_content` field in the assistant message at message index 2. For more information, please refer to https://api-docs.deepseek.com/guides/thinking_mode#tool-calls",
        type: "invalid_request_error",
        param: null,
        code: "invalid_request_error",
      },
    });
    expect(server.requests[0]!.status).toBe(400);
  });

  test("through the openai SDK it is a BadRequestError", async () => {
    const server = await emulator({ style: "deepseek", model: () => ({ text: "ok" }) });
    const error = await rejection(() =>
      openaiClient(server).chat.completions.create(body("deepseek-reasoner", {}) as never),
    );
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
  });

  test.each([
    ["an empty reasoning_content", "deepseek-reasoner", { reasoning_content: "" }, {}],
    ["the reasoning itself", "deepseek-reasoner", { reasoning_content: "I need the file." }, {}],
    ["thinking disabled on a reasoner", "deepseek-reasoner", {}, { thinking: { type: "disabled" } }],
    ["a non-thinking model (deepseek-chat)", "deepseek-chat", {}, {}],
  ])("accepted: %s", async (_name, model, assistant, extra) => {
    const server = await emulator({ style: "deepseek", model: () => ({ text: "ok" }) });
    expect((await post(`${server.openaiBaseURL}/chat/completions`, body(model, assistant, extra))).status).toBe(200);
  });

  test.each([
    ["thinking enabled on deepseek-chat", "deepseek-chat", { thinking: { type: "enabled" } }],
    ["a deepseek-v4 model (thinks by default)", "deepseek-v4-flash", {}],
  ])("rejected: %s", async (_name, model, extra) => {
    const server = await emulator({ style: "deepseek", model: () => ({ text: "ok" }) });
    expect((await post(`${server.openaiBaseURL}/chat/completions`, body(model, {}, extra))).status).toBe(400);
  });

  test("every assistant message of the span counts, including its final answer; other turns need nothing", async () => {
    const server = await emulator({ style: "deepseek", model: () => ({ text: "ok" }) });
    const messages = [
      { role: "user", content: "hi" },
      { role: "assistant", content: "hello" }, // a turn without tool calls: no field needed
      { role: "user", content: "read a" },
      { role: "assistant", content: null, reasoning_content: "", tool_calls: [toolCall] },
      { role: "tool", tool_call_id: "c1", content: "contents" },
      { role: "assistant", content: "It says contents." }, // same span: needs one
      { role: "user", content: "thanks" },
    ];
    const response = await post(`${server.openaiBaseURL}/chat/completions`, {
      model: "deepseek-reasoner",
      tools,
      messages,
    });
    expect(response.status).toBe(400);
    expect(response.text).toContain("at message index 5");
  });

  test("an OpenAI-style server does not check (the rule is DeepSeek's)", async () => {
    const server = await emulator({ style: "openai", model: () => ({ text: "ok" }) });
    expect((await post(`${server.openaiBaseURL}/chat/completions`, body("gpt-5.1", {}))).status).toBe(200);
  });
});
