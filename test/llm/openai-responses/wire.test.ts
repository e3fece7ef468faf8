// The Responses wire mapping as a pure function: messages → input items, the pairing rules for
// reasoning and item ids, another API's opaque reasoning left out, structured output as
// `text.format`, the stateless defaults and their options, and refusals.
import type OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { ProviderError, RESPONSES_API, responsesRequestBody, responsesWireOptions } from "../../../src/llm/index.js";
import { isReasoningModel } from "../../../src/llm/openai-responses/index.js";
import type { AssistantContent, Message } from "../../../src/messages/index.js";
import { thrown } from "../../support/thrown.js";
import { request } from "../support.js";

const user = (text: string): Message => ({ role: "user", content: [{ type: "text", text }] });
const assistant = (...content: AssistantContent[]): Message => ({ role: "assistant", content });
const result = (callId: string, text: string): Message => ({
  role: "tool",
  content: [{ type: "tool-result", callId, content: [{ type: "text", text }], isError: false }],
});
const rsItem = (n: number) => ({
  id: `rs_${n}`,
  type: "reasoning",
  summary: [{ type: "summary_text", text: `thought ${n}` }],
  encrypted_content: `enc-${n}`,
});
const reasoning = (n: number): AssistantContent => ({
  type: "reasoning",
  text: `thought ${n}`,
  providerData: { api: RESPONSES_API, item: rsItem(n) },
});
const call = (callId: string, own?: { id: string; callId: string }): AssistantContent => ({
  type: "tool-call",
  callId,
  name: "read",
  arguments: '{"path":"a"}',
  ...(own === undefined ? {} : { providerData: { api: RESPONSES_API, ...own } }),
});

const body = (messages: Message[], over: Record<string, unknown> = {}, options = responsesWireOptions()) => {
  const params = responsesRequestBody(request({ model: "openai-responses:gpt-5.4", messages, ...over }), options);
  return { ...params, input: params.input as OpenAI.Responses.ResponseInputItem[] };
};

describe("responsesRequestBody", () => {
  it("a plain request: model without its selector prefix, instructions, the input, stateless defaults, stream last", () => {
    const b = body([user("hi")], { system: "Be brief.", maxTokens: 100, temperature: 0.5 });
    expect(JSON.stringify(b)).toBe(
      JSON.stringify({
        model: "gpt-5.4",
        instructions: "Be brief.",
        input: [{ role: "user", content: "hi" }],
        max_output_tokens: 100,
        temperature: 0.5,
        include: ["reasoning.encrypted_content"],
        store: false,
        prompt_cache_key: "s-test",
        stream: true,
      }),
    );
  });

  it("sends reasoning items only for reasoning models (auto), or as configured", () => {
    expect(isReasoningModel("openai-responses:gpt-5.4")).toBe(true);
    expect(isReasoningModel("o4-mini")).toBe(true);
    expect(isReasoningModel("gpt-5-chat-latest")).toBe(false);
    expect(isReasoningModel("gpt-4.1")).toBe(false);
    expect(body([user("hi")], { model: "gpt-4.1" })).not.toHaveProperty("include");
    expect(body([user("hi")], {}, responsesWireOptions({ encryptedReasoning: false }))).not.toHaveProperty("include");
  });

  it("options: prompt_cache_retention, no prompt_cache_key, store", () => {
    const b = body(
      [user("hi")],
      {},
      responsesWireOptions({ promptCacheRetention: "24h", promptCacheKey: false, store: true }),
    );
    expect(b).toMatchObject({ store: true, prompt_cache_retention: "24h" });
    expect(b).not.toHaveProperty("prompt_cache_key");
  });

  it("an own reasoning item goes back verbatim, followed by its items with their item ids and the model's call ids", () => {
    const b = body([
      user("read a"),
      assistant(reasoning(1), call("call_1_1_0", { id: "fc_1", callId: "call_model_1" })),
      result("call_1_1_0", "A"),
    ]);
    expect(b.input).toEqual([
      { role: "user", content: "read a" },
      rsItem(1),
      { type: "function_call", call_id: "call_model_1", name: "read", arguments: '{"path":"a"}', id: "fc_1" },
      { type: "function_call_output", call_id: "call_model_1", output: "A" },
    ]);
  });

  it("a message after reasoning is a full output message with its id and phase; without reasoning, an easy message keeping its phase", () => {
    const text: AssistantContent = {
      type: "text",
      text: "done",
      providerData: { api: RESPONSES_API, id: "msg_1", phase: "final_answer" },
    };
    expect(body([user("q"), assistant(reasoning(1), text)]).input.slice(1)).toEqual([
      rsItem(1),
      {
        type: "message",
        role: "assistant",
        id: "msg_1",
        status: "completed",
        content: [{ type: "output_text", text: "done", annotations: [] }],
        phase: "final_answer",
      },
    ]);
    expect(body([user("q"), assistant(text)]).input.slice(1)).toEqual([
      { role: "assistant", content: "done", phase: "final_answer" },
    ]);
  });

  it("reasoning with nothing after it, or without encrypted content, is left out — and its items lose their ids", () => {
    const noContent: AssistantContent = {
      type: "reasoning",
      text: "t",
      providerData: {
        api: RESPONSES_API,
        item: { id: "rs_9", type: "reasoning", summary: [], encrypted_content: null },
      },
    };
    expect(body([user("q"), assistant(reasoning(1))]).input).toEqual([{ role: "user", content: "q" }]);
    expect(
      body([user("q"), assistant(noContent, call("c1", { id: "fc_9", callId: "call_9" })), result("c1", "A")]).input,
    ).toEqual([
      { role: "user", content: "q" },
      { type: "function_call", call_id: "call_9", name: "read", arguments: '{"path":"a"}' },
      { type: "function_call_output", call_id: "call_9", output: "A" },
    ]);
  });

  it("another API's opaque reasoning (Anthropic signed or redacted thinking, a foreign item) and plain reasoning never reach the wire", () => {
    const b = body([
      user("q"),
      assistant(
        { type: "reasoning", text: "signed", signature: "sig" },
        { type: "reasoning", text: "opaque", redacted: true },
        { type: "reasoning", text: "other", providerData: { api: "gemini", thoughtSignature: "x" } },
        { type: "reasoning", text: "plain" },
        { type: "text", text: "answer" },
      ),
    ]);
    expect(b.input).toEqual([
      { role: "user", content: "q" },
      { role: "assistant", content: "answer" },
    ]);
  });

  it("parallel calls from another provider keep the loop's call ids, without item ids", () => {
    const b = body([
      user("q"),
      assistant(call("call_1_1_0"), call("call_1_1_1")),
      result("call_1_1_0", "A"),
      result("call_1_1_1", "B"),
    ]);
    expect(b.input.slice(1)).toEqual([
      { type: "function_call", call_id: "call_1_1_0", name: "read", arguments: '{"path":"a"}' },
      { type: "function_call", call_id: "call_1_1_1", name: "read", arguments: '{"path":"a"}' },
      { type: "function_call_output", call_id: "call_1_1_0", output: "A" },
      { type: "function_call_output", call_id: "call_1_1_1", output: "B" },
    ]);
  });

  it("images: user parts and tool outputs as input_image data URLs", () => {
    const image = { type: "image" as const, mediaType: "image/png", data: "AAAA" };
    const b = body([
      { role: "user", content: [{ type: "text", text: "see" }, image] },
      assistant(call("c1")),
      {
        role: "tool",
        content: [
          { type: "tool-result", callId: "c1", content: [{ type: "text", text: "shot" }, image], isError: false },
        ],
      },
    ]);
    const png = { type: "input_image", detail: "auto", image_url: "data:image/png;base64,AAAA" };
    expect(b.input[0]).toEqual({ role: "user", content: [{ type: "input_text", text: "see" }, png] });
    expect(b.input[2]).toEqual({
      type: "function_call_output",
      call_id: "c1",
      output: [{ type: "input_text", text: "shot" }, png],
    });
  });

  it("tools are function tools, strict off; structured output is text.format json_schema, strict when the schema allows", () => {
    const strict = {
      type: "object",
      properties: { a: { type: "string" } },
      required: ["a"],
      additionalProperties: false,
    };
    const b = body([user("q")], {
      tools: [{ name: "read", description: "Reads.", inputSchema: { type: "object" } }],
      output: { name: "Answer", schema: strict },
    });
    expect(b.tools).toEqual([
      { type: "function", name: "read", description: "Reads.", parameters: { type: "object" }, strict: false },
    ]);
    expect(b.text).toEqual({ format: { type: "json_schema", name: "Answer", schema: strict, strict: true } });
    const loose = body([user("q")], {
      output: { name: "A", schema: { type: "object", properties: { a: { type: "string" } } } },
    });
    expect(loose.text?.format).toMatchObject({ strict: false });
    expect(body([user("q")])).not.toHaveProperty("text");
  });

  it("the call config's `reasoning` goes on the wire as given", () => {
    expect(body([user("q")], { reasoning: { effort: "low", summary: "auto" } }).reasoning).toEqual({
      effort: "low",
      summary: "auto",
    });
  });

  it("refuses stop sequences with a typed invalid-request naming them", () => {
    const error = thrown(() => body([user("q")], { stop: ["END"] }), ProviderError);
    expect(error).toMatchObject({ code: "invalid-request" });
    expect(error.message).toContain('["END"]');
  });
});
