// Every emulator fault through the real adapters (Anthropic, Chat Completions, Responses) and the loop's retries: a retryable fault is
// logged as llm/retry with its code and the turn completes with only the final attempt in
// history; a final one ends the turn with a typed error; a cancel mid-stream ends it aborted.
// Every case ends with a verified, closed log whose requests are what the wire carried.
import { describe, expect, test } from "vitest";
import type { EmulatorServer, Fault, FaultKind } from "../../src/emulator/index.js";
import type { Agent } from "../../src/loop/index.js";
import { agentOn, apiOf, emulator, expectHealthy, type Flavor, historyTexts, retries } from "./support.js";

/** Long enough to stream in several pieces, and marked with the attempt that produced it. */
const answer = (attempt: number): string =>
  `attempt ${attempt}: the answer is forty-two, and here is a long explanation of why that is so.`;

/** An emulator whose model answers every attempt, numbering them. */
async function countingServer(flavor: Flavor): Promise<EmulatorServer> {
  let attempt = 0;
  return emulator({ style: flavor === "deepseek" ? "deepseek" : "openai", model: () => ({ text: answer(++attempt) }) });
}

/** Text deltas the agent saw live (including those of failed attempts). */
function liveText(agent: Agent): string[] {
  const seen: string[] = [];
  agent.hooks.on("llm/chunk", ({ chunk }) => {
    if (chunk.type === "text-delta") seen.push(chunk.text);
  });
  return seen;
}

/** Chat Completions and Responses (an `error` event with code server_error mid-stream) log the same codes. */
const OPENAI_RETRIED: readonly (readonly [FaultKind, string])[] = [
  ["http-429", "rate-limited"],
  ["http-500", "server-error"],
  ["http-503", "server-error"],
  ["http-529", "overloaded"],
  ["stream-error", "server-error"],
  ["reset", "connection"],
  ["stall", "stalled"],
];

/** Retryable faults and the code each adapter logs for them. */
const RETRIED: { readonly [F in "anthropic" | "openai" | "responses"]: readonly (readonly [FaultKind, string])[] } = {
  anthropic: [
    ["http-429", "rate-limited"],
    ["http-500", "server-error"],
    ["http-503", "server-error"],
    ["http-529", "overloaded"],
    ["stream-error", "overloaded"],
    ["reset", "connection"],
    ["stall", "stalled"],
  ],
  openai: OPENAI_RETRIED,
  responses: OPENAI_RETRIED,
};

const STREAM_FAULTS = new Set<FaultKind>(["stream-error", "reset", "stall", "malformed-sse"]);

describe.each(["anthropic", "openai", "responses"] as const)("%s adapter under injected faults", (flavor) => {
  const api = apiOf(flavor);

  test.each(RETRIED[flavor])(
    "%s is retried as '%s'; the turn completes with only the final attempt in history",
    async (kind, code) => {
      const server = await countingServer(flavor);
      // Stream faults strike after some text has streamed, so there is a partial answer to discard.
      server.faults.next(STREAM_FAULTS.has(kind) ? { kind, afterEvents: 5 } : kind);
      const agent = agentOn(flavor, server);
      const seen = liveText(agent);
      expect((await agent.send("why?")).reason).toEqual({ kind: "completed" });
      expect(retries(agent)).toEqual([{ turn: 1, step: 1, attempt: 1, code, delayMs: 1000 }]);
      expect(server.requests.map((r) => r.fault)).toEqual([kind, undefined]);
      const final = STREAM_FAULTS.has(kind) ? answer(2) : answer(1);
      expect(historyTexts(agent)).toEqual(["why?", final]);
      if (STREAM_FAULTS.has(kind)) {
        expect(seen.join("").startsWith("attempt 1:"), "the failed attempt streamed partial text").toBe(true);
        expect(JSON.stringify(agent.session.events)).not.toContain("attempt 1:");
      }
      expectHealthy(agent, server, api);
    },
  );

  test("http-429 honours retry-after: the logged delay is retry-after × 1000", async () => {
    const server = await countingServer(flavor);
    server.faults.next({ kind: "http-429", retryAfterSeconds: 7 }, { kind: "http-429", retryAfterSeconds: 2 });
    const agent = agentOn(flavor, server);
    expect((await agent.send("go")).reason).toEqual({ kind: "completed" });
    expect(retries(agent).map((r) => [r.attempt, r.code, r.delayMs])).toEqual([
      [1, "rate-limited", 7000],
      [2, "rate-limited", 2000],
    ]);
    expectHealthy(agent, server, api);
  });

  test("faults on several steps of a tool round trip are each retried within their step", async () => {
    let attempt = 0;
    const server = await emulator({
      model: (request) =>
        request.messages.at(-1)?.role === "tool"
          ? { text: answer(++attempt) }
          : { toolCalls: [{ name: "read", arguments: { path: "a.txt" } }] },
    });
    server.faults.next("http-503", { kind: "reset", afterEvents: 4 });
    const agent = agentOn(flavor, server);
    // Step 2's faults are queued once step 1 is over (the plan is one FIFO across requests).
    agent.hooks.on("session/event", ({ event }) => {
      if (event.type === "tool/result") server.faults.next("http-529", { kind: "stream-error", afterEvents: 5 });
    });
    expect((await agent.send("read a.txt")).reason).toEqual({ kind: "completed" });
    expect(retries(agent).map((r) => [r.step, r.attempt])).toEqual([
      [1, 1],
      [1, 2],
      [2, 1],
      [2, 2],
    ]);
    expect(historyTexts(agent).at(-1)).toBe(answer(2));
    expectHealthy(agent, server, api);
  });

  test("malformed SSE (garbled in transit) is retried as 'protocol'; nothing of the bad attempt lands", async () => {
    const server = await countingServer(flavor);
    server.faults.next({ kind: "malformed-sse", afterEvents: 5 });
    const agent = agentOn(flavor, server);
    const outcome = await agent.send("go");
    expect(outcome.reason).toEqual({ kind: "completed" });
    expect(retries(agent).map((r) => r.code)).toEqual(["protocol"]);
    expect(historyTexts(agent).at(-1)).toBe(answer(2));
    expectHealthy(agent, server, api);
  });

  test("missing-done: OpenAI's answer without [DONE] is complete; Anthropic's without message_stop and Responses' without response.completed are retried as a drop", async () => {
    const server = await countingServer(flavor);
    server.faults.next("missing-done");
    const agent = agentOn(flavor, server);
    expect((await agent.send("go")).reason).toEqual({ kind: "completed" });
    // OpenAI: finish_reason and usage arrived; only `[DONE]` is missing — the answer is complete.
    // Anthropic: no message_stop; Responses: no response.completed (the only event with usage
    // and status) — the stream was cut, a retryable drop like any other.
    const cut = flavor !== "openai";
    expect(retries(agent).map((r) => r.code)).toEqual(cut ? ["connection"] : []);
    expect(historyTexts(agent).at(-1)).toBe(cut ? answer(2) : answer(1));
    expectHealthy(agent, server, api);
  });

  test.each([
    ["auth", { code: "auth", message: "invalid x-api-key" }, 401],
    ["invalid-request", { code: "invalid-request", message: "messages.0.content: field required" }, 400],
    [
      "context-overflow",
      { code: "context-overflow", message: "prompt is too long: 250000 tokens > 200000 maximum" },
      400,
    ],
  ] as const)("'%s' is final: the turn ends with that typed error, no retry", async (code, error, status) => {
    const server = await emulator({ model: () => ({ error }) });
    const agent = agentOn(flavor, server);
    const outcome = await agent.send("go");
    expect(outcome.reason).toMatchObject({ kind: "error", step: 1, code });
    expect(server.requests.map((r) => r.status)).toEqual([status]);
    expect(retries(agent)).toEqual([]);
    expect(historyTexts(agent)).toEqual(["go"]);
    expectHealthy(agent, server, api);
  });

  test("retryable faults beyond maxAttempts end the turn with the last code", async () => {
    const server = await countingServer(flavor);
    server.faults.next("http-500", "http-503", "http-529");
    const agent = agentOn(flavor, server, {
      retry: { sleep: async () => undefined, random: () => 0.5, maxAttempts: 3 },
    });
    expect((await agent.send("go")).reason).toMatchObject({ kind: "error", step: 1, code: "overloaded" });
    expect(retries(agent).map((r) => [r.code, r.delayMs])).toEqual([
      ["server-error", 1000],
      ["server-error", 2000],
    ]);
    expectHealthy(agent, server, api);
  });

  test("a cancel mid-stream (a stall, before the stall timeout) ends the turn aborted with every step closed", async () => {
    const stall: Fault = { kind: "stall", afterEvents: 5 };
    const server = await emulator({
      model: (request) => {
        if (request.messages.at(-1)?.role === "tool") return { text: answer(1) };
        server.faults.next(stall); // strikes the next request: step 2, after its first text pieces
        return { toolCalls: [{ name: "read", arguments: { path: "a.txt" } }] };
      },
    });
    const agent = agentOn(flavor, server, { stallTimeoutMs: 60_000 });
    agent.hooks.on("llm/chunk", ({ chunk }) => {
      if (chunk.type === "text-delta") agent.cancel("user pressed escape");
    });
    const outcome = await agent.send("read a.txt");
    expect(outcome.reason).toEqual({ kind: "aborted", reason: "user pressed escape" });
    expect(server.requests.map((r) => r.fault)).toEqual([undefined, "stall"]);
    expect(retries(agent)).toEqual([]);
    expect(agent.session.events.filter((e) => e.type === "step/end").map((e) => e.data)).toEqual([
      { turn: 1, step: 1 },
      { turn: 1, step: 2 },
    ]);
    expect(historyTexts(agent)).toEqual(["read a.txt", 'read({"path":"a.txt"})', "result"]);
    expectHealthy(agent, server, api);
  });
});
