// Plugins: `(host) => dispose | void`. Everything a plugin registers through its host is removed
// when it is unloaded; its own dispose and its onDispose cleanups run; unloading is idempotent; a
// plugin that throws while loading leaves nothing behind.
import { describe, expect, test } from "vitest";
import { loadPlugin, type PluginHost } from "../../src/hooks/index.js";
import { type Events, recordingBus } from "./support.js";

const noop = () => {};

describe("loadPlugin", () => {
  test("registrations made through the host dispatch like any other", async () => {
    const { bus } = recordingBus();
    loadPlugin<Events>(bus, (host) => {
      host.on("agent/session-prefix", async (_payload, next) => ["plugin", ...(await next())]);
    });
    await expect(bus.waterfall("agent/session-prefix", { seed: [] }, () => [])).resolves.toStrictEqual(["plugin"]);
  });

  test("unloading removes every registration the plugin made, and nothing else", () => {
    const { bus } = recordingBus();
    bus.on("agent/status", noop);
    const unload = loadPlugin<Events>(bus, (host) => {
      host.on("agent/status", noop);
      host.on("agent/status", () => {});
      host.on("agent/pre-step", () => {});
    });
    expect(bus.count("agent/status")).toBe(3);
    unload();
    expect(bus.count("agent/status")).toBe(1);
    expect(bus.count("agent/pre-step")).toBe(0);
  });

  test("the plugin's returned dispose runs on unload", () => {
    const { bus } = recordingBus();
    let disposed = 0;
    const unload = loadPlugin<Events>(bus, () => () => {
      disposed += 1;
    });
    expect(disposed).toBe(0);
    unload();
    expect(disposed).toBe(1);
  });

  test("onDispose cleanups run on unload", () => {
    const { bus } = recordingBus();
    const ran: string[] = [];
    const unload = loadPlugin<Events>(bus, (host) => {
      host.onDispose(() => void ran.push("close watcher"));
      host.onDispose(() => void ran.push("flush cache"));
    });
    expect(ran).toStrictEqual([]);
    unload();
    expect(ran.sort()).toStrictEqual(["close watcher", "flush cache"]);
  });

  test("cleanups run in reverse order of registration", () => {
    const { bus } = recordingBus();
    const ran: string[] = [];
    const unload = loadPlugin<Events>(bus, (host) => {
      host.onDispose(() => void ran.push("first"));
      host.onDispose(() => void ran.push("second"));
      return () => void ran.push("returned");
    });
    unload();
    expect(ran).toStrictEqual(["returned", "second", "first"]);
  });

  test("unloading twice runs every cleanup once", () => {
    const { bus } = recordingBus();
    let cleanups = 0;
    const count = () => {
      cleanups += 1;
    };
    const unload = loadPlugin<Events>(bus, (host) => {
      host.on("agent/status", noop);
      host.onDispose(count);
      return count;
    });
    bus.on("agent/status", noop); // someone else's registration of the same function
    unload();
    unload();
    expect(cleanups).toBe(2);
    expect(bus.count("agent/status")).toBe(1);
  });

  test("a plugin that disposed its own registration early does not remove another registration on unload", () => {
    const { bus } = recordingBus();
    const unload = loadPlugin<Events>(bus, (host) => {
      const off = host.on("agent/status", noop);
      off(); // a one-shot listener that removed itself
    });
    bus.on("agent/status", noop); // another owner's registration of the same function
    unload();
    expect(bus.count("agent/status")).toBe(1);
  });

  test("a plugin that throws while loading has its partial registrations and cleanups undone, and the error rethrown", () => {
    const { bus } = recordingBus();
    const boom = new Error("missing config");
    const ran: string[] = [];
    let caught: unknown;
    try {
      loadPlugin<Events>(bus, (host) => {
        host.on("agent/status", noop);
        host.onDispose(() => void ran.push("cleanup"));
        throw boom;
      });
    } catch (e) {
      caught = e;
    }
    expect(caught).toBe(boom);
    expect(bus.count("agent/status")).toBe(0);
    expect(ran).toStrictEqual(["cleanup"]);
  });

  test("a load failure is the error the caller sees even when undoing a partial cleanup also fails", () => {
    const { bus } = recordingBus();
    const boom = new Error("missing config");
    let caught: unknown;
    try {
      loadPlugin<Events>(bus, (host) => {
        host.onDispose(() => {
          throw new Error("cleanup failed");
        });
        throw boom;
      });
    } catch (e) {
      caught = e;
    }
    expect(caught).toBe(boom);
  });

  test("extra host fields from extend are visible to the plugin", () => {
    const { bus } = recordingBus();
    let seen: string | undefined;
    loadPlugin<Events, { agentId: string }>(
      bus,
      (host) => {
        seen = host.agentId;
      },
      { agentId: "agent-7" },
    );
    expect(seen).toBe("agent-7");
  });

  test("extend cannot replace the host's own on/onDispose", () => {
    const { bus } = recordingBus();
    const unload = loadPlugin<Events, Partial<PluginHost<Events>>>(bus, (host) => void host.on("agent/status", noop), {
      on: () => noop,
    });
    expect(bus.count("agent/status")).toBe(1);
    unload();
    expect(bus.count("agent/status")).toBe(0);
  });

  test("a failing cleanup does not stop the others, and the first failure is rethrown after all ran", () => {
    const { bus } = recordingBus();
    const ran: string[] = [];
    const first = new Error("first to fail");
    const unload = loadPlugin<Events>(bus, (host) => {
      host.on("agent/status", noop);
      host.onDispose(() => {
        ran.push("a");
        throw new Error("second to fail");
      });
      host.onDispose(() => {
        ran.push("b");
        throw first;
      });
      host.onDispose(() => void ran.push("c"));
    });
    let caught: unknown;
    try {
      unload();
    } catch (e) {
      caught = e;
    }
    expect(caught).toBe(first);
    expect(ran).toStrictEqual(["c", "b", "a"]);
    expect(bus.count("agent/status")).toBe(0);
  });

  test("a plugin loaded on an agent bus is heard by that agent only", () => {
    const global = recordingBus();
    const a = recordingBus(global.bus);
    const b = recordingBus(global.bus);
    const heard: string[] = [];
    loadPlugin<Events>(a.bus, (host) => {
      host.on("agent/status", ({ status }) => void heard.push(status));
    });
    a.bus.emit("agent/status", { status: "a" });
    b.bus.emit("agent/status", { status: "b" });
    expect(heard).toStrictEqual(["a"]);
  });
});
