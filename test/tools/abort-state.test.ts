// The turn's abort state (`AbortState`): it follows its signal through one listener, sets
// `aborted` and `reason` before its own listeners run, and a tool call made with it (the loop's
// path) listens on it instead of the signal — aborting still ends the running call with the
// reason, and a finished call leaves no listener behind (a later abort does not reach it).
import { getEventListeners } from "node:events";
import { describe, expect, test } from "vitest";
import { AbortState } from "../../src/tools/index.js";
import { deferred, harness, never, probe, textOf } from "./support.js";

describe("AbortState", () => {
  test("follows its signal: aborted and reason are set before its listeners run, each once, in order", () => {
    const controller = new AbortController();
    const state = new AbortState(controller.signal);
    const seen: unknown[] = [];
    state.listen(() => seen.push(["a", state.aborted, state.reason]));
    state.listen(() => seen.push(["b", state.aborted, state.reason]));
    expect(state.aborted).toBe(false);
    const cause = { kind: "cancel", reason: "stop" };
    controller.abort(cause);
    expect(state).toMatchObject({ aborted: true, reason: cause });
    expect(seen).toEqual([
      ["a", true, cause],
      ["b", true, cause],
    ]);
    state.listen(() => seen.push("late")); // already aborted: never called
    expect(seen).toHaveLength(2);
  });

  test("over an aborted signal it starts aborted and adds no listener", () => {
    const controller = new AbortController();
    controller.abort("early");
    const state = new AbortState(controller.signal);
    expect(state).toMatchObject({ aborted: true, reason: "early" });
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });

  test("unlisten removes one listener (others still run); detach stops following the signal", () => {
    const controller = new AbortController();
    const state = new AbortState(controller.signal);
    const seen: string[] = [];
    const a = (): number => seen.push("a");
    const b = (): number => seen.push("b");
    const c = (): number => seen.push("c");
    state.listen(a);
    state.listen(b);
    state.listen(c);
    state.unlisten(b);
    state.unlisten(c);
    state.unlisten(c); // not listening any more: nothing happens
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(1);
    controller.abort();
    expect(seen).toEqual(["a"]);
    const other = new AbortController();
    const detached = new AbortState(other.signal);
    detached.detach();
    expect(getEventListeners(other.signal, "abort")).toHaveLength(0);
    other.abort();
    expect(detached.aborted).toBe(false);
  });
});

describe("executeToolCall with the turn's AbortState", () => {
  test("aborting the turn ends the running call aborted, with the reason, and aborts the tool's signal", async () => {
    const h = harness();
    const p = probe("hang", never);
    h.registry.register(p.tool);
    const controller = new AbortController();
    const abort = new AbortState(controller.signal);
    const running = h.call("hang", { path: "p" }, { abort });
    const toolSignal = (await p.started).signal;
    controller.abort({ kind: "cancel", reason: "user stop" });
    const outcome = await running;
    expect(outcome).toMatchObject({ isError: true, error: "aborted" });
    expect(textOf(outcome)).toContain("user stop");
    expect(toolSignal.aborted).toBe(true);
    expect(toolSignal.reason).toEqual({ kind: "cancel", reason: "user stop" });
  });

  test("a call made once the turn aborted never runs the tool", async () => {
    const h = harness();
    const p = probe("hang", never);
    h.registry.register(p.tool);
    const controller = new AbortController();
    const abort = new AbortState(controller.signal);
    controller.abort({ kind: "cancel", reason: "gone" });
    const outcome = await h.call("hang", { path: "p" }, { abort });
    expect(outcome).toMatchObject({ error: "aborted" });
    expect(textOf(outcome)).toContain("gone");
    expect(p.runs).toHaveLength(0);
  });

  test("finished calls leave no listener: the turn's signal keeps its one, and a later abort reaches no finished call", async () => {
    const h = harness();
    const gate = deferred<string>();
    const p = probe("quick", () => gate.promise);
    h.registry.register(p.tool);
    const controller = new AbortController();
    const abort = new AbortState(controller.signal);
    for (let i = 0; i < 3; i++) {
      const call = h.call("quick", { path: "p" }, { abort });
      gate.resolve("ok");
      expect((await call).isError).not.toBe(true);
    }
    const signals = p.runs.map((run) => run.context.signal);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(1); // the state's own
    controller.abort("late");
    for (const signal of signals) expect(signal.aborted).toBe(false);
  });

  test("without an AbortState (a direct caller), a long-lived signal keeps no listener after each call", async () => {
    const h = harness();
    h.registry.register(probe("quick", () => "ok").tool);
    const controller = new AbortController();
    for (let i = 0; i < 3; i++) await h.call("quick", { path: "p" }, { signal: controller.signal });
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });
});
