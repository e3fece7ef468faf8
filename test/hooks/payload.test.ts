// One payload per hook (docs/decisions/0013-hook-payloads.md): a listener receives exactly one
// object — plus `next` in a waterfall — frozen by the bus and shared by every listener of the
// dispatch; `next()` takes nothing and runs the rest over the same payload; and a field added to
// a payload leaves a listener written before it working, in the types and at run time.
import { describe, expect, expectTypeOf, test } from "vitest";
import { type EmitHook, HookBus, type Listener, type SerialHook, type WaterfallHook } from "../../src/hooks/index.js";
import type { AgentHooks } from "../../src/loop/index.js";
import { readCalls, scriptedAgent } from "../loop/support.js";
import { recordingBus } from "./support.js";

/** What one listener call looked like: its argument count and whether the payload was frozen. */
interface Seen {
  readonly args: number;
  readonly frozen: boolean;
  readonly payload: object;
}

const seen = (args: readonly unknown[]): Seen => ({
  args: args.length,
  frozen: Object.isFrozen(args[0]),
  payload: args[0] as object,
});

describe("one frozen payload", () => {
  test("an emit listener receives one frozen object, the same one for every listener", () => {
    const { bus } = recordingBus();
    const calls: Seen[] = [];
    bus.on("agent/status", (...args) => void calls.push(seen(args)));
    bus.on("agent/status", (...args) => void calls.push(seen(args)));
    const payload = { status: "idle" };
    bus.emit("agent/status", payload);
    expect(calls).toStrictEqual([
      { args: 1, frozen: true, payload },
      { args: 1, frozen: true, payload },
    ]);
    expect(calls[0]!.payload).toBe(calls[1]!.payload);
  });

  test("a serial listener receives one frozen object", async () => {
    const { bus } = recordingBus();
    const calls: Seen[] = [];
    bus.on("agent/pre-step", (...args) => void calls.push(seen(args)));
    await bus.serial("agent/pre-step", { step: 3 });
    expect(calls).toStrictEqual([{ args: 1, frozen: true, payload: { step: 3 } }]);
  });

  test("a waterfall listener receives one frozen object and next", async () => {
    const { bus } = recordingBus();
    const calls: Seen[] = [];
    bus.on("llm/stream", (...args) => {
      calls.push(seen(args));
      return args[1]();
    });
    await bus.waterfall("llm/stream", { model: "m" }, () => "r");
    expect(calls).toStrictEqual([{ args: 2, frozen: true, payload: { model: "m" } }]);
  });

  test("assigning to a payload field throws, so no listener can change what the next one reads", () => {
    const { bus, reported } = recordingBus();
    const heard: string[] = [];
    bus.on("agent/status", (payload) => {
      (payload as { status: string }).status = "rewritten";
    });
    bus.on("agent/status", ({ status }) => void heard.push(status));
    bus.emit("agent/status", { status: "idle" });
    expect(heard).toStrictEqual(["idle"]);
    expect(reported).toHaveLength(1);
    expect(reported[0]!.error).toBeInstanceOf(TypeError);
  });

  test("a global listener and an agent's listener share one payload object", () => {
    const global = recordingBus();
    const { bus } = recordingBus(global.bus);
    const payloads: object[] = [];
    global.bus.on("agent/status", (payload) => void payloads.push(payload));
    bus.on("agent/status", (payload) => void payloads.push(payload));
    bus.emit("agent/status", { status: "running" });
    expect(payloads).toHaveLength(2);
    expect(payloads[0]).toBe(payloads[1]);
  });
});

describe("waterfall next()", () => {
  test("next() runs the rest over the same payload, and its result flows back out", async () => {
    const { bus } = recordingBus();
    const payloads: object[] = [];
    bus.on("llm/stream", async (payload, next) => {
      payloads.push(payload);
      return `outer(${await next()})`;
    });
    bus.on("llm/stream", async (payload, next) => {
      payloads.push(payload);
      return `inner(${await next()})`;
    });
    await expect(bus.waterfall("llm/stream", { model: "m" }, () => "r")).resolves.toBe("outer(inner(r))");
    expect(payloads[0]).toBe(payloads[1]);
  });

  test("next() takes no argument: a value passed to it does not reach the later listeners", async () => {
    const { bus } = recordingBus();
    const models: string[] = [];
    bus.on("llm/stream", (_payload, next) => (next as (override: unknown) => Promise<string>)({ model: "other" }));
    bus.on("llm/stream", ({ model }, next) => {
      models.push(model);
      return next();
    });
    await bus.waterfall("llm/stream", { model: "m" }, () => "r");
    expect(models).toStrictEqual(["m"]);
  });

  test("a listener changes the hook's product through the result, not the payload", async () => {
    const { bus } = recordingBus();
    bus.on("agent/session-prefix", async ({ seed }, next) => [`seen ${seed.length}`, ...(await next())]);
    await expect(bus.waterfall("agent/session-prefix", { seed: [] }, () => ["history"])).resolves.toStrictEqual([
      "seen 0",
      "history",
    ]);
  });
});

describe("adding a field to a payload", () => {
  // Version 1 of a hook, a listener written against it, and version 2 with one more field.
  type V1 = { "agent/status": EmitHook<{ readonly status: string }> };
  type V2 = { "agent/status": EmitHook<{ readonly status: string; readonly since: number }> };
  const writtenForV1: Listener<V1["agent/status"]> = ({ status }) => void status.length;

  test("a listener written before the field was added still type-checks", () => {
    expectTypeOf(writtenForV1).toExtend<Listener<V2["agent/status"]>>();
    type W1 = WaterfallHook<{ readonly seed: readonly string[] }, string[]>;
    type W2 = WaterfallHook<{ readonly seed: readonly string[]; readonly signal: AbortSignal }, string[]>;
    expectTypeOf<Listener<W1>>().toExtend<Listener<W2>>();
    expectTypeOf<Listener<SerialHook<{ readonly step: number }>>>().toExtend<
      Listener<SerialHook<{ readonly step: number; readonly turn: number }>>
    >();
  });

  test("a listener written before the field was added still runs", () => {
    const bus = new HookBus<V2>({ report: (error) => expect.fail(String(error)) });
    const heard: string[] = [];
    bus.on("agent/status", ({ status }) => void heard.push(status));
    bus.on("agent/status", writtenForV1);
    bus.emit("agent/status", { status: "idle", since: 0 });
    expect(heard).toStrictEqual(["idle"]);
  });
});

describe("the loop's hooks", () => {
  test("every hook of a tool round trip hands its listeners one frozen payload with the named fields", async () => {
    const { agent } = scriptedAgent({ replies: [readCalls("a.txt")] });
    const calls: Record<string, unknown> = {};
    for (const [name, [arity]] of Object.entries(loopPayloads)) {
      const listener = (...args: unknown[]): unknown => {
        calls[name] = [args.length, Object.isFrozen(args[0]), Object.keys(args[0] as object).sort()];
        return arity === 2 ? (args[1] as () => Promise<unknown>)() : undefined;
      };
      agent.hooks.on(name as keyof AgentHooks, listener as Listener<AgentHooks[keyof AgentHooks]>);
    }
    agent.hooks.on("session/event", ({ event }) => {
      if (event.type === "turn/end") throw new Error("contained, reported on agent/error");
    });
    await agent.send("read a.txt");
    await agent.dispose();
    const frozen = Object.entries(loopPayloads).map(([name, [arity, fields]]) => [name, [arity, true, fields]]);
    expect(calls).toStrictEqual(Object.fromEntries(frozen));
  });
});

/**
 * Each loop hook's listener arity (2 for a waterfall: payload and next) and payload fields
 * (`agent/prefix-drift` is pinned in test/loop/prefix-reuse.test.ts).
 */
const loopPayloads: Record<string, readonly [1 | 2, readonly string[]]> = {
  "agent/prompt-submit": [2, ["agent", "prompt"]],
  "agent/session-prefix": [2, ["agent", "seed", "signal"]],
  "system-prompt/assemble": [2, ["sections", "vars"]],
  "agent/tool-set": [1, ["agent", "signal", "step", "turn"]],
  "agent/pre-step": [1, ["agent", "fullSystemPrompt", "sessionPrefix", "signal", "step", "turn"]],
  "agent/request": [2, ["agent", "config", "sessionPrefix", "signal", "system", "tools"]],
  "llm/stream": [2, ["agent", "request"]],
  "llm/chunk": [1, ["agent", "chunk"]],
  "tools/pre-execute": [2, ["call"]],
  "tools/post-execute": [2, ["call", "outcome"]],
  "session/event": [1, ["agent", "event"]],
  "agent/status": [1, ["agent", "status"]],
  "agent/error": [1, ["agent", "error", "where"]],
};
