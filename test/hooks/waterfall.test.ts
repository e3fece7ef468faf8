// waterfall: middleware. Listener 0 is outermost and its return is the result; `next()` runs the
// rest; the last listener's `next()` runs the dispatcher's innermost default. The listener list
// is snapshotted at dispatch.
import { describe, expect, test } from "vitest";
import type { Next } from "../../src/hooks/index.js";
import { recordingBus } from "./support.js";

const seed: readonly string[] = Object.freeze([]);
const empty = (): string[] => [];

describe("waterfall", () => {
  test("with no listeners the innermost default is the result", async () => {
    const { bus } = recordingBus();
    await expect(bus.waterfall("llm/stream", { model: "m" }, () => "default")).resolves.toBe("default");
  });

  test("the outermost listener's return is the result", async () => {
    const { bus } = recordingBus();
    bus.on("llm/stream", async (_payload, next) => `outer(${await next()})`);
    bus.on("llm/stream", async (_payload, next) => `inner(${await next()})`);
    await expect(bus.waterfall("llm/stream", { model: "m" }, () => "default")).resolves.toBe("outer(inner(default))");
  });

  test("listener 0 is entered first and left last", async () => {
    const { bus } = recordingBus();
    const log: string[] = [];
    for (const name of ["a", "b"]) {
      bus.on("llm/stream", async (_payload, next) => {
        log.push(`enter ${name}`);
        const out = await next();
        log.push(`leave ${name}`);
        return out;
      });
    }
    await bus.waterfall("llm/stream", { model: "m" }, () => {
      log.push("innermost");
      return "x";
    });
    expect(log).toStrictEqual(["enter a", "enter b", "innermost", "leave b", "leave a"]);
  });

  test("every listener receives the dispatched payload before next", async () => {
    const { bus } = recordingBus();
    const seen: unknown[][] = [];
    bus.on("llm/stream", ({ model }, next) => {
      seen.push([model, typeof next]);
      return next();
    });
    bus.on("llm/stream", ({ model }, next) => {
      seen.push([model, typeof next]);
      return next();
    });
    await bus.waterfall("llm/stream", { model: "claude" }, () => "r");
    expect(seen).toStrictEqual([
      ["claude", "function"],
      ["claude", "function"],
    ]);
  });

  test("the prepend pattern [mine, ...await next()] yields registration order", async () => {
    const { bus } = recordingBus();
    bus.on("agent/session-prefix", async (_payload, next) => ["skills", ...(await next())]);
    bus.on("agent/session-prefix", async (_payload, next) => ["agents-md", ...(await next())]);
    bus.on("agent/session-prefix", async (_payload, next) => ["baseline", ...(await next())]);
    await expect(bus.waterfall("agent/session-prefix", { seed }, empty)).resolves.toStrictEqual([
      "skills",
      "agents-md",
      "baseline",
    ]);
  });

  test("a listener may transform the result of the rest", async () => {
    const { bus } = recordingBus();
    bus.on("agent/session-prefix", async (_payload, next) => (await next()).map((s) => s.toUpperCase()));
    bus.on("agent/session-prefix", async (_payload, next) => [...(await next()), "tail"]);
    await expect(bus.waterfall("agent/session-prefix", { seed }, () => ["core"])).resolves.toStrictEqual([
      "CORE",
      "TAIL",
    ]);
  });

  test("a listener that does not call next short-circuits the rest and the innermost default", async () => {
    const { bus } = recordingBus();
    const ran: string[] = [];
    bus.on("llm/stream", () => "cached");
    bus.on("llm/stream", (_payload, next) => {
      ran.push("inner listener");
      return next();
    });
    const result = await bus.waterfall("llm/stream", { model: "m" }, () => {
      ran.push("innermost");
      return "fresh";
    });
    expect(result).toBe("cached");
    expect(ran).toStrictEqual([]);
  });

  test("the innermost default may be async", async () => {
    const { bus } = recordingBus();
    bus.on("llm/stream", async (_payload, next) => `<${await next()}>`);
    await expect(bus.waterfall("llm/stream", { model: "m" }, async () => "late")).resolves.toBe("<late>");
  });

  test("calling next() twice rejects the second call and runs the rest only once", async () => {
    const { bus } = recordingBus();
    let innermostRuns = 0;
    let second: unknown;
    bus.on("llm/stream", async (_payload, next) => {
      const first = await next();
      second = await next().catch((e: unknown) => e);
      return first;
    });
    await expect(
      bus.waterfall("llm/stream", { model: "m" }, () => {
        innermostRuns += 1;
        return "once";
      }),
    ).resolves.toBe("once");
    expect(innermostRuns).toBe(1);
    expect(second).toBeInstanceOf(Error);
    expect((second as Error).message).toBe("a listener of llm/stream called next() twice");
  });

  test("a listener's sync throw rejects the dispatch and stops the rest", async () => {
    const { bus, reported } = recordingBus();
    const boom = new Error("bad contribution");
    let innermostRan = false;
    bus.on("llm/stream", () => {
      throw boom;
    });
    await expect(
      bus.waterfall("llm/stream", { model: "m" }, () => {
        innermostRan = true;
        return "x";
      }),
    ).rejects.toBe(boom);
    expect(innermostRan).toBe(false);
    expect(reported).toStrictEqual([]);
  });

  test("an inner rejection propagates through the outer listeners' next()", async () => {
    const { bus } = recordingBus();
    const boom = new Error("inner failure");
    const outerSaw: unknown[] = [];
    bus.on("llm/stream", async (_payload, next) => {
      try {
        return await next();
      } catch (e) {
        outerSaw.push(e);
        throw e;
      }
    });
    bus.on("llm/stream", async () => {
      throw boom;
    });
    await expect(bus.waterfall("llm/stream", { model: "m" }, () => "x")).rejects.toBe(boom);
    expect(outerSaw).toStrictEqual([boom]);
  });

  test("an outer listener may recover from an inner failure", async () => {
    const { bus } = recordingBus();
    bus.on("llm/stream", (_payload, next) => next().catch(() => "recovered"));
    bus.on("llm/stream", () => Promise.reject(new Error("inner")));
    await expect(bus.waterfall("llm/stream", { model: "m" }, () => "x")).resolves.toBe("recovered");
  });
});

describe("waterfall snapshot", () => {
  const tag =
    (name: string) =>
    async (_payload: { seed: readonly string[] }, next: Next<string[]>): Promise<string[]> => [name, ...(await next())];

  test("a listener registered mid-dispatch joins only the next dispatch", async () => {
    const { bus } = recordingBus();
    let registered = false;
    bus.on("agent/session-prefix", async (payload, next) => {
      if (!registered) {
        registered = true;
        bus.on("agent/session-prefix", tag("late"));
      }
      return tag("first")(payload, next);
    });
    await expect(bus.waterfall("agent/session-prefix", { seed }, empty)).resolves.toStrictEqual(["first"]);
    await expect(bus.waterfall("agent/session-prefix", { seed }, empty)).resolves.toStrictEqual(["first", "late"]);
  });

  test("a listener disposed mid-dispatch still runs in the current dispatch, not the next", async () => {
    const { bus } = recordingBus();
    let offSecond = (): void => {};
    bus.on("agent/session-prefix", async (payload, next) => {
      offSecond();
      return tag("first")(payload, next);
    });
    offSecond = bus.on("agent/session-prefix", tag("second"));
    await expect(bus.waterfall("agent/session-prefix", { seed }, empty)).resolves.toStrictEqual(["first", "second"]);
    await expect(bus.waterfall("agent/session-prefix", { seed }, empty)).resolves.toStrictEqual(["first"]);
  });

  test("a registration after the outer listener awaited, but before next(), still misses the dispatch", async () => {
    const { bus } = recordingBus();
    bus.on("agent/session-prefix", async (payload, next) => {
      await Promise.resolve();
      bus.on("agent/session-prefix", tag("late"));
      return tag("first")(payload, next);
    });
    await expect(bus.waterfall("agent/session-prefix", { seed }, empty)).resolves.toStrictEqual(["first"]);
  });
});
