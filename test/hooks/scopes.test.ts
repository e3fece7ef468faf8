// Scopes: a global bus is the parent of every agent's bus. Dispatching on an agent's bus runs
// the global listeners first (outermost, for a waterfall), then the agent's own, each group in
// registration order. An agent's listeners are heard by that agent only.
import { describe, expect, test } from "vitest";
import { recordingBus } from "./support.js";

function globalWithTwoAgents() {
  const global = recordingBus();
  const a = recordingBus(global.bus);
  const b = recordingBus(global.bus);
  return { global: global.bus, a: a.bus, b: b.bus, reportedByA: a.reported, reportedByGlobal: global.reported };
}

describe("scoped buses", () => {
  test("emit on an agent bus runs the global listeners first, then the agent's own", () => {
    const { global, a } = globalWithTwoAgents();
    const heard: string[] = [];
    a.on("agent/status", () => void heard.push("agent 1"));
    global.on("agent/status", () => void heard.push("global 1"));
    a.on("agent/status", () => void heard.push("agent 2"));
    global.on("agent/status", () => void heard.push("global 2"));
    a.emit("agent/status", { status: "idle" });
    expect(heard).toStrictEqual(["global 1", "global 2", "agent 1", "agent 2"]);
  });

  test("a waterfall on an agent bus has the global listeners outermost", async () => {
    const { global, a } = globalWithTwoAgents();
    a.on("agent/session-prefix", async (_payload, next) => ["agent", ...(await next())]);
    global.on("agent/session-prefix", async (_payload, next) => ["global", ...(await next())]);
    await expect(a.waterfall("agent/session-prefix", { seed: [] }, () => ["history"])).resolves.toStrictEqual([
      "global",
      "agent",
      "history",
    ]);
  });

  test("a global listener that short-circuits hides the agent's listeners", async () => {
    const { global, a } = globalWithTwoAgents();
    let agentRan = false;
    a.on("llm/stream", (_payload, next) => {
      agentRan = true;
      return next();
    });
    global.on("llm/stream", () => "from global");
    await expect(a.waterfall("llm/stream", { model: "m" }, () => "provider")).resolves.toBe("from global");
    expect(agentRan).toBe(false);
  });

  test("serial on an agent bus awaits the global listeners before the agent's", async () => {
    const { global, a } = globalWithTwoAgents();
    const ran: string[] = [];
    a.on("agent/pre-step", () => void ran.push("agent"));
    global.on("agent/pre-step", async () => {
      await Promise.resolve();
      ran.push("global");
    });
    await a.serial("agent/pre-step", { step: 0 });
    expect(ran).toStrictEqual(["global", "agent"]);
  });

  test("an agent's listeners are not heard by a sibling agent", () => {
    const { a, b } = globalWithTwoAgents();
    const heard: string[] = [];
    a.on("agent/status", ({ status }) => void heard.push(`a heard ${status}`));
    b.emit("agent/status", { status: "from b" });
    expect(heard).toStrictEqual([]);
    expect(b.count("agent/status")).toBe(0);
  });

  test("an agent's listeners are not heard by a dispatch on the global bus", () => {
    const { global, a } = globalWithTwoAgents();
    const heard: string[] = [];
    a.on("agent/status", ({ status }) => void heard.push(status));
    global.emit("agent/status", { status: "global only" });
    expect(heard).toStrictEqual([]);
  });

  test("global listeners hear every agent", () => {
    const { global, a, b } = globalWithTwoAgents();
    const heard: string[] = [];
    global.on("agent/status", ({ status }) => void heard.push(status));
    a.emit("agent/status", { status: "from a" });
    b.emit("agent/status", { status: "from b" });
    expect(heard).toStrictEqual(["from a", "from b"]);
  });

  test("a global listener registered after the agent bus was created is heard too", () => {
    const { global, a } = globalWithTwoAgents();
    const heard: string[] = [];
    a.emit("agent/status", { status: "before" });
    global.on("agent/status", ({ status }) => void heard.push(status));
    a.emit("agent/status", { status: "after" });
    expect(heard).toStrictEqual(["after"]);
  });

  test("count on an agent bus includes the global listeners", () => {
    const { global, a, b } = globalWithTwoAgents();
    global.on("agent/status", () => {});
    a.on("agent/status", () => {});
    a.on("agent/status", () => {});
    expect(global.count("agent/status")).toBe(1);
    expect(a.count("agent/status")).toBe(3);
    expect(b.count("agent/status")).toBe(1);
  });

  test("disposing a global listener removes it from every agent's dispatch", () => {
    const { global, a, b } = globalWithTwoAgents();
    const off = global.on("agent/status", () => {});
    off();
    expect(a.count("agent/status")).toBe(0);
    expect(b.count("agent/status")).toBe(0);
  });

  test("a dispatch after any change up the chain sees it, however often the list was dispatched before", () => {
    const root = recordingBus();
    const parent = recordingBus(root.bus);
    const child = recordingBus(parent.bus);
    const heard: string[] = [];
    const say = (status: string) => child.bus.emit("agent/status", { status });
    say("none"); // resolved and cached with no listener
    const offRoot = root.bus.on("agent/status", ({ status }) => void heard.push(`root:${status}`));
    say("one");
    say("one again"); // served from the cache
    const offParent = parent.bus.on("agent/status", ({ status }) => void heard.push(`parent:${status}`));
    say("two");
    offRoot();
    say("root gone");
    offParent();
    say("all gone");
    expect(heard).toStrictEqual(["root:one", "root:one again", "root:two", "parent:two", "parent:root gone"]);
    expect(child.bus.count("agent/status")).toBe(0);
  });

  test("a contained failure is reported by the bus that dispatched, even for a global listener", () => {
    const { global, a, reportedByA, reportedByGlobal } = globalWithTwoAgents();
    const boom = new Error("global listener failed");
    global.on("agent/status", () => {
      throw boom;
    });
    a.emit("agent/status", { status: "x" });
    expect(reportedByA).toStrictEqual([{ error: boom, hook: "agent/status" }]);
    expect(reportedByGlobal).toStrictEqual([]);
  });

  test("scopes nest: grandparent listeners run before parent listeners before own", () => {
    const root = recordingBus();
    const mid = recordingBus(root.bus);
    const leaf = recordingBus(mid.bus);
    const heard: string[] = [];
    leaf.bus.on("agent/status", () => void heard.push("leaf"));
    mid.bus.on("agent/status", () => void heard.push("mid"));
    root.bus.on("agent/status", () => void heard.push("root"));
    leaf.bus.emit("agent/status", { status: "x" });
    expect(heard).toStrictEqual(["root", "mid", "leaf"]);
    expect(leaf.bus.parent).toBe(mid.bus);
  });
});
