import { describe, expect, test } from "vitest";
import { deepFreeze } from "../../src/json/index.js";

describe("deepFreeze", () => {
  test("returns the same object it was given", () => {
    const value = { a: 1 };
    expect(deepFreeze(value)).toBe(value);
  });

  test("freezes every object and array reachable from the root", () => {
    const value = { a: { b: { c: [1, { d: [2, [3]] }] } }, list: [{ x: 1 }] };
    deepFreeze(value);
    const all = [value, value.a, value.a.b, value.a.b.c, value.a.b.c[1], value.list, value.list[0]];
    for (const o of all) expect(Object.isFrozen(o)).toBe(true);
    const inner = (value.a.b.c[1] as { d: unknown[] }).d;
    expect(Object.isFrozen(inner)).toBe(true);
    expect(Object.isFrozen(inner[1])).toBe(true);
  });

  test("a mutation of a deep member throws a TypeError in strict mode", () => {
    const value = deepFreeze({ a: { list: [1, 2] } });
    expect(() => {
      (value.a as { list: number[] }).list.push(3);
    }).toThrow(TypeError);
    expect(() => {
      (value.a as { list: number[] }).list[0] = 9;
    }).toThrow(TypeError);
    expect(() => {
      (value as { b?: number }).b = 1;
    }).toThrow(TypeError);
    expect(value).toEqual({ a: { list: [1, 2] } });
  });

  test("a frozen root array freezes its elements", () => {
    const value = deepFreeze([{ a: 1 }, [{ b: 2 }]]);
    expect(Object.isFrozen(value[0])).toBe(true);
    expect(Object.isFrozen((value[1] as unknown[])[0])).toBe(true);
  });

  test("never freezes a nested AbortSignal, which stays usable", () => {
    const controller = new AbortController();
    const request = deepFreeze({ messages: [{ role: "user" }], options: { signal: controller.signal } });
    expect(Object.isFrozen(request.options)).toBe(true);
    expect(Object.isFrozen(controller.signal)).toBe(false);
    let heard = 0;
    controller.signal.addEventListener("abort", () => {
      heard++;
    });
    controller.abort("stop");
    expect(request.options.signal.aborted).toBe(true);
    expect(request.options.signal.reason).toBe("stop");
    expect(heard).toBe(1);
  });

  test("a signal at the root is returned unfrozen", () => {
    const controller = new AbortController();
    expect(Object.isFrozen(deepFreeze(controller.signal))).toBe(false);
    controller.abort();
    expect(controller.signal.aborted).toBe(true);
  });

  test("primitives and null pass through unchanged", () => {
    expect(deepFreeze(1)).toBe(1);
    expect(deepFreeze("s")).toBe("s");
    expect(deepFreeze(null)).toBe(null);
  });

  test("terminates on a cycle and freezes both sides", () => {
    const a: { b?: unknown } = {};
    const b = { a };
    a.b = b;
    deepFreeze(a);
    expect(Object.isFrozen(a)).toBe(true);
    expect(Object.isFrozen(b)).toBe(true);
  });
});
