// Cancel and dispose at each await point of a turn (ARCHITECTURE.md §4): before turn/start, in
// prompt-submit, in composition, in pre-step, at step/start, mid-stream, between tools and in
// continuation. Each time the turn ends aborted{reason} (or disposed), every step is closed, no
// tool call is left without a result, the log verifies, and (after a cancel) the next send
// completes. Time is driven by listeners and deferreds, never by timers.
import { describe, expect, test } from "vitest";
import { LoopError } from "../../src/loop/index.js";
import { reconstructRequests } from "../../src/reconstruct/index.js";
import {
  callsTo,
  deferred,
  first,
  eventsOf,
  expectClosedLog,
  expectRequestsMatchLog,
  lastEnd,
  type Rig,
  rig,
  tool,
  turnEnds,
} from "./loop-support.js";

/** Where a test interrupts the turn: `arm` installs a one-shot trigger calling `stop`. */
interface Point {
  readonly name: string;
  /** Model calls made before the interruption. */
  readonly requests: number;
  arm(r: Rig, stop: () => void): void;
}

/** Runs `stop` the first time only. */
const once = (stop: () => void): (() => void) => {
  let done = false;
  return () => {
    if (!done) stop();
    done = true;
  };
};

const tools = (stop: () => void) => [
  tool("first", (args) => {
    stop();
    return `first ran with ${args.text}`;
  }),
  tool("second"),
  tool("third"),
];

const points: readonly Point[] = [
  {
    name: "before turn/start (an agent/status 'running' listener)",
    requests: 0,
    arm: (r, stop) => r.agent.hooks.on("agent/status", ({ status }) => (status === "running" ? stop() : undefined)),
  },
  {
    name: "in prompt-submit",
    requests: 0,
    arm: (r, stop) => r.agent.hooks.on("agent/prompt-submit", (_payload, next) => first(stop, next)),
  },
  {
    name: "in composition (agent/session-prefix)",
    requests: 0,
    arm: (r, stop) => r.agent.hooks.on("agent/session-prefix", (_payload, next) => first(stop, next)),
  },
  { name: "in pre-step", requests: 0, arm: (r, stop) => r.agent.hooks.on("agent/pre-step", () => stop()) },
  {
    name: "at step/start (agent/request listener)",
    requests: 0,
    arm: (r, stop) => r.agent.hooks.on("agent/request", (_payload, next) => first(stop, next)),
  },
  {
    name: "mid-stream (an llm/chunk listener)",
    requests: 1,
    arm: (r, stop) => r.agent.hooks.on("llm/chunk", ({ chunk }) => (chunk.type === "block-start" ? stop() : undefined)),
  },
  { name: "between tools (inside tool 1's execute)", requests: 1, arm: () => undefined },
  {
    name: "in continuation (pre-step of step 2)",
    requests: 1,
    arm: (r, stop) => r.agent.hooks.on("agent/pre-step", ({ step }) => (step === 2 ? stop() : undefined)),
  },
];

/** An agent whose first turn calls three tools (the first one may stop the turn), then answers. */
function armed(point: Point, stop: (r: Rig) => void): Rig {
  let r: Rig | undefined;
  const trigger = once(() => stop(r!));
  const betweenTools = point.name.startsWith("between tools");
  r = rig({
    tools: tools(betweenTools ? trigger : () => undefined),
    replies: [{ text: "let me see", ...callsTo("first", "second", "third") }, { text: "done" }],
  });
  if (!betweenTools) point.arm(r, trigger);
  return r;
}

describe("cancel at each await point of a turn", () => {
  test.each(points)("$name: the turn ends aborted{reason}, closed, and the next send completes", async (point) => {
    const r = armed(point, (rig) => rig.agent.cancel("user pressed esc"));
    const outcome = await r.agent.send("start");
    expect(outcome.reason).toEqual({ kind: "aborted", reason: "user pressed esc" });
    expect(r.provider.requests).toHaveLength(point.requests);
    expect(reconstructRequests(r.agent.session.events)).toHaveLength(point.requests);
    expectClosedLog(r.agent);
    expectRequestsMatchLog(r);
    expect((await r.agent.send("again")).reason).toEqual({ kind: "completed" });
    expect(turnEnds(r.agent).map((e) => e.kind)).toEqual(["aborted", "completed"]);
    expectClosedLog(r.agent);
    expectRequestsMatchLog(r);
    expect(r.agent.status).toBe("idle");
  });

  test("before turn/start: cancel() called synchronously right after send() aborts that turn", async () => {
    const r = rig();
    const sent = r.agent.send("start");
    r.agent.cancel("changed my mind");
    expect((await sent).reason).toEqual({ kind: "aborted", reason: "changed my mind" });
    expect(r.provider.requests).toHaveLength(0);
    expectClosedLog(r.agent);
    expect((await r.agent.send("again")).reason).toEqual({ kind: "completed" });
  });

  test("mid-stream: cancelling a provider that hangs until aborted ends the turn aborted with no assistant message", async () => {
    const dispatched = deferred();
    const r = rig({ replies: [() => first(dispatched.resolve, () => "hang" as const)] });
    const sent = r.agent.send("start");
    await dispatched.promise;
    r.agent.cancel("too slow");
    expect((await sent).reason).toEqual({ kind: "aborted", reason: "too slow" });
    expect(r.provider.requests[0]!.signal.aborted).toBe(true);
    expect(eventsOf(r.agent, "assistant/message")).toHaveLength(0);
    expectClosedLog(r.agent);
    expect((await r.agent.send("again")).reason).toEqual({ kind: "completed" });
  });

  test("a step cancelled before dispatch ends with step/end{dispatched:false} and is not reconstructed as a request", async () => {
    const r = rig();
    await r.agent.send("one");
    const off = r.agent.hooks.on("agent/request", (_payload, next) => first(() => r.agent.cancel("esc"), next));
    expect((await r.agent.send("two")).reason).toEqual({ kind: "aborted", reason: "esc" });
    off();
    expect(eventsOf(r.agent, "step/end").map((e) => e.data)).toEqual([
      { turn: 1, step: 1 },
      { turn: 2, step: 1, dispatched: false },
    ]);
    expect(reconstructRequests(r.agent.session.events).map((q) => q.turn)).toEqual([1]);
    await r.agent.send("three");
    expect(reconstructRequests(r.agent.session.events).map((q) => q.turn)).toEqual([1, 3]);
    expectRequestsMatchLog(r);
  });

  test("a cancel without a reason ends the turn aborted with reason 'cancelled'", async () => {
    const r = rig();
    r.agent.hooks.on("agent/pre-step", () => r.agent.cancel());
    expect((await r.agent.send("start")).reason).toEqual({ kind: "aborted", reason: "cancelled" });
  });

  test("cancel when idle is a no-op, and cancel ends only the running turn: a prompt queued meanwhile still runs", async () => {
    const r = rig();
    r.agent.cancel("nothing to cancel");
    const stop = once(() => {
      queued = r.agent.send("queued");
      r.agent.cancel("first only");
    });
    let queued: Promise<unknown> | undefined;
    r.agent.hooks.on("agent/pre-step", () => stop());
    expect((await r.agent.send("start")).reason).toEqual({ kind: "aborted", reason: "first only" });
    expect(await queued).toMatchObject({ turn: 2, reason: { kind: "completed" } });
    expectClosedLog(r.agent);
  });
});

describe("dispose at await points of a turn", () => {
  const disposable = points.filter((p) =>
    /prompt-submit|composition|step\/start|between tools|continuation/.test(p.name),
  );

  test.each(disposable)(
    "$name: the turn ends disposed, closed; later sends reject with LoopError 'disposed'",
    async (point) => {
      let disposing: Promise<void> | undefined;
      const r = armed(point, (rig) => {
        disposing = rig.agent.dispose();
      });
      expect((await r.agent.send("start")).reason).toEqual({ kind: "disposed" });
      await disposing;
      expect(r.agent.status).toBe("disposed");
      expect(r.provider.requests).toHaveLength(point.requests);
      expectClosedLog(r.agent);
      expectRequestsMatchLog(r);
      const refused = await r.agent.send("later").catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(LoopError);
      expect((refused as LoopError).code).toBe("disposed");
      expect(lastEnd(r.agent)).toEqual({ kind: "disposed" });
    },
  );

  test("mid-stream: disposing while the provider hangs ends the turn disposed and rejects prompts still queued", async () => {
    const dispatched = deferred();
    const r = rig({ replies: [() => first(dispatched.resolve, () => "hang" as const)] });
    const sent = r.agent.send("start");
    await dispatched.promise;
    const queued = r.agent.send("queued").catch((e: unknown) => e);
    await r.agent.dispose();
    expect((await sent).reason).toEqual({ kind: "disposed" });
    expect(await queued).toBeInstanceOf(LoopError);
    expect(turnEnds(r.agent)).toEqual([{ kind: "disposed" }]);
    expectClosedLog(r.agent);
    await r.agent.dispose(); // idempotent
    await r.agent.whenIdle();
  });
});
