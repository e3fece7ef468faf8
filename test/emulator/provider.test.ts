// EmulatorProvider in-process: the chunk protocol (reasoning with signature, text, tool calls
// split across deltas, usage, finish), cancellation and scripted errors, and the cache models
// under Keelson's structural breakpoints — a growing session reads everything before the newest
// tail, a wide tool step still does, a changed prefix at a resume costs one write of what
// follows it, a system prompt that changes every step busts the cache every step.
import { describe, expect, test } from "vitest";
import { anthropicBlocks, EmulatorProvider, ScriptedEmulatorModel, SimulatedClock } from "../../src/emulator/index.js";
import { ProviderError, type ProviderRequest } from "../../src/llm/index.js";
import type { Message, Usage } from "../../src/messages/index.js";
import { assembled, collect, request } from "../llm/support.js";
import { filler } from "./support.js";

const user = (text: string): Message =>
  Object.freeze({ role: "user", content: Object.freeze([Object.freeze({ type: "text", text })]) }) as Message;
const assistantText = (text: string): Message => ({ role: "assistant", content: [{ type: "text", text }] });
const totalInput = (u: Usage): number => u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens;
const SYSTEM = filler(1200, "sys");

describe("the chunk protocol", () => {
  test("streams reasoning (with signature), text and tool calls that a BlockAssembler assembles", async () => {
    const provider = new EmulatorProvider({
      model: () => ({
        reasoning: "think first",
        text: "Reading it.",
        toolCalls: [{ name: "read_file", arguments: { path: "notes/a-long-file-name.txt" } }],
      }),
    });
    const chunks = await collect(provider, request({ messages: [user("read it")] }));
    expect(chunks.filter((c) => c.type === "tool-call-delta").length).toBeGreaterThanOrEqual(2);
    const result = await assembled(provider, request({ messages: [user("read it")] }));
    expect(result.finish).toBe("tool-calls");
    expect(result.content[0]).toMatchObject({
      type: "reasoning",
      text: "think first",
      signature: expect.stringMatching(/^EmuSig/),
    });
    expect(result.content[1]).toStrictEqual({ type: "text", text: "Reading it." });
    expect(result.content[2]).toStrictEqual({
      type: "tool-call",
      callId: "toolu_emu_000002",
      name: "read_file",
      arguments: '{"path":"notes/a-long-file-name.txt"}',
    });
    expect(result.usage?.outputTokens).toBeGreaterThan(0);
  });

  test("the rule-based model is the default", async () => {
    const result = await assembled(new EmulatorProvider(), request({ messages: [user("hello")] }));
    expect(result.content).toStrictEqual([{ type: "text", text: "Understood: hello" }]);
    expect(result.finish).toBe("stop");
  });

  test("maxTokens truncates the reply and finishes max-tokens", async () => {
    const result = await assembled(
      new EmulatorProvider({ model: () => ({ text: "one two three four" }) }),
      request({ messages: [user("x")], maxTokens: 2 }),
    );
    expect(result).toMatchObject({
      content: [{ type: "text", text: "one two" }],
      finish: "max-tokens",
      usage: { outputTokens: 2 },
    });
  });

  test("an abort mid-stream ends with finish aborted; 'hang' waits for the abort", async () => {
    const controller = new AbortController();
    const provider = new EmulatorProvider({
      model: new ScriptedEmulatorModel([{ text: "a fairly long answer in pieces" }, "hang"]),
    });
    const chunks = [];
    for await (const chunk of provider.stream(request({ messages: [user("x")], signal: controller.signal }))) {
      chunks.push(chunk);
      if (chunks.length === 2) controller.abort();
    }
    expect(chunks.at(-1)).toStrictEqual({ type: "finish", reason: "aborted" });
    const hung = new AbortController();
    const pending = collect(provider, request({ messages: [user("x")], signal: hung.signal }));
    hung.abort();
    expect((await pending).at(-1)).toStrictEqual({ type: "finish", reason: "aborted" });
  });

  test("a scripted error finishes with error; an exhausted script throws ProviderError script-exhausted", async () => {
    const provider = new EmulatorProvider({
      model: new ScriptedEmulatorModel([{ error: { message: "nope", code: "overloaded", retryable: true } }]),
    });
    expect((await collect(provider, request({ messages: [user("x")] }))).at(-1)).toStrictEqual({
      type: "finish",
      reason: "error",
      error: { message: "nope", code: "overloaded", retryable: true },
    });
    await expect(collect(provider, request({ messages: [user("x")] }))).rejects.toMatchObject({
      name: "ProviderError",
      code: "script-exhausted",
    });
    await expect(collect(provider, request({ messages: [user("x")] }))).rejects.toBeInstanceOf(ProviderError);
  });
});

/** Drives a session: each step sends the history so far, appends the reply and the next input. */
async function runSession(
  provider: EmulatorProvider,
  inputs: readonly Message[][],
  base: Partial<ProviderRequest> = {},
): Promise<Usage[]> {
  const history: Message[] = [];
  const usages: Usage[] = [];
  for (const input of inputs) {
    history.push(...input);
    const result = await assembled(provider, request({ system: SYSTEM, ...base, messages: [...history] }));
    usages.push(result.usage!);
    history.push({ role: "assistant", content: result.content });
  }
  return usages;
}

describe("Anthropic-style caching with structural breakpoints", () => {
  test("a multi-turn session reads everything before the newest tail from cache", async () => {
    const provider = new EmulatorProvider({ model: () => ({ text: "noted" }) });
    const usages = await runSession(
      provider,
      Array.from({ length: 6 }, (_, i) => [user(`turn ${i}: ${filler(40, `t${i}`)}`)]),
    );
    expect(usages[0]).toMatchObject({ cacheReadTokens: 0, inputTokens: 0 });
    for (let i = 1; i < usages.length; i += 1) {
      expect(usages[i]!.cacheReadTokens).toBe(totalInput(usages[i - 1]!));
      expect(usages[i]!.inputTokens).toBe(0);
    }
  });

  test("a wide tool step (25 parallel calls) still reads everything before it", async () => {
    const calls = Array.from({ length: 25 }, (_, i) => ({ name: "read_file", arguments: { path: `f${i}.txt` } }));
    const provider = new EmulatorProvider({
      model: new ScriptedEmulatorModel([{ text: "ok" }, { toolCalls: calls }, { text: "done" }]),
    });
    const first = await assembled(provider, request({ system: SYSTEM, messages: [user("start")] }));
    const history: Message[] = [user("start"), { role: "assistant", content: first.content }, user("read all files")];
    const wide = await assembled(provider, request({ system: SYSTEM, messages: history }));
    history.push({ role: "assistant", content: wide.content });
    for (const block of wide.content)
      if (block.type === "tool-call")
        history.push({
          role: "tool",
          content: [
            {
              type: "tool-result",
              callId: block.callId,
              content: [{ type: "text", text: `contents of ${block.callId}` }],
              isError: false,
            },
          ],
        });
    const after = await assembled(provider, request({ system: SYSTEM, messages: history }));
    expect(anthropicBlocks({ system: SYSTEM, messages: history }).length).toBeGreaterThan(50);
    expect(after.usage!.cacheReadTokens).toBe(totalInput(wide.usage!));
  });

  test("changing the prefix at a resume costs exactly one cache write of the history after it", async () => {
    const provider = new EmulatorProvider({ model: () => ({ text: "noted" }) });
    const prefixA = [user(`prefix A ${filler(100, "a")}`)];
    const prefixB = [user(`prefix B ${filler(100, "b")}`)];
    const history = [user("q1"), assistantText("noted"), user("q2"), assistantText("noted")];
    await assembled(
      provider,
      request({ system: SYSTEM, messages: [...prefixA, ...history, user("q3")], prefixLength: 1 }),
    );
    const resumed = await assembled(
      provider,
      request({ system: SYSTEM, messages: [...prefixB, ...history, user("q3")], prefixLength: 1 }),
    );
    const systemTokens = anthropicBlocks({ system: SYSTEM, messages: [] })[0]!.tokens;
    expect(resumed.usage).toMatchObject({
      cacheReadTokens: systemTokens,
      cacheWriteTokens: totalInput(resumed.usage!) - systemTokens,
    });
    const next = await assembled(
      provider,
      request({
        system: SYSTEM,
        messages: [...prefixB, ...history, user("q3"), assistantText("noted"), user("q4")],
        prefixLength: 1,
      }),
    );
    expect(next.usage!.cacheReadTokens).toBe(totalInput(resumed.usage!));
  });

  test("a system prompt that changes every step busts the cache every step", async () => {
    const provider = new EmulatorProvider({ model: () => ({ text: "noted" }) });
    const history: Message[] = [];
    for (let step = 0; step < 4; step += 1) {
      history.push(user(`step ${step}`));
      const result = await assembled(
        provider,
        request({ system: `${SYSTEM}\nNow: 2026-01-01T00:00:0${step}Z`, messages: [...history] }),
      );
      expect(result.usage!.cacheReadTokens).toBe(0);
      expect(result.usage!.cacheWriteTokens).toBe(totalInput(result.usage!));
      history.push({ role: "assistant", content: result.content });
    }
  });

  test("entries expire on the injected clock", async () => {
    const clock = new SimulatedClock();
    const provider = new EmulatorProvider({ model: () => ({ text: "noted" }), clock });
    await assembled(provider, request({ system: SYSTEM, messages: [user("a")] }));
    clock.advance(300_000);
    expect((await assembled(provider, request({ system: SYSTEM, messages: [user("a")] }))).usage!.cacheReadTokens).toBe(
      0,
    );
  });

  test("breakpoints sit at the end of system, the prefix, the previous request's tail and the last block", () => {
    const messages = [user("p"), user("q1"), assistantText("a1"), user("q2")];
    const marks = anthropicBlocks({ system: "s", messages, prefixLength: 1 }).flatMap((b, i) =>
      b.breakpoint ? [i] : [],
    );
    expect(marks).toStrictEqual([0, 1, 2, 4]);
  });
});

describe("automatic-prefix styles in-process", () => {
  test("openai style caches the repeated prefix in 128-token blocks", async () => {
    const provider = new EmulatorProvider({ cacheStyle: "openai", model: () => ({ text: "noted" }) });
    const usages = await runSession(provider, [[user("one")], [user("two")]]);
    expect(usages[0]!.cacheReadTokens).toBe(0);
    expect(usages[1]!.cacheReadTokens).toBe(Math.floor(totalInput(usages[0]!) / 128) * 128);
    expect(usages[1]!.cacheWriteTokens).toBe(0);
  });

  test("deepseek style hits the previous input plus its answer, in 64-token blocks", async () => {
    const provider = new EmulatorProvider({ cacheStyle: "deepseek", model: () => ({ text: "noted" }) });
    const usages = await runSession(provider, [[user("one")], [user("two")]]);
    const unit = totalInput(usages[0]!) + 4 + usages[0]!.outputTokens;
    expect(usages[1]!.cacheReadTokens).toBe(Math.floor(unit / 64) * 64);
  });
});

describe("contextWindow: a model's window, played", () => {
  test("answers it, refuses a request clearly over it with context-overflow before the model sees it, refuses a bad value", async () => {
    const provider = new EmulatorProvider({ model: () => ({ text: "ok" }), contextWindow: 1_000 });
    expect(provider.contextWindow()).toBe(1_000);
    expect(new EmulatorProvider().contextWindow()).toBeUndefined();
    const fits = await collect(provider, request({ messages: [user("x".repeat(5_000))] })); // 1,250 tokens: the margin
    expect(fits.at(-1)).toMatchObject({ type: "finish" });
    const over = collect(provider, request({ messages: [user("x".repeat(5_004))] }));
    await expect(over).rejects.toMatchObject({ code: "context-overflow" });
    await expect(over).rejects.toBeInstanceOf(ProviderError);
    expect(provider.requests).toHaveLength(1);
    for (const contextWindow of [0, -1, 1.5, Number.NaN])
      expect(() => new EmulatorProvider({ contextWindow })).toThrow(TypeError);
  });
});
