// emit: a contained notification (ARCHITECTURE.md §1, issue 3 item 1). Listeners run in
// registration order; a sync throw or async rejection of one is reported with the hook name and
// the others still run; emit never throws and never waits. Also: disposers and count().
import { afterEach, describe, expect, test, vi } from "vitest";
import { HookBus } from "../../src/hooks/index.js";
import { type Events, flush, recordingBus } from "./support.js";

afterEach(() => {
  vi.restoreAllMocks();
});

describe("emit", () => {
  test("runs listeners in registration order with the emitted payload", () => {
    const { bus } = recordingBus();
    const heard: string[] = [];
    bus.on("agent/status", ({ status }) => void heard.push(`a:${status}`));
    bus.on("agent/status", ({ status }) => void heard.push(`b:${status}`));
    bus.on("agent/status", ({ status }) => void heard.push(`c:${status}`));
    bus.emit("agent/status", { status: "idle" });
    expect(heard).toStrictEqual(["a:idle", "b:idle", "c:idle"]);
  });

  test("with no listeners does nothing", () => {
    const { bus, reported } = recordingBus();
    expect(bus.emit("agent/status", { status: "idle" })).toBeUndefined();
    expect(reported).toStrictEqual([]);
  });

  test("a sync throw is reported with the hook name and the later listeners still run", () => {
    const { bus, reported } = recordingBus();
    const boom = new Error("boom");
    const heard: string[] = [];
    bus.on("agent/status", () => void heard.push("first"));
    bus.on("agent/status", () => {
      throw boom;
    });
    bus.on("agent/status", () => void heard.push("third"));
    expect(() => bus.emit("agent/status", { status: "busy" })).not.toThrow();
    expect(heard).toStrictEqual(["first", "third"]);
    expect(reported).toStrictEqual([{ error: boom, hook: "agent/status" }]);
  });

  test("an async rejection is reported with the hook name once it settles, and the others still run", async () => {
    const { bus, reported } = recordingBus();
    const boom = new Error("async boom");
    const heard: string[] = [];
    bus.on("agent/status", async () => {
      throw boom;
    });
    bus.on("agent/status", () => void heard.push("second"));
    bus.emit("agent/status", { status: "busy" });
    expect(heard).toStrictEqual(["second"]);
    await flush();
    expect(reported).toStrictEqual([{ error: boom, hook: "agent/status" }]);
  });

  test("returns undefined synchronously without waiting for async listeners", () => {
    const { bus } = recordingBus();
    let settled = false;
    bus.on("agent/status", async () => {
      await new Promise<void>(() => {}); // never settles
      settled = true;
    });
    const out: unknown = bus.emit("agent/status", { status: "busy" });
    expect(out).toBeUndefined();
    expect(settled).toBe(false);
  });

  test("a throwing reporter does not break emit: the remaining listeners run", async () => {
    const warn = vi.spyOn(process, "emitWarning").mockImplementation(() => {});
    const bus = new HookBus<Events>({
      report: () => {
        throw new Error("reporter is broken");
      },
    });
    const heard: string[] = [];
    bus.on("agent/status", () => {
      throw new Error("sync");
    });
    bus.on("agent/status", async () => {
      throw new Error("async");
    });
    bus.on("agent/status", () => void heard.push("last"));
    expect(() => bus.emit("agent/status", { status: "busy" })).not.toThrow();
    await flush();
    expect(heard).toStrictEqual(["last"]);
    // the reporter's own failures fall back to the default (a process warning), once per failure
    expect(warn).toHaveBeenCalledTimes(2);
  });

  test("without a report option, contained failures become a KeelsonHookWarning naming the hook", () => {
    const warn = vi.spyOn(process, "emitWarning").mockImplementation(() => {});
    const bus = new HookBus<Events>();
    bus.on("agent/status", () => {
      throw new Error("boom");
    });
    bus.emit("agent/status", { status: "busy" });
    expect(warn).toHaveBeenCalledOnce();
    expect(warn.mock.calls[0]).toStrictEqual(["listener of agent/status failed: boom", "KeelsonHookWarning"]);
  });

  test("a listener that disposes a later one mid-dispatch changes only the next dispatch", () => {
    const { bus } = recordingBus();
    const heard: string[] = [];
    let offLater = (): void => {};
    bus.on("agent/status", ({ status }) => {
      heard.push(`first ${status}`);
      offLater();
    });
    offLater = bus.on("agent/status", ({ status }) => void heard.push(`later ${status}`));
    bus.emit("agent/status", { status: "1" });
    bus.emit("agent/status", { status: "2" });
    expect(heard).toStrictEqual(["first 1", "later 1", "first 2"]);
  });

  test("report() routes an owner's contained failure to the same reporter", () => {
    const { bus, reported } = recordingBus();
    const e = new Error("owner failure");
    bus.report(e, "tools/post-execute");
    expect(reported).toStrictEqual([{ error: e, hook: "tools/post-execute" }]);
  });
});

describe("disposers", () => {
  test("a disposed listener no longer hears the hook", () => {
    const { bus } = recordingBus();
    const heard: string[] = [];
    const off = bus.on("agent/status", ({ status }) => void heard.push(status));
    bus.emit("agent/status", { status: "one" });
    off();
    bus.emit("agent/status", { status: "two" });
    expect(heard).toStrictEqual(["one"]);
    expect(bus.count("agent/status")).toBe(0);
  });

  test("a disposer is idempotent", () => {
    const { bus } = recordingBus();
    const off = bus.on("agent/status", () => {});
    bus.on("agent/status", () => {});
    off();
    off();
    expect(bus.count("agent/status")).toBe(1);
  });

  test("disposing one registration of a listener registered twice removes only that one", () => {
    const { bus } = recordingBus();
    const heard: string[] = [];
    const listener = ({ status }: { status: string }) => void heard.push(status);
    const offFirst = bus.on("agent/status", listener);
    bus.on("agent/status", listener);
    offFirst();
    bus.emit("agent/status", { status: "x" });
    expect(heard).toStrictEqual(["x"]);
    expect(bus.count("agent/status")).toBe(1);
  });

  test("disposing the later registration of a listener registered twice keeps the earlier one in its place", () => {
    const { bus } = recordingBus();
    const heard: string[] = [];
    const twice = () => void heard.push("twice");
    bus.on("agent/status", twice);
    bus.on("agent/status", () => void heard.push("between"));
    const offLater = bus.on("agent/status", twice);
    offLater();
    bus.emit("agent/status", { status: "x" });
    expect(heard).toStrictEqual(["twice", "between"]);
  });

  test("calling the same disposer twice does not remove a second registration of the same listener", () => {
    const { bus } = recordingBus();
    const listener = () => {};
    const offFirst = bus.on("agent/status", listener);
    bus.on("agent/status", listener);
    offFirst();
    offFirst();
    expect(bus.count("agent/status")).toBe(1);
  });

  test("disposing a listener of one hook leaves the same function on another hook", () => {
    const { bus } = recordingBus();
    const listener = () => {};
    const off = bus.on("agent/status", listener);
    bus.on("agent/pre-step", listener);
    off();
    expect(bus.count("agent/status")).toBe(0);
    expect(bus.count("agent/pre-step")).toBe(1);
  });
});

describe("count", () => {
  test("counts the listeners a dispatch would run, per hook name", () => {
    const { bus } = recordingBus();
    expect(bus.count("agent/status")).toBe(0);
    bus.on("agent/status", () => {});
    bus.on("agent/status", () => {});
    bus.on("agent/pre-step", () => {});
    expect(bus.count("agent/status")).toBe(2);
    expect(bus.count("agent/pre-step")).toBe(1);
    expect(bus.count("llm/stream")).toBe(0);
  });
});
