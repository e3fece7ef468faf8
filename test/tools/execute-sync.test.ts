// executeToolCall for a tool that answers synchronously (returns no promise): it is done before
// any deadline could fire, so the pipeline arms no timer for it — and otherwise ends exactly as
// for an async tool: a turn aborted while it ran gives 'aborted', a throw or an output that
// throws while it is read gives 'threw' (the tool's failure, not a hook's), progress reaches the caller.
import { getEventListeners } from "node:events";
import { afterEach, describe, expect, test, vi } from "vitest";
import type { ToolContext, ToolOutput } from "../../src/tools/index.js";
import { harness, never, probe, textOf } from "./support.js";

afterEach(() => {
  vi.restoreAllMocks();
});

describe("executeToolCall: a synchronous tool", () => {
  test("arms no deadline timer; an async tool still gets one", async () => {
    const h = harness();
    h.registry.register(probe("sync").tool);
    h.registry.register(probe("async", async (args) => `read ${args.path}`).tool);
    const setTimer = vi.spyOn(globalThis, "setTimeout");
    expect(await h.call("sync", { path: "p" })).toEqual({
      content: [{ type: "text", text: "read p" }],
      isError: false,
    });
    expect(setTimer).not.toHaveBeenCalled();
    expect((await h.call("async", { path: "p" })).isError).toBe(false);
    expect(setTimer).toHaveBeenCalledTimes(1);
  });

  test("a turn aborted while it runs (the tool cancelling it) ends the call 'aborted', with the tool's signal aborted", async () => {
    const h = harness();
    const controller = new AbortController();
    const p = probe("cancels", (_args, context) => {
      void context.signal; // read before the abort: it must follow it
      controller.abort("cancelled by the tool");
      return "done anyway";
    });
    h.registry.register(p.tool);
    const outcome = await h.call("cancels", { path: "p" }, { signal: controller.signal });
    expect(outcome).toMatchObject({ isError: true, error: "aborted" });
    expect(textOf(outcome)).toContain("cancelled by the tool");
    expect(p.runs[0]!.context.signal.aborted).toBe(true);
  });

  test("an output that throws while it is read (a proxy's trap) is the tool's failure ('threw'), not a hook's", async () => {
    const h = harness();
    const output = new Proxy(
      {},
      {
        getPrototypeOf() {
          throw new Error("trap broke");
        },
      },
    ) as unknown as ToolOutput;
    h.registry.register(probe("bad", () => output).tool);
    h.registry.register(probe("bad-async", async () => output).tool);
    for (const name of ["bad", "bad-async"]) {
      const outcome = await h.call(name, { path: "p" });
      expect(outcome).toMatchObject({ isError: true, error: "threw" });
      expect(textOf(outcome)).toBe(`Tool ${name} failed: trap broke`);
    }
    expect(h.reported).toEqual([]);
  });

  test("a throw is 'threw' and leaves no abort listener on the caller's signal", async () => {
    const h = harness();
    h.registry.register(
      probe("throws", () => {
        throw new Error("nope");
      }).tool,
    );
    const controller = new AbortController();
    const outcome = await h.call("throws", { path: "p" }, { signal: controller.signal });
    expect(outcome).toMatchObject({ isError: true, error: "threw" });
    expect(textOf(outcome)).toBe("Tool throws failed: nope");
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });

  test("progress reported synchronously reaches the caller; progress from an async tool restarts its deadline", async () => {
    vi.useFakeTimers();
    try {
      const h = harness();
      const reports: unknown[] = [];
      let later: ToolContext | undefined;
      h.registry.register(
        probe("sync", (_args, context) => {
          context.progress?.({ progress: 1, total: 2, message: "half way" });
          return "done";
        }).tool,
      );
      h.registry.register(
        probe("slow", (_args, context) => {
          later = context;
          return never();
        }).tool,
      );
      const call = (name: string) =>
        h.call(name, { path: "p" }, { timeoutMs: 100, onProgress: (update) => reports.push(update) });
      expect((await call("sync")).isError).toBe(false);
      expect(reports).toEqual([{ progress: 1, total: 2, message: "half way" }]);
      let settled: string | undefined;
      void call("slow").then((o) => {
        settled = o.error;
      });
      await vi.advanceTimersByTimeAsync(90);
      later!.progress?.({ progress: 2, message: "still going" });
      await vi.advanceTimersByTimeAsync(90); // 180 ms in, 90 since the report: the deadline moved
      expect(settled).toBeUndefined();
      await vi.advanceTimersByTimeAsync(10);
      expect(settled).toBe("timeout");
      expect(reports).toEqual([
        { progress: 1, total: 2, message: "half way" },
        { progress: 2, message: "still going" },
      ]);
    } finally {
      vi.useRealTimers();
    }
  });
});
