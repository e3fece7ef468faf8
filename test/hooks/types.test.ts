// Type-level contracts of the event map, checked by `tsc -p .` (the runtime assertions are
// incidental). Each mode is dispatched only through its own method, and listeners are typed
// from the declaration.
import { describe, expect, expectTypeOf, test } from "vitest";
import { type EmitHook, HookBus, type Next, type SerialHook, type WaterfallHook } from "../../src/hooks/index.js";

type Tiny = {
  ping: EmitHook<[n: number]>;
  save: SerialHook<[path: string]>;
  wrap: WaterfallHook<[input: string], number>;
};

const noReport = { report: () => {} };

describe("typed event map", () => {
  test("emit accepts only emit hooks, with their args", () => {
    const bus = new HookBus<Tiny>(noReport);
    bus.emit("ping", 1);
    // @ts-expect-error wrap is a waterfall hook: emit() rejects its name
    bus.emit("wrap", "x");
    // @ts-expect-error ping's argument is a number
    bus.emit("ping", "one");
    expect(bus.count("ping")).toBe(0);
  });

  test("serial accepts only serial hooks", async () => {
    const bus = new HookBus<Tiny>(noReport);
    await bus.serial("save", "/tmp/x");
    // @ts-expect-error ping is an emit hook
    await bus.serial("ping", 1);
  });

  test("waterfall accepts only waterfall hooks, and its innermost default returns the hook's result", async () => {
    const bus = new HookBus<Tiny>(noReport);
    const n: number = await bus.waterfall("wrap", ["abc"], () => 3);
    expect(n).toBe(3);
    // @ts-expect-error save is a serial hook
    await bus.waterfall("save", ["/tmp/x"], () => undefined);
    // @ts-expect-error the innermost default must produce a number
    await bus.waterfall("wrap", ["abc"], () => "three");
  });

  test("a waterfall listener is given the args and a typed next", () => {
    const bus = new HookBus<Tiny>(noReport);
    bus.on("wrap", (input, next) => {
      expectTypeOf(input).toEqualTypeOf<string>();
      expectTypeOf(next).toEqualTypeOf<Next<number>>();
      return next();
    });
    // @ts-expect-error a waterfall listener's second parameter is next, not another arg
    bus.on("wrap", (_input: string, extra: string) => extra.length);
    // @ts-expect-error a waterfall listener must return the hook's result (via next or its own)
    bus.on("wrap", (_input, _next) => "not a number");
    expect(bus.count("wrap")).toBe(3);
  });

  test("emit and serial listeners receive the hook's args and no next", () => {
    const bus = new HookBus<Tiny>(noReport);
    bus.on("ping", (n) => {
      expectTypeOf(n).toEqualTypeOf<number>();
    });
    bus.on("save", async (path) => {
      expectTypeOf(path).toEqualTypeOf<string>();
    });
    // @ts-expect-error an emit listener does not receive next
    bus.on("ping", (_n: number, _next: Next<void>) => {});
    expect(bus.count("ping")).toBe(2);
  });

  test("hook names outside the map are rejected", () => {
    const bus = new HookBus<Tiny>(noReport);
    // @ts-expect-error not a hook of this map
    bus.on("pong", () => {});
    expect(bus.count("pong" as "ping")).toBe(1);
  });
});
