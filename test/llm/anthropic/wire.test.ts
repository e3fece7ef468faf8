// Anthropic wire mapping: messages, tool pairing, thinking replay, and the structural cache
// breakpoints (at most 4: tools+system, prefix end, previous request's tail, new tail).
import { describe, expect, test } from "vitest";
import { toAnthropicParams } from "../../../src/llm/index.js";
import type { ProviderRequest } from "../../../src/llm/index.js";
import type { Message } from "../../../src/messages/index.js";

const user = (text: string): Message => ({ role: "user", content: [{ type: "text", text }] });
const assistant = (text: string, ...calls: string[]): Message => ({
  role: "assistant",
  content: [
    ...(text ? [{ type: "text" as const, text }] : []),
    ...calls.map((id) => ({ type: "tool-call" as const, callId: id, name: "read", arguments: '{"path":"a"}' })),
  ],
});
const result = (id: string, text = "ok"): Message => ({
  role: "tool",
  content: [{ type: "tool-result", callId: id, content: [{ type: "text", text }], isError: false }],
});

function request(messages: Message[], over: Partial<ProviderRequest> = {}): ProviderRequest {
  return {
    model: "anthropic:claude-sonnet-4-5",
    system: "Be brief.",
    tools: [{ name: "read", description: "r", inputSchema: { type: "object" } }],
    messages,
    signal: new AbortController().signal,
    sessionId: "s1",
    ...over,
  };
}

/** Where cache_control landed: "system", "tool:<name>", or "m<turn>.b<block>". */
function breakpoints(params: ReturnType<typeof toAnthropicParams>): string[] {
  const out: string[] = [];
  for (const block of params.system ?? []) if ((block as { cache_control?: unknown }).cache_control) out.push("system");
  for (const tool of params.tools ?? [])
    if ((tool as { cache_control?: unknown }).cache_control) out.push(`tool:${(tool as { name: string }).name}`);
  params.messages.forEach((m, t) => {
    if (!Array.isArray(m.content)) return;
    m.content.forEach((b, i) => {
      if ((b as { cache_control?: unknown }).cache_control) out.push(`m${t}.b${i}`);
    });
  });
  return out;
}

describe("toAnthropicParams", () => {
  test("strips the provider prefix from the model and defaults max_tokens", () => {
    const params = toAnthropicParams(request([user("hi")]), { defaultMaxTokens: 1234 });
    expect(params.model).toBe("claude-sonnet-4-5");
    expect(params.max_tokens).toBe(1234);
    expect(params.metadata).toEqual({ user_id: "s1" });
  });

  test("consecutive tool results become one user turn of tool_result blocks right after the assistant turn", () => {
    const params = toAnthropicParams(
      request([user("go"), assistant("", "c1", "c2"), result("c1"), result("c2", "two"), user("more")]),
      { defaultMaxTokens: 100 },
    );
    expect(params.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "user"]);
    expect(params.messages[2]!.content).toMatchObject([
      { type: "tool_result", tool_use_id: "c1" },
      { type: "tool_result", tool_use_id: "c2", content: [{ type: "text", text: "two" }] },
    ]);
    expect(params.messages[1]!.content).toMatchObject([
      { type: "tool_use", id: "c1", name: "read", input: { path: "a" } },
      { type: "tool_use", id: "c2" },
    ]);
  });

  test("signed thinking is replayed, redacted thinking is replayed as data, unsigned reasoning is dropped", () => {
    const thinking: Message = {
      role: "assistant",
      content: [
        { type: "reasoning", text: "hmm", signature: "sig" },
        { type: "reasoning", text: "opaque", redacted: true },
        { type: "reasoning", text: "from another provider" },
        { type: "text", text: "answer" },
      ],
    };
    const params = toAnthropicParams(request([user("q"), thinking, user("next")]), { defaultMaxTokens: 100 });
    expect(params.messages[1]!.content).toEqual([
      { type: "thinking", thinking: "hmm", signature: "sig" },
      { type: "redacted_thinking", data: "opaque" },
      { type: "text", text: "answer" },
    ]);
  });

  test("tool-call arguments that are not a JSON object are sent as an empty input", () => {
    const bad: Message = {
      role: "assistant",
      content: [{ type: "tool-call", callId: "c1", name: "read", arguments: "{not json" }],
    };
    const params = toAnthropicParams(request([user("q"), bad, result("c1")]), { defaultMaxTokens: 100 });
    expect(params.messages[1]!.content).toEqual([{ type: "tool_use", id: "c1", name: "read", input: {} }]);
  });

  test("a first request gets breakpoints at the end of system and on the new tail", () => {
    expect(breakpoints(toAnthropicParams(request([user("hi")]), { defaultMaxTokens: 100 }))).toEqual([
      "system",
      "m0.b0",
    ]);
  });

  test("with a session prefix, a breakpoint marks the prefix's end", () => {
    const params = toAnthropicParams(request([user("<catalog>"), user("hi")], { prefixLength: 1 }), {
      defaultMaxTokens: 100,
    });
    expect(breakpoints(params)).toEqual(["system", "m0.b0", "m1.b0"]);
  });

  test("a tool step keeps a breakpoint on the previous request's last block and on the new tail: at most 4", () => {
    const messages = [
      user("<catalog>"),
      user("go"),
      assistant("reading", "c1", "c2", "c3"),
      result("c1"),
      result("c2"),
      result("c3"),
    ];
    const params = toAnthropicParams(request(messages, { prefixLength: 1 }), { defaultMaxTokens: 100 });
    // previous request ended with "go" (message 1); the new tail is the last tool_result.
    expect(breakpoints(params)).toEqual(["system", "m0.b0", "m1.b0", "m3.b2"]);
    expect(breakpoints(params).length).toBeLessThanOrEqual(4);
  });

  test("without a system prompt the tools+system breakpoint goes on the last tool", () => {
    const params = toAnthropicParams(request([user("hi")], { system: undefined as never }), { defaultMaxTokens: 100 });
    expect(breakpoints(params)).toEqual(["tool:read", "m0.b0"]);
  });

  test("breakpoints never land on thinking blocks", () => {
    const thinking: Message = {
      role: "assistant",
      content: [
        { type: "text", text: "a" },
        { type: "reasoning", text: "t", signature: "s" },
      ],
    };
    const params = toAnthropicParams(request([user("q"), thinking]), { defaultMaxTokens: 100 });
    expect(breakpoints(params)).toContain("m1.b0");
    expect((params.messages[1]!.content as { cache_control?: unknown }[])[1]!.cache_control).toBeUndefined();
  });

  test("the request object is not mutated", () => {
    const messages = [user("hi")];
    const req = request(messages);
    const before = JSON.stringify(req);
    toAnthropicParams(req, { defaultMaxTokens: 100 });
    expect(JSON.stringify(req)).toBe(before);
  });
});
