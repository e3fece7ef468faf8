// The Gemini wire mapping (pure): the body is a function of the request alone — function
// responses named after their calls and carrying only ids Gemini gave, thought signatures back on
// the part they came with, other families' signed reasoning left out, Google's stand-in signature
// on current-turn calls another model made, structured output and explicit context caches.
import { describe, expect, it } from "vitest";
import { geminiRequestBody, MINTED_CALL_ID_PREFIX, SKIP_SIGNATURE } from "../../../src/llm/gemini/index.js";
import type { Message } from "../../../src/messages/index.js";
import { request } from "../support.js";

const user = (text: string): Message => ({ role: "user", content: [{ type: "text", text }] });
const result = (callId: string, text: string, isError = false): Message => ({
  role: "tool",
  content: [{ type: "tool-result", callId, content: [{ type: "text", text }], isError }],
});

describe("geminiRequestBody", () => {
  it("puts signatures back on their parts, names responses after their calls, sends only Gemini's own ids", () => {
    const minted = `${MINTED_CALL_ID_PREFIX}r1_0`;
    const signed = (thoughtSignature: string) => ({ providerData: { api: "gemini", thoughtSignature } });
    const messages: Message[] = [
      user("read both"),
      {
        role: "assistant",
        content: [
          { type: "reasoning", text: "summary", ...signed("T1") },
          { type: "text", text: "Reading.", ...signed("S-text") },
          { type: "tool-call", callId: minted, name: "read", arguments: '{"path":"a"}', ...signed("S-call") },
          { type: "tool-call", callId: "gemini-issued-7", name: "list", arguments: "not json" },
        ],
      },
      result(minted, "A"),
      result("gemini-issued-7", "boom", true),
    ];
    expect(geminiRequestBody(request({ model: "gemini:gemini-2.5-pro", messages })).contents).toEqual([
      { parts: [{ text: "read both" }], role: "user" },
      {
        parts: [
          { text: "summary", thought: true, thoughtSignature: "T1" },
          { text: "Reading.", thoughtSignature: "S-text" },
          { functionCall: { args: { path: "a" }, name: "read" }, thoughtSignature: "S-call" },
          { functionCall: { args: {}, id: "gemini-issued-7", name: "list" } },
        ],
        role: "model",
      },
      {
        parts: [
          { functionResponse: { name: "read", response: { output: "A" } } },
          { functionResponse: { id: "gemini-issued-7", name: "list", response: { error: "boom" } } },
        ],
        role: "user",
      },
    ]);
  });

  it("never sends another family's signed reasoning, nor unsigned thought summaries", () => {
    const messages: Message[] = [
      user("q"),
      {
        role: "assistant",
        content: [
          { type: "reasoning", text: "claude thinking", signature: "anthropic-sig" },
          { type: "reasoning", text: "opaque", redacted: true },
          { type: "reasoning", text: "an unsigned summary" },
          { type: "reasoning", text: "sealed", providerData: { api: "openai-responses", encrypted_content: "enc" } },
          { type: "text", text: "answer", providerData: { api: "openai-responses", id: "msg_1" } },
        ],
      },
      user("next"),
    ];
    const body = JSON.stringify(geminiRequestBody(request({ messages })));
    expect(body).not.toContain("anthropic-sig");
    expect(body).not.toContain("claude thinking");
    expect(body).not.toContain("opaque");
    expect(body).not.toContain("unsigned summary");
    expect(body).not.toContain("enc");
    expect(body).not.toContain("msg_1");
    expect(geminiRequestBody(request({ messages })).contents[1]).toEqual({
      parts: [{ text: "answer" }],
      role: "model",
    });
  });

  it("gives the current turn's unsigned function-call steps Google's stand-in signature, earlier turns none", () => {
    const call = (id: string): Message => ({
      role: "assistant",
      content: [{ type: "tool-call", callId: id, name: "read", arguments: "{}" }],
    });
    const messages = [
      user("old turn"),
      call("toolu_1"),
      result("toolu_1", "x"),
      user("new turn"),
      call("toolu_2"),
      result("toolu_2", "y"),
    ];
    const contents = geminiRequestBody(request({ messages })).contents;
    expect(contents[1]!.parts[0]!.thoughtSignature).toBeUndefined();
    expect(contents[4]!.parts[0]!.thoughtSignature).toBe(SKIP_SIGNATURE);
  });

  it("maps config: system instruction, tools as JSON Schema, sampling, structured output; an empty config is {}", () => {
    expect(geminiRequestBody(request({ messages: [user("hi")] }))).toEqual({
      contents: [{ parts: [{ text: "hi" }], role: "user" }],
      generationConfig: {},
    });
    const schema = {
      type: "object",
      properties: { a: { type: "string" } },
      required: ["a"],
      additionalProperties: false,
    };
    const body = geminiRequestBody(
      request({
        messages: [user("hi")],
        system: "sys",
        tools: [{ name: "t", inputSchema: { type: "object" } }],
        temperature: 0.2,
        maxTokens: 50,
        stop: ["END"],
        output: { name: "Out", schema },
      }),
    );
    expect(JSON.stringify(body)).toBe(
      JSON.stringify({
        contents: [{ parts: [{ text: "hi" }], role: "user" }],
        systemInstruction: { parts: [{ text: "sys" }] },
        tools: [{ functionDeclarations: [{ name: "t", parametersJsonSchema: { type: "object" } }] }],
        generationConfig: {
          temperature: 0.2,
          maxOutputTokens: 50,
          stopSequences: ["END"],
          responseMimeType: "application/json",
          responseJsonSchema: schema,
        },
      }),
    );
  });

  it("reads an explicit context cache: names it and leaves out what it holds (system, tools, its messages)", () => {
    const body = geminiRequestBody(
      request({
        system: "long frozen system",
        tools: [{ name: "t", inputSchema: { type: "object" } }],
        messages: [user("prefix doc"), user("question")],
        geminiCache: { name: "abc123", messages: 1 },
      }),
    );
    expect(body).toEqual({
      contents: [{ parts: [{ text: "question" }], role: "user" }],
      cachedContent: "cachedContents/abc123",
      generationConfig: {},
    });
  });
});
