// The loop's one re-ask after `cache-missing` (a provider-side cache the request named is gone):
// `agent/request` runs again with `retryOf`; a different config is logged after an `llm/retry`
// and sent, once; the same config lets the failure stand; a second `cache-missing` ends the turn.
// The step's reconstructed request is the one that answered.
import { describe, expect, test } from "vitest";
import { ScriptedProvider, type ScriptedStep } from "../../src/llm/index.js";
import { type AgentPlugin, createAgent } from "../../src/loop/index.js";
import { reconstructRequests, verifyLog } from "../../src/reconstruct/index.js";

const gone = { error: { message: "cache gone", code: "cache-missing", retryable: false } } as const;

/** Names cache `v<n>`, a new one each time the loop re-asks after `cache-missing`. */
function renamer(asked: unknown[]): AgentPlugin {
  let version = 1;
  return (host) => {
    host.on("agent/request", async (payload, next) => {
      const config = await next();
      asked.push(payload.retryOf?.code);
      if (payload.retryOf !== undefined) version++;
      return { ...config, cacheName: `v${version}` };
    });
    return undefined;
  };
}

function run(script: ScriptedStep[], plugins: AgentPlugin[]) {
  const provider = new ScriptedProvider(script);
  return { provider, agent: createAgent({ provider, model: "scripted:cache", system: "s", plugins }) };
}

describe("cache-missing", () => {
  test("a new config from agent/request is logged after llm/retry and sent once; the turn completes", async () => {
    const asked: unknown[] = [];
    const { agent, provider } = run([gone, { text: "fine" }], [renamer(asked)]);
    expect((await agent.send("go")).reason).toEqual({ kind: "completed" });
    expect(asked).toEqual([undefined, "cache-missing"]);
    expect(provider.requests.map((r) => r.cacheName)).toEqual(["v1", "v2"]);
    const types = agent.session.events.map((e) => e.type);
    const retry = types.indexOf("llm/retry");
    expect(types.slice(retry, retry + 3)).toEqual(["llm/retry", "request/header-delta", "assistant/message"]);
    expect(agent.session.events[retry]!.data).toEqual({
      turn: 1,
      step: 1,
      attempt: 1,
      code: "cache-missing",
      delayMs: 0,
    });
    const rebuilt = reconstructRequests(agent.session.events);
    expect(rebuilt).toHaveLength(1);
    expect(rebuilt[0]!.request.cacheName).toBe("v2"); // the request that answered
    expect(verifyLog(agent.session.events).ok).toBe(true);
  });

  test("without a listener that changes the config the failure stands, with no retry logged", async () => {
    const { agent, provider } = run([gone, { text: "never" }], []);
    const outcome = await agent.send("go");
    expect(outcome.reason).toMatchObject({ kind: "error", code: "cache-missing" });
    expect(provider.requests).toHaveLength(1);
    expect(agent.session.events.some((e) => e.type === "llm/retry")).toBe(false);
  });

  test("only once per step: a second cache-missing ends the turn", async () => {
    const asked: unknown[] = [];
    const { agent, provider } = run([gone, gone, { text: "never" }], [renamer(asked)]);
    expect((await agent.send("go")).reason).toMatchObject({ kind: "error", code: "cache-missing" });
    expect(provider.requests).toHaveLength(2);
    expect(asked).toEqual([undefined, "cache-missing"]);
  });
});
