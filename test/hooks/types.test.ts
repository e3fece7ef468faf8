// Type-level contracts of the event map, checked by `tsc -p .` (the runtime assertions are
// incidental). Each mode is dispatched only through its own method, with its hook's payload, and
// listeners are typed from the declaration: `(payload)`, or `(payload, next)` for a waterfall.
import { describe, expect, expectTypeOf, test } from "vitest";
import { type EmitHook, HookBus, type Next, type SerialHook, type WaterfallHook } from "../../src/hooks/index.js";

type Tiny = {
  ping: EmitHook<{ readonly n: number }>;
  save: SerialHook<{ readonly path: string }>;
  wrap: WaterfallHook<{ readonly input: string }, number>;
};

const noReport = { report: () => {} };

describe("typed event map", () => {
  test("emit accepts only emit hooks, with their payload", () => {
    const bus = new HookBus<Tiny>(noReport);
    bus.emit("ping", { n: 1 });
    // @ts-expect-error wrap is a waterfall hook: emit() rejects its name
    bus.emit("wrap", { input: "x" });
    // @ts-expect-error ping's payload carries a number
    bus.emit("ping", { n: "one" });
    // @ts-expect-error a hook takes one payload object, never positional arguments
    bus.emit("ping", 1);
    expect(bus.count("ping")).toBe(0);
  });

  test("serial accepts only serial hooks", async () => {
    const bus = new HookBus<Tiny>(noReport);
    await bus.serial("save", { path: "/tmp/x" });
    // @ts-expect-error ping is an emit hook
    await bus.serial("ping", { n: 1 });
  });

  test("waterfall accepts only waterfall hooks, and its innermost default returns the hook's result", async () => {
    const bus = new HookBus<Tiny>(noReport);
    const n: number = await bus.waterfall("wrap", { input: "abc" }, () => 3);
    expect(n).toBe(3);
    // @ts-expect-error save is a serial hook
    await bus.waterfall("save", { path: "/tmp/x" }, () => undefined);
    // @ts-expect-error the innermost default must produce a number
    await bus.waterfall("wrap", { input: "abc" }, () => "three");
  });

  test("a waterfall listener is given the payload and a typed next", () => {
    const bus = new HookBus<Tiny>(noReport);
    bus.on("wrap", (payload, next) => {
      expectTypeOf(payload).toEqualTypeOf<{ readonly input: string }>();
      expectTypeOf(next).toEqualTypeOf<Next<number>>();
      return next();
    });
    // @ts-expect-error a waterfall listener's second parameter is next, not another field
    bus.on("wrap", (_payload, extra: string) => extra.length);
    // @ts-expect-error a waterfall listener must return the hook's result (via next or its own)
    bus.on("wrap", (_payload, _next) => "not a number");
    expect(bus.count("wrap")).toBe(3);
  });

  test("emit and serial listeners receive the hook's payload and no next", () => {
    const bus = new HookBus<Tiny>(noReport);
    bus.on("ping", ({ n }) => {
      expectTypeOf(n).toEqualTypeOf<number>();
    });
    bus.on("save", async ({ path }) => {
      expectTypeOf(path).toEqualTypeOf<string>();
    });
    // @ts-expect-error an emit listener does not receive next
    bus.on("ping", (_payload: { n: number }, _next: Next<void>) => {});
    expect(bus.count("ping")).toBe(2);
  });

  test("a listener cannot assign to a payload field", () => {
    const bus = new HookBus<Tiny>(noReport);
    bus.on("ping", (payload) => {
      // @ts-expect-error payload fields are readonly (and the object is frozen at run time)
      payload.n = 2;
    });
    expect(bus.count("ping")).toBe(1);
  });

  test("hook names outside the map are rejected", () => {
    const bus = new HookBus<Tiny>(noReport);
    // @ts-expect-error not a hook of this map
    bus.on("pong", () => {});
    expect(bus.count("pong" as "ping")).toBe(1);
  });
});
