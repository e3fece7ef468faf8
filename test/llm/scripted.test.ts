// ScriptedProvider: answers each request with the next scripted step (FIFO) — a canned reply, a
// function of the request, an error, a throw, or "hang until aborted" — through the chunk
// protocol, and records every request it receives.
import { describe, expect, test } from "vitest";
import { ProviderError, ScriptedProvider, type StreamChunk } from "../../src/llm/index.js";
import { assemble, assembled, collect, flush, request, zeroUsage } from "./support.js";

const texts = async (provider: ScriptedProvider, n: number): Promise<string[]> => {
  const out: string[] = [];
  for (let i = 0; i < n; i += 1) {
    const block = (await assembled(provider)).content[0];
    out.push(block?.type === "text" ? block.text : `<${block?.type}>`);
  }
  return out;
};

describe("script order and recording", () => {
  test("answers requests with the scripted replies in FIFO order", async () => {
    const provider = new ScriptedProvider([{ text: "one" }, { text: "two" }, { text: "three" }]);
    expect(await texts(provider, 3)).toStrictEqual(["one", "two", "three"]);
  });

  test("a function step receives the request it answers", async () => {
    const provider = new ScriptedProvider([(req) => ({ text: `model=${req.model} messages=${req.messages.length}` })]);
    const result = await assembled(
      provider,
      request({ model: "m-9", messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }] }),
    );
    expect(result.content).toStrictEqual([{ type: "text", text: "model=m-9 messages=1" }]);
  });

  test("a function step may be async", async () => {
    const provider = new ScriptedProvider([async () => ({ text: "later" })]);
    expect(await texts(provider, 1)).toStrictEqual(["later"]);
  });

  test("records every request it receives, in order, as the same objects", async () => {
    const provider = new ScriptedProvider([{ text: "a" }, { error: { message: "nope" } }]);
    const first = request({ sessionId: "s-1" });
    const second = request({ sessionId: "s-2" });
    const third = request({ sessionId: "s-3" });
    await collect(provider, first);
    await collect(provider, second);
    await expect(collect(provider, third)).rejects.toBeInstanceOf(ProviderError);
    expect(provider.requests).toHaveLength(3);
    expect(provider.requests[0]).toBe(first);
    expect(provider.requests[1]).toBe(second);
    expect(provider.requests[2]).toBe(third);
  });

  test("an exhausted script throws ProviderError script-exhausted", async () => {
    const provider = new ScriptedProvider([{ text: "only" }]);
    await collect(provider);
    const error = await collect(provider).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).code).toBe("script-exhausted");
  });

  test("the fallback step answers once the FIFO is empty, and only then", async () => {
    const seen: string[] = [];
    const provider = new ScriptedProvider([{ text: "scripted" }], {
      fallback: (req) => {
        seen.push(req.sessionId);
        return { text: "fallback" };
      },
    });
    expect(await texts(provider, 3)).toStrictEqual(["scripted", "fallback", "fallback"]);
    expect(seen).toStrictEqual(["s-test", "s-test"]);
  });

  test("push() appends steps after the remaining ones and returns the provider", async () => {
    const provider = new ScriptedProvider([{ text: "first" }]);
    expect(provider.push({ text: "second" }, { text: "third" })).toBe(provider);
    expect(await texts(provider, 3)).toStrictEqual(["first", "second", "third"]);
  });

  test("remaining counts the steps not consumed yet", async () => {
    const provider = new ScriptedProvider([{ text: "a" }, { text: "b" }], { fallback: { text: "f" } });
    expect(provider.remaining).toBe(2);
    await collect(provider);
    expect(provider.remaining).toBe(1);
    provider.push({ text: "c" });
    expect(provider.remaining).toBe(2);
    await collect(provider);
    await collect(provider);
    await collect(provider); // the fallback does not count
    expect(provider.remaining).toBe(0);
  });

  test("its id defaults to scripted and can be set", () => {
    expect(new ScriptedProvider().id).toBe("scripted");
    expect(new ScriptedProvider([], { id: "emulator" }).id).toBe("emulator");
  });
});

describe("replies", () => {
  test("an error step streams one error finish chunk carrying the failure", async () => {
    const failure = { message: "rate limited", code: "rate-limited", retryable: true };
    const provider = new ScriptedProvider([{ error: failure }]);
    expect(await collect(provider)).toStrictEqual([{ type: "finish", reason: "error", error: failure }]);
  });

  test("a throws step makes the iterator throw that error", async () => {
    const dropped = new Error("socket hang up");
    const provider = new ScriptedProvider([{ throws: dropped }]);
    await expect(collect(provider)).rejects.toBe(dropped);
  });

  test("finish defaults to tool-calls when there are tool calls, else stop", async () => {
    const provider = new ScriptedProvider([{ text: "done" }, { toolCalls: [{ name: "read" }] }, {}]);
    expect((await assembled(provider)).finish).toBe("stop");
    expect((await assembled(provider)).finish).toBe("tool-calls");
    expect((await assembled(provider)).finish).toBe("stop");
  });

  test("an explicit finish overrides the default", async () => {
    const provider = new ScriptedProvider([{ text: "cut", finish: "max-tokens" }]);
    expect((await assembled(provider)).finish).toBe("max-tokens");
  });

  test("tool-call arguments are JSON text: objects are stringified, strings pass raw, absent is {}", async () => {
    const provider = new ScriptedProvider([
      {
        toolCalls: [
          { name: "read", arguments: { path: "a.ts", lines: [1, 2] } },
          { name: "raw", arguments: '{"broken": ' },
          { name: "ls" },
        ],
      },
    ]);
    const args = (await assembled(provider)).content.map((b) => (b.type === "tool-call" ? b.arguments : undefined));
    expect(args).toStrictEqual(['{"path":"a.ts","lines":[1,2]}', '{"broken": ', "{}"]);
  });

  test("tool calls get provider call ids unique across requests", async () => {
    const provider = new ScriptedProvider([
      { toolCalls: [{ name: "a" }, { name: "b" }] },
      { toolCalls: [{ name: "c" }, { name: "d" }] },
    ]);
    const ids = [...(await assembled(provider)).content, ...(await assembled(provider)).content].map((b) =>
      b.type === "tool-call" ? b.callId : "",
    );
    expect(ids.every((id) => id.length > 0)).toBe(true);
    expect(new Set(ids).size).toBe(4);
  });

  test("given usage buckets are reported and missing ones are zero", async () => {
    const provider = new ScriptedProvider([
      { text: "x", usage: { inputTokens: 12, cacheReadTokens: 300 } },
      { text: "y" },
    ]);
    expect((await assembled(provider)).usage).toStrictEqual({ ...zeroUsage, inputTokens: 12, cacheReadTokens: 300 });
    expect((await assembled(provider)).usage).toStrictEqual(zeroUsage);
  });

  test("scripted reasoning tokens are reported too", async () => {
    const provider = new ScriptedProvider([
      { reasoning: "r", text: "x", usage: { outputTokens: 9, reasoningTokens: 4 } },
    ]);
    expect((await assembled(provider)).usage).toStrictEqual({ ...zeroUsage, outputTokens: 9, reasoningTokens: 4 });
  });

  test("assembles end to end: reasoning, then text, then tool calls in script order", async () => {
    const provider = new ScriptedProvider([
      {
        reasoning: "I should read it.",
        text: "Reading.",
        toolCalls: [
          { name: "read", arguments: { path: "a" } },
          { name: "grep", arguments: '{"q":"x"}' },
        ],
      },
    ]);
    const result = await assembled(provider);
    const [, , first, second] = result.content;
    expect(result.content.slice(0, 2)).toStrictEqual([
      { type: "reasoning", text: "I should read it." },
      { type: "text", text: "Reading." },
    ]);
    expect(first).toMatchObject({ type: "tool-call", name: "read", arguments: '{"path":"a"}' });
    expect(second).toMatchObject({ type: "tool-call", name: "grep", arguments: '{"q":"x"}' });
    expect(result.finish).toBe("tool-calls");
    expect(result.error).toBeUndefined();
  });

  test.each(["", "a", "odd", "ünïcødé ✓"])("text %j survives streaming in deltas", async (text) => {
    const provider = new ScriptedProvider([{ text }]);
    expect((await assembled(provider)).content).toStrictEqual([{ type: "text", text }]);
  });

  test("a reply with no content streams only usage and finish", async () => {
    const provider = new ScriptedProvider([{}]);
    expect(await collect(provider)).toStrictEqual([
      { type: "usage", usage: zeroUsage },
      { type: "finish", reason: "stop" },
    ]);
  });
});

describe("cancellation", () => {
  test("a hang step waits until the request is aborted, then finishes aborted", async () => {
    const controller = new AbortController();
    const provider = new ScriptedProvider(["hang"]);
    const chunks = provider.stream(request({ signal: controller.signal }))[Symbol.asyncIterator]();
    let settled = false;
    const first = chunks.next().then((r) => {
      settled = true;
      return r;
    });
    await flush();
    expect(settled).toBe(false);
    expect(provider.requests).toHaveLength(1);
    controller.abort();
    expect(await first).toStrictEqual({ done: false, value: { type: "finish", reason: "aborted" } });
    expect(await chunks.next()).toStrictEqual({ done: true, value: undefined });
  });

  test("a hang step on an already-aborted request finishes aborted at once", async () => {
    const provider = new ScriptedProvider(["hang"]);
    expect(await collect(provider, request({ signal: AbortSignal.abort() }))).toStrictEqual([
      { type: "finish", reason: "aborted" },
    ]);
  });

  test("a function step may answer hang", async () => {
    const controller = new AbortController();
    const provider = new ScriptedProvider([() => "hang"]);
    const done = collect(provider, request({ signal: controller.signal }));
    await flush();
    controller.abort();
    expect(await done).toStrictEqual([{ type: "finish", reason: "aborted" }]);
  });

  test("aborting mid-stream stops early with finish aborted", async () => {
    const controller = new AbortController();
    const provider = new ScriptedProvider([{ text: "a long answer", toolCalls: [{ name: "read" }] }]);
    const seen: StreamChunk[] = [];
    for await (const chunk of provider.stream(request({ signal: controller.signal }))) {
      seen.push(chunk);
      if (seen.length === 2) controller.abort();
    }
    expect(seen.map((c) => c.type)).toStrictEqual(["block-start", "text-delta", "finish"]);
    expect(seen.at(-1)).toStrictEqual({ type: "finish", reason: "aborted" });
  });

  test("an aborted stream assembles into the partial content with finish aborted", async () => {
    const controller = new AbortController();
    const provider = new ScriptedProvider([{ text: "abcdef" }]);
    const chunks: StreamChunk[] = [];
    for await (const chunk of provider.stream(request({ signal: controller.signal }))) {
      chunks.push(chunk);
      if (chunk.type === "text-delta") controller.abort();
    }
    expect(assemble(chunks)).toStrictEqual({ content: [{ type: "text", text: "abc" }], finish: "aborted" });
  });

  test("a request aborted while a function step computes its reply finishes aborted without content", async () => {
    const controller = new AbortController();
    let answer: (reply: { text: string }) => void = () => {};
    const provider = new ScriptedProvider([() => new Promise((resolve) => (answer = resolve))]);
    const done = collect(provider, request({ signal: controller.signal }));
    await flush();
    controller.abort();
    answer({ text: "too late" });
    expect(await done).toStrictEqual([{ type: "finish", reason: "aborted" }]);
  });
});
