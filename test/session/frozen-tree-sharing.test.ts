// Deep-freeze marks are per tree: a root known to be deep-frozen vouches for its whole subtree,
// so freezing a new shell around shared frozen parts (a request around history, a header
// around logged tools) does not walk them again (docs/decisions/0006). `isDeepFrozen` may say
// false for something frozen, never true for something mutable.
import { describe, expect, test } from "vitest";
import { deepFreeze, isDeepFrozen, snapshotJson } from "../../src/json/index.js";
import { twoTurnLog } from "../support/builders.js";

/** An object whose one property counts how often a freezing walk reads it. */
function counted(): { value: { readonly x: number }; reads: () => number } {
  let reads = 0;
  const value = Object.defineProperty({}, "x", {
    enumerable: true,
    get: () => {
      reads++;
      return 1;
    },
  }) as { readonly x: number };
  return { value, reads: () => reads };
}

describe("deep-freeze marks whole trees once", () => {
  test("deepFreeze does not walk into a root it already froze", () => {
    const inner = counted();
    deepFreeze(inner.value);
    expect(inner.reads()).toBe(1);
    const shell = deepFreeze({ parts: [inner.value, inner.value], other: { y: [1] } });
    expect(inner.reads()).toBe(1);
    expect(Object.isFrozen(shell.other.y)).toBe(true);
    expect(isDeepFrozen(shell)).toBe(true);
  });

  test("deepFreeze does not walk into a freezing snapshot's copy", () => {
    const copy = snapshotJson({ a: [{ b: 1 }] }, "$", { freeze: true });
    expect(isDeepFrozen(copy)).toBe(true);
    const shell = deepFreeze({ copy });
    expect(shell.copy).toBe(copy);
    expect(isDeepFrozen(shell)).toBe(true);
  });

  test("a freezing snapshot with mark: false is frozen all the way down but not registered", () => {
    const copy = snapshotJson({ a: [{ b: 1 }] }, "$", { freeze: true, mark: false }) as { a: { b: number }[] };
    expect(Object.isFrozen(copy.a[0])).toBe(true);
    expect(isDeepFrozen(copy)).toBe(false);
  });

  test("a shell that is merely frozen is still walked: its unfrozen children get frozen", () => {
    const child = { list: [1, 2] };
    const shell = Object.freeze({ child });
    expect(isDeepFrozen(shell)).toBe(false);
    deepFreeze(shell);
    expect(Object.isFrozen(child)).toBe(true);
    expect(Object.isFrozen(child.list)).toBe(true);
    expect(isDeepFrozen(shell)).toBe(true);
  });

  test("an AbortSignal passed to deepFreeze is neither frozen nor reported deep-frozen", () => {
    const { signal } = new AbortController();
    deepFreeze(signal);
    expect(Object.isFrozen(signal)).toBe(false);
    expect(isDeepFrozen(signal)).toBe(false);
  });

  test("subtrees handed out separately (events, derived messages) are frozen; isDeepFrozen never claims a mutable one", () => {
    const session = twoTurnLog();
    for (const event of session.events) {
      expect(Object.isFrozen(event)).toBe(true);
      expect(Object.isFrozen(event.data)).toBe(true);
    }
    for (const message of session.deriveMessages()) {
      expect(Object.isFrozen(message)).toBe(true);
      expect(Object.isFrozen(message.content)).toBe(true);
    }
    expect(isDeepFrozen({ a: 1 })).toBe(false);
    expect(isDeepFrozen(Object.freeze({ a: { b: 1 } }))).toBe(false);
  });
});
