// Retries: retryable provider failures are retried with backoff inside the step, each failed
// attempt logged as llm/retry; the partial stream of a failed attempt never reaches history;
// non-retryable failures end the turn with their code.
import { describe, expect, test } from "vitest";
import { ProviderError, ScriptedProvider, type ScriptedStep } from "../../src/llm/index.js";
import { createAgent, type RetryPolicy, retryDelay } from "../../src/loop/index.js";
import { reconstructRequests, verifyLog } from "../../src/reconstruct/index.js";

const instant: RetryPolicy = { sleep: async () => undefined, random: () => 0.5 };

function agentWith(script: ScriptedStep[], retry: RetryPolicy = instant) {
  const provider = new ScriptedProvider(script);
  const agent = createAgent({ provider, model: "scripted:retry", system: "s", retry });
  return { agent, provider };
}

const retries = (agent: ReturnType<typeof agentWith>["agent"]) =>
  agent.session.events.filter((e) => e.type === "llm/retry").map((e) => e.data);

describe("retries", () => {
  test("a retryable error result is retried and logged as llm/retry; the turn completes", async () => {
    const { agent, provider } = agentWith([
      { error: { message: "overloaded", code: "overloaded", retryable: true } },
      { text: "fine" },
    ]);
    const outcome = await agent.send("go");
    expect(outcome.reason).toEqual({ kind: "completed" });
    expect(provider.requests).toHaveLength(2);
    expect(retries(agent)).toEqual([{ turn: 1, step: 1, attempt: 1, code: "overloaded", delayMs: 1000 }]);
    expect(verifyLog(agent.session.events).ok).toBe(true);
    expect(reconstructRequests(agent.session.events)).toHaveLength(1);
  });

  test("a thrown retryable ProviderError honours retry-after", async () => {
    const { agent } = agentWith([
      { throws: new ProviderError("rate-limited", "slow down", { retryable: true, retryAfterMs: 7000 }) },
      { text: "ok" },
    ]);
    await agent.send("go");
    expect(retries(agent)).toEqual([{ turn: 1, step: 1, attempt: 1, code: "rate-limited", delayMs: 7000 }]);
  });

  test("a failed attempt's partial output never reaches history", async () => {
    let calls = 0;
    const provider = {
      id: "flaky",
      requests: [] as unknown[],
      async *stream() {
        calls++;
        yield { type: "block-start" as const, index: 0, block: { type: "text" as const } };
        yield { type: "text-delta" as const, index: 0, text: calls === 1 ? "PARTIAL" : "complete" };
        if (calls === 1) throw new ProviderError("connection", "dropped", { retryable: true });
        yield { type: "block-end" as const, index: 0 };
        yield { type: "finish" as const, reason: "stop" as const };
      },
    };
    const agent = createAgent({ provider, model: "m", retry: instant });
    await agent.send("go");
    const texts = agent.session.deriveMessages().flatMap((m) => m.content.map((b) => ("text" in b ? b.text : "")));
    expect(texts).toEqual(["go", "complete"]);
    expect(JSON.stringify(agent.session.events)).not.toContain("PARTIAL");
  });

  test("attempts are bounded: the last failure ends the turn with its code", async () => {
    const fail: ScriptedStep = { error: { message: "busy", code: "server-error", retryable: true } };
    const { agent, provider } = agentWith([fail, fail, fail], { ...instant, maxAttempts: 3 });
    const outcome = await agent.send("go");
    expect(outcome.reason).toMatchObject({ kind: "error", code: "server-error", step: 1 });
    expect(provider.requests).toHaveLength(3);
    expect(retries(agent).map((r) => (r as { attempt: number }).attempt)).toEqual([1, 2]);
    expect(verifyLog(agent.session.events).ok).toBe(true);
  });

  test.each(["auth", "invalid-request", "context-overflow"])(
    "a non-retryable %s error ends the turn at once with that code",
    async (code) => {
      const { agent, provider } = agentWith([{ throws: new ProviderError(code, `no: ${code}`) }]);
      const outcome = await agent.send("go");
      expect(outcome.reason).toMatchObject({ kind: "error", code });
      expect(provider.requests).toHaveLength(1);
      expect(retries(agent)).toEqual([]);
    },
  );

  test("a cancel during the backoff ends the turn aborted with no further attempt", async () => {
    let release!: () => void;
    const waiting = new Promise<void>((r) => {
      release = r;
    });
    const { agent, provider } = agentWith(
      [{ error: { message: "x", code: "overloaded", retryable: true } }, { text: "never" }],
      {
        sleep: (_ms, signal) =>
          new Promise((resolve) => {
            release();
            signal.addEventListener("abort", () => resolve(), { once: true });
          }),
      },
    );
    const sent = agent.send("go");
    await waiting;
    agent.cancel("user");
    expect((await sent).reason).toEqual({ kind: "aborted", reason: "user" });
    expect(provider.requests).toHaveLength(1);
    expect(verifyLog(agent.session.events).ok).toBe(true);
  });

  test("backoff is capped exponential with jitter", () => {
    const policy: RetryPolicy = { baseDelayMs: 100, maxDelayMs: 1000, jitter: 0.5, random: () => 1 };
    expect([1, 2, 3, 4, 5].map((n) => retryDelay(policy, n, undefined))).toEqual([150, 300, 600, 1200, 1500]);
    expect(retryDelay({ ...policy, random: () => 0 }, 1, undefined)).toBe(50);
    expect(retryDelay(policy, 3, 2500)).toBe(2500);
  });
});
