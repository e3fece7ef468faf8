// executeToolCall under time and cancellation: a timeout or an outer abort ends the call with
// an error result and aborts the tool's own signal; an abort before start never runs the tool;
// nothing (timer or abort listener) outlives the call. No sleeps: never-settling tools with a
// tiny timeout, an AbortController, or fake timers.
import { getEventListeners } from "node:events";
import { afterEach, describe, expect, test, vi } from "vitest";
import type { ToolCallOutcome, ToolOutput } from "../../src/tools/index.js";
import { harness, never, probe, textOf } from "./support.js";

afterEach(() => {
  vi.useRealTimers();
});

describe("executeToolCall: timeouts", () => {
  test("a tool that never settles gives 'timeout' and its signal is aborted", async () => {
    const h = harness();
    const p = probe("hang", never);
    h.registry.register(p.tool);
    const outcome = await h.call("hang", { path: "p" }, { timeoutMs: 5 });
    expect(outcome).toMatchObject({ isError: true, error: "timeout" });
    expect(textOf(outcome)).toContain("hang");
    expect(textOf(outcome)).toContain("5 ms");
    expect(p.runs[0]!.context.signal.aborted).toBe(true);
  });

  test("the signal is made when first read: read only after the timeout, it is already aborted with the timeout", async () => {
    const h = harness();
    const p = probe("hang", never);
    h.registry.register(p.tool);
    await h.call("hang", { path: "p" }, { timeoutMs: 5 });
    const { signal } = p.runs[0]!.context;
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toMatchObject({ code: "timeout" });
    expect(p.runs[0]!.context.signal).toBe(signal); // one signal per call, however often it is read
  });

  test("the tool's own timeoutMs wins over the pipeline's", async () => {
    const h = harness();
    h.registry.register(probe("hang", never, { timeoutMs: 5 }).tool);
    const outcome = await h.call("hang", { path: "p" }, { timeoutMs: 3_600_000 });
    expect(outcome.error).toBe("timeout");
    expect(textOf(outcome)).toContain("5 ms");
  });

  test("a tool that rejects when its signal aborts still reports 'timeout', not 'threw'", async () => {
    const h = harness();
    const body = (_a: unknown, { signal }: { signal: AbortSignal }): Promise<ToolOutput> =>
      new Promise((_resolve, reject) => signal.addEventListener("abort", () => reject(signal.reason)));
    h.registry.register(probe("polite", body).tool);
    expect((await h.call("polite", { path: "p" }, { timeoutMs: 5 })).error).toBe("timeout");
  });

  test("the default timeout is 120 s", async () => {
    vi.useFakeTimers();
    const h = harness();
    h.registry.register(probe("hang", never).tool);
    let settled: ToolCallOutcome | undefined;
    void h.call("hang", { path: "p" }).then((o) => {
      settled = o;
    });
    await vi.advanceTimersByTimeAsync(119_999);
    expect(settled).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(settled?.error).toBe("timeout");
    expect(textOf(settled!)).toContain("120000 ms");
  });

  test("a call that finishes in time leaves no timer behind", async () => {
    vi.useFakeTimers();
    const h = harness();
    h.registry.register(probe("read").tool);
    expect((await h.call("read", { path: "p" })).isError).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
  });

  test("a call that throws leaves no timer behind", async () => {
    vi.useFakeTimers();
    const h = harness();
    h.registry.register(
      probe("read", () => {
        throw new Error("nope");
      }).tool,
    );
    expect((await h.call("read", { path: "p" })).error).toBe("threw");
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe("executeToolCall: aborts", () => {
  test("an outer abort during execution gives 'aborted' and aborts the tool's signal", async () => {
    const h = harness();
    const p = probe("hang", never);
    h.registry.register(p.tool);
    const controller = new AbortController();
    const pending = h.call("hang", { path: "p" }, { signal: controller.signal });
    const context = await p.started;
    expect(context.signal.aborted).toBe(false);
    controller.abort("user cancelled");
    const outcome = await pending;
    expect(outcome).toMatchObject({ isError: true, error: "aborted" });
    expect(textOf(outcome)).toContain("user cancelled");
    expect(context.signal.aborted).toBe(true);
    expect(context.signal.reason).toBe("user cancelled");
  });

  test("a tool that rejects on abort still reports 'aborted', not 'threw'", async () => {
    const h = harness();
    const p = probe(
      "polite",
      (_a, { signal }) =>
        new Promise<ToolOutput>((_resolve, reject) =>
          signal.addEventListener("abort", () => reject(new Error("AbortError"))),
        ),
    );
    h.registry.register(p.tool);
    const controller = new AbortController();
    const pending = h.call("polite", { path: "p" }, { signal: controller.signal });
    await p.started;
    controller.abort();
    expect((await pending).error).toBe("aborted");
  });

  test("an abort before start gives 'aborted' and never runs the tool", async () => {
    const h = harness();
    const p = probe("read");
    h.registry.register(p.tool);
    const controller = new AbortController();
    controller.abort("too late");
    const outcome = await h.call("read", { path: "p" }, { signal: controller.signal });
    expect(outcome).toMatchObject({ isError: true, error: "aborted" });
    expect(textOf(outcome)).toContain("too late");
    expect(p.runs).toEqual([]);
  });

  test("an abort during pre-execute never runs the tool", async () => {
    const h = harness();
    const p = probe("read");
    h.registry.register(p.tool);
    const controller = new AbortController();
    h.hooks.on("tools/pre-execute", (_payload, next) => {
      controller.abort("cancelled in hook");
      return next();
    });
    const outcome = await h.call("read", { path: "p" }, { signal: controller.signal });
    expect(outcome.error).toBe("aborted");
    expect(p.runs).toEqual([]);
  });

  test("an abort after the tool finished changes nothing", async () => {
    const h = harness();
    h.registry.register(probe("read").tool);
    const controller = new AbortController();
    const outcome = await h.call("read", { path: "p" }, { signal: controller.signal });
    controller.abort();
    expect(outcome).toEqual({ content: [{ type: "text", text: "read p" }], isError: false });
  });

  test("the tool's signal is its own: aborting it never aborts the caller's", async () => {
    const h = harness();
    const p = probe("hang", never);
    h.registry.register(p.tool);
    const controller = new AbortController();
    await h.call("hang", { path: "p" }, { signal: controller.signal, timeoutMs: 5 });
    expect(p.runs[0]!.context.signal).not.toBe(controller.signal);
    expect(controller.signal.aborted).toBe(false);
  });

  test("no abort listener is left on the caller's signal, whatever the ending", async () => {
    const h = harness();
    h.registry.register(probe("read").tool);
    h.registry.register(probe("hang", never).tool);
    h.registry.register(
      probe("boom", () => {
        throw new Error("x");
      }).tool,
    );
    const controller = new AbortController();
    const signal = controller.signal;
    await h.call("read", { path: "p" }, { signal });
    await h.call("hang", { path: "p" }, { signal, timeoutMs: 5 });
    await h.call("boom", { path: "p" }, { signal });
    await h.call("read", { path: 1 }, { signal });
    expect(getEventListeners(signal, "abort")).toHaveLength(0);
  });

  test("concurrent calls under one signal are all aborted by it", async () => {
    const h = harness();
    const a = probe("a", never);
    const b = probe("b", never);
    h.registry.register(a.tool);
    h.registry.register(b.tool);
    const controller = new AbortController();
    const pending = [
      h.call("a", { path: "p" }, { signal: controller.signal, callId: "c1" }),
      h.call("b", { path: "p" }, { signal: controller.signal, callId: "c2" }),
    ];
    await Promise.all([a.started, b.started]);
    controller.abort();
    expect((await Promise.all(pending)).map((o) => o.error)).toEqual(["aborted", "aborted"]);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });
});
