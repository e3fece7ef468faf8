// `providerData` on assistant blocks (#24): an API's opaque data, validated only as far as
// Keelson needs (an object naming its API), and who may read it back — an adapter sends only
// its own API's opaque reasoning, and reports the rest once per session.
import { describe, expect, test } from "vitest";
import {
  ANTHROPIC_API,
  foreignReasoning,
  opaqueOwner,
  type ProviderNotice,
  ReasoningCarryover,
} from "../../src/llm/core.js";
import { type Message, MessageShapeError, validateAssistantContent } from "../../src/messages/index.js";
import { thrown } from "../support/thrown.js";

describe("providerData validation", () => {
  test("accepts an object naming its API on text, reasoning and tool-call blocks", () => {
    const data = { api: "openai-responses", id: "x", item: { nested: [1, null] } };
    expect(() =>
      validateAssistantContent([
        { type: "text", text: "a", providerData: data },
        { type: "reasoning", text: "b", providerData: data },
        { type: "tool-call", callId: "c", name: "n", arguments: "{}", providerData: data },
      ]),
    ).not.toThrow();
  });

  test.each([
    ["a string", "x", "[0].providerData", "expected an object, got string"],
    ["no api", { id: "x" }, "[0].providerData.api", "expected a non-empty string naming the API"],
    ["an empty api", { api: "" }, "[0].providerData.api", "expected a non-empty string naming the API"],
  ])("refuses %s, naming the path", (_name, providerData, path, detail) => {
    const error = thrown(
      () => validateAssistantContent([{ type: "text", text: "a", providerData }]),
      MessageShapeError,
    );
    expect(error).toMatchObject({ path: `$${path}`, detail });
  });
});

describe("reasoning carry-over", () => {
  const history: Message[] = [
    {
      role: "assistant",
      content: [
        { type: "reasoning", text: "signed", signature: "s" },
        { type: "reasoning", text: "redacted", redacted: true },
        { type: "reasoning", text: "plain" },
        { type: "reasoning", text: "item", providerData: { api: "openai-responses", item: {} } },
        { type: "text", text: "t", providerData: { api: "openai-responses", id: "m" } },
      ],
    },
  ];

  test("opaque owner: providerData's API, else Anthropic for a signature or redacted thinking, else none", () => {
    const blocks = history[0]!.role === "assistant" ? history[0]!.content : [];
    expect(blocks.map((b) => opaqueOwner(b))).toEqual([
      ANTHROPIC_API,
      ANTHROPIC_API,
      undefined,
      "openai-responses",
      "openai-responses",
    ]);
  });

  test("foreign reasoning counts only opaque reasoning another API made", () => {
    expect(foreignReasoning(history, "anthropic")).toEqual({ count: 1, from: ["openai-responses"] });
    expect(foreignReasoning(history, "openai-responses")).toEqual({ count: 2, from: ["anthropic"] });
    expect(foreignReasoning(history, "openai-chat")).toEqual({ count: 3, from: ["anthropic", "openai-responses"] });
  });

  test("a notice once per session, none when nothing is dropped", () => {
    const notices: ProviderNotice[] = [];
    const carryover = new ReasoningCarryover("anthropic", (n) => notices.push(n));
    carryover.check({ messages: [], sessionId: "a" }, "anthropic");
    carryover.check({ messages: history, sessionId: "a" }, "anthropic");
    carryover.check({ messages: history, sessionId: "a" }, "anthropic");
    carryover.check({ messages: history, sessionId: "b" }, "anthropic");
    expect(notices.map((n) => [n.sessionId, n.count, n.from])).toEqual([
      ["a", 1, ["openai-responses"]],
      ["b", 1, ["openai-responses"]],
    ]);
    expect(notices[0]!.message).toBe(
      "1 reasoning block from openai-responses not sent to anthropic (session a): opaque reasoning is readable only by the API that produced it",
    );
  });
});
