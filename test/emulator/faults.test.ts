// Fault injection as the real SDKs see it (TOOLCHAIN.md §5): HTTP 429 (with retry-after),
// 500, 503, 529; an in-stream error; a connection reset mid-stream; a stall released by the
// server or abandoned by the client; malformed SSE; a stream without its terminator. Plus the
// FIFO and seeded-rate plans, and the record of which fault each request got.
import Anthropic, { type APIError as AnthropicAPIError } from "@anthropic-ai/sdk";
import OpenAI, { type APIError as OpenAIAPIError } from "openai";
import { describe, expect, test } from "vitest";
import { type FaultKind, FaultPlan, mulberry32 } from "../../src/emulator/index.js";
import { anthropicClient, emulator, openaiClient, rejection } from "./support.js";

const reply = () => ({
  text: "a reply long enough to be split into several stream events",
  toolCalls: [{ name: "read_file", arguments: { path: "a.txt" } }],
});
const hi = [{ role: "user" as const, content: "hi" }];
const anthropicStream = (client: Anthropic) =>
  client.messages.stream({ model: "claude-sonnet-4-5", max_tokens: 256, messages: hi }).finalMessage();
const openaiStream = (client: OpenAI) =>
  client.chat.completions.stream({ model: "gpt-5.1", messages: hi }).finalChatCompletion();

describe("HTTP faults through the Anthropic SDK", () => {
  test("http-429 is a RateLimitError carrying retry-after", async () => {
    const server = await emulator({ model: reply, faults: { retryAfterSeconds: 7 } });
    server.faults.next("http-429");
    const error = (await rejection(() => anthropicStream(anthropicClient(server)))) as AnthropicAPIError;
    expect(error).toBeInstanceOf(Anthropic.RateLimitError);
    expect(error.headers?.get("retry-after")).toBe("7");
    expect(error.type).toBe("rate_limit_error");
  });

  test.each([
    ["http-500", 500, Anthropic.InternalServerError, "api_error"],
    ["http-503", 503, Anthropic.ServiceUnavailableError, "api_error"],
    ["http-529", 529, Anthropic.OverloadedError, "overloaded_error"],
  ] as const)("%s is a %i error of the SDK's status class", async (kind, status, type, errorType) => {
    const server = await emulator({ model: reply });
    server.faults.next(kind);
    const error = (await rejection(() => anthropicStream(anthropicClient(server)))) as AnthropicAPIError;
    expect(error).toBeInstanceOf(type);
    expect(error.status).toBe(status);
    expect(error.type).toBe(errorType);
  });

  test("the fault is consumed: the next request succeeds, and each record names its fault", async () => {
    const server = await emulator({ model: reply });
    server.faults.next("http-529");
    const client = anthropicClient(server);
    await rejection(() => anthropicStream(client));
    await anthropicStream(client);
    expect(server.requests.map((r) => [r.fault, r.status])).toStrictEqual([
      ["http-529", 529],
      [undefined, 200],
    ]);
  });

  test("the SDK's own retry honours retry-after and then succeeds", async () => {
    const server = await emulator({ model: reply });
    server.faults.next({ kind: "http-429", retryAfterSeconds: 0.001 });
    const client = new Anthropic({ apiKey: "test", baseURL: server.anthropicBaseURL, maxRetries: 2, logLevel: "off" });
    expect((await anthropicStream(client)).stop_reason).toBe("tool_use");
    expect(server.requests.map((r) => r.status)).toStrictEqual([429, 200]);
  });
});

describe("stream faults through the Anthropic SDK", () => {
  test("stream-error is an in-stream overloaded_error: APIError without a status", async () => {
    const server = await emulator({ model: reply });
    server.faults.next("stream-error");
    const error = (await rejection(() => anthropicStream(anthropicClient(server)))) as AnthropicAPIError;
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect(error.status).toBeUndefined();
    expect(error.type).toBe("overloaded_error");
  });

  test("reset drops the socket mid-stream: AnthropicError terminated", async () => {
    const server = await emulator({ model: reply });
    server.faults.next("reset");
    const error = (await rejection(() => anthropicStream(anthropicClient(server)))) as Error;
    expect(error).toBeInstanceOf(Anthropic.AnthropicError);
    expect(error.message).toMatch(/terminated/);
  });

  test("malformed-sse makes the SDK's JSON parse fail (an AnthropicError)", async () => {
    const server = await emulator({ model: reply });
    server.faults.next("malformed-sse");
    const error = (await rejection(() => anthropicStream(anthropicClient(server)))) as Error;
    expect(error).toBeInstanceOf(Anthropic.AnthropicError);
    expect(error.message).toMatch(/JSON/);
  });

  test("stall sends message_start and then nothing until releaseStalls()", async () => {
    const server = await emulator({ model: reply });
    server.faults.next("stall");
    const stream = await anthropicClient(server).messages.create({
      model: "claude-sonnet-4-5",
      max_tokens: 256,
      messages: hi,
      stream: true,
    });
    const iterator = stream[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toMatchObject({ type: "message_start" });
    const pending = iterator.next();
    expect(server.releaseStalls()).toBe(1);
    await expect(pending).rejects.toThrow(/terminated/);
  });

  test("a stalled stream ends with APIUserAbortError when the client aborts", async () => {
    const server = await emulator({ model: reply });
    server.faults.next({ kind: "stall", afterEvents: 0 });
    const controller = new AbortController();
    const stream = anthropicClient(server).messages.stream(
      { model: "claude-sonnet-4-5", max_tokens: 256, messages: hi },
      { signal: controller.signal },
    );
    stream.on("connect", () => controller.abort());
    expect(await rejection(() => stream.finalMessage())).toBeInstanceOf(Anthropic.APIUserAbortError);
  });

  test("missing-done (no message_stop): the stream helper refuses to produce a message", async () => {
    const server = await emulator({ model: reply });
    server.faults.next("missing-done");
    const error = (await rejection(() => anthropicStream(anthropicClient(server)))) as Error;
    expect(error).toBeInstanceOf(Anthropic.AnthropicError);
    expect(error.message).toContain("stream ended without producing a Message");
  });
});

describe("stream faults on non-stream requests", () => {
  test("stream-error on a non-stream Anthropic request is a 529 OverloadedError, recorded as such", async () => {
    const server = await emulator({ model: reply });
    server.faults.next("stream-error");
    const error = await rejection(() =>
      anthropicClient(server).messages.create({ model: "claude-sonnet-4-5", max_tokens: 256, messages: hi }),
    );
    expect(error).toBeInstanceOf(Anthropic.OverloadedError);
    expect(server.requests[0]).toMatchObject({ fault: "stream-error", status: 529 });
  });

  test("malformed-sse on a non-stream request is a truncated JSON body", async () => {
    const server = await emulator({ model: reply });
    server.faults.next("malformed-sse");
    expect(
      (
        (await rejection(() =>
          openaiClient(server).chat.completions.create({ model: "gpt-5.1", messages: hi }),
        )) as Error
      ).message,
    ).toMatch(/JSON/);
  });
});

describe("faults through the OpenAI SDK", () => {
  test("http-429 is a RateLimitError carrying retry-after", async () => {
    const server = await emulator({ model: reply });
    server.faults.next({ kind: "http-429", retryAfterSeconds: 3 });
    const error = (await rejection(() => openaiStream(openaiClient(server)))) as OpenAIAPIError;
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect(error.headers?.get("retry-after")).toBe("3");
    expect(error.code).toBe("rate_limit_exceeded");
  });

  test.each([
    ["http-500", 500],
    ["http-503", 503],
    ["http-529", 529],
  ] as const)("%s is an InternalServerError with status %i", async (kind, status) => {
    const server = await emulator({ model: reply });
    server.faults.next(kind);
    const error = (await rejection(() => openaiStream(openaiClient(server)))) as OpenAIAPIError;
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    expect(error.status).toBe(status);
  });

  test("stream-error is a mid-stream data: {error} chunk: APIError without a status", async () => {
    const server = await emulator({ model: reply });
    server.faults.next("stream-error");
    const error = (await rejection(() => openaiStream(openaiClient(server)))) as OpenAIAPIError;
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(error.status).toBeUndefined();
    expect(error.message).toContain("The server had an error");
  });

  test("reset drops the socket mid-stream", async () => {
    const server = await emulator({ model: reply });
    server.faults.next("reset");
    expect(((await rejection(() => openaiStream(openaiClient(server)))) as Error).message).toMatch(/terminated/);
  });

  test("malformed-sse makes the SDK's JSON parse fail", async () => {
    const server = await emulator({ model: reply });
    server.faults.next("malformed-sse");
    expect(((await rejection(() => openaiStream(openaiClient(server)))) as Error).message).toMatch(/JSON/);
  });

  test("stall holds the stream after the first chunk until releaseStalls()", async () => {
    const server = await emulator({ model: reply });
    server.faults.next("stall");
    const stream = await openaiClient(server).chat.completions.create({ model: "gpt-5.1", messages: hi, stream: true });
    const iterator = stream[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toMatchObject({ choices: [{ delta: { role: "assistant" } }] });
    const pending = iterator.next();
    expect(server.releaseStalls()).toBe(1);
    await expect(pending).rejects.toThrow(/terminated/);
  });

  test("missing-done: a stream without [DONE] is accepted", async () => {
    const server = await emulator({ model: reply });
    server.faults.next("missing-done");
    expect((await openaiStream(openaiClient(server))).choices[0]?.finish_reason).toBe("tool_calls");
  });

  test("a non-stream reset fails the body read (terminated); a non-stream stall waits for release", async () => {
    const server = await emulator({ model: reply });
    const client = openaiClient(server);
    server.faults.next("reset", "stall");
    expect(
      ((await rejection(() => client.chat.completions.create({ model: "gpt-5.1", messages: hi }))) as Error).message,
    ).toMatch(/terminated/);
    const stalled = client.chat.completions.create({ model: "gpt-5.1", messages: hi });
    await new Promise<void>((resolve) => {
      const poll = (): void => {
        if (server.requests.length === 2 && server.requests[1]!.status === 200) resolve();
        else setImmediate(poll);
      };
      poll();
    });
    expect(server.releaseStalls()).toBe(1);
    expect(((await rejection(() => stalled)) as Error).message).toMatch(/terminated|Connection error/);
  });
});

describe("fault plans", () => {
  test("a seeded rate is reproducible", () => {
    const draw = (seed: number) => {
      const plan = new FaultPlan({ rate: 0.5, seed });
      return Array.from({ length: 40 }, () => plan.take()?.kind ?? "-");
    };
    expect(draw(42)).toStrictEqual(draw(42));
    expect(draw(42)).not.toStrictEqual(draw(43));
    const hits = draw(42).filter((k) => k !== "-").length;
    expect(hits).toBeGreaterThan(8);
    expect(hits).toBeLessThan(32);
  });

  test("queued faults come first, then the seeded rate draws only the configured kinds", () => {
    const plan = new FaultPlan({ rate: 1, kinds: ["http-503"] }).next("reset");
    expect([plan.take()?.kind, plan.take()?.kind, plan.take()?.kind]).toStrictEqual(["reset", "http-503", "http-503"]);
  });

  test("maxConsecutive caps the seeded rate's runs of faulted requests; queued faults count towards a run", () => {
    const runs = (plan: FaultPlan, n: number): number[] => {
      const lengths: number[] = [];
      let run = 0;
      for (let i = 0; i < n; i++) {
        if (plan.take() !== undefined) run++;
        else {
          if (run > 0) lengths.push(run);
          run = 0;
        }
      }
      return lengths;
    };
    // At rate 0.9 uncapped runs grow long; capped at 2, every run is 1 or 2 and each is followed by a clean request.
    expect(Math.max(...runs(new FaultPlan({ rate: 0.9, seed: 5 }), 2000))).toBeGreaterThan(10);
    const capped = runs(new FaultPlan({ rate: 0.9, seed: 5, maxConsecutive: 2 }), 2000);
    expect(new Set(capped)).toStrictEqual(new Set([1, 2]));
    expect(capped.length).toBeGreaterThan(500);
    // Three queued faults are all served, then the rate leaves one request alone.
    const plan = new FaultPlan({ rate: 1, kinds: ["http-503"], maxConsecutive: 2 }).next("reset", "reset", "stall");
    expect(Array.from({ length: 7 }, () => plan.take()?.kind ?? "-")).toStrictEqual([
      "reset",
      "reset",
      "stall",
      "-",
      "http-503",
      "http-503",
      "-",
    ]);
    for (const bad of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])
      expect(() => new FaultPlan({ maxConsecutive: bad })).toThrow(/maxConsecutive must be a positive integer/);
  });

  test("a server-wide rate applies to requests", async () => {
    const server = await emulator({ model: reply, faults: { rate: 1, kinds: ["http-503"] satisfies FaultKind[] } });
    expect(((await rejection(() => openaiStream(openaiClient(server)))) as OpenAIAPIError).status).toBe(503);
  });

  test("mulberry32 is uniform enough and deterministic", () => {
    const random = mulberry32(7);
    const values = Array.from({ length: 1000 }, random);
    expect(values.every((v) => v >= 0 && v < 1)).toBe(true);
    expect(values.reduce((a, b) => a + b, 0) / values.length).toBeCloseTo(0.5, 1);
    expect(mulberry32(7)()).toBe(values[0]);
  });
});
