// serial: listeners are awaited strictly one after another, in registration order; the first
// throw or rejection propagates to the dispatcher and the later listeners do not run.
import { describe, expect, test } from "vitest";
import { deferred, flush, recordingBus } from "./support.js";

describe("serial", () => {
  test("listener 2 starts only after listener 1's promise resolves", async () => {
    const { bus } = recordingBus();
    const gate = deferred();
    const log: string[] = [];
    bus.on("agent/pre-step", async ({ step }) => {
      log.push(`1 start ${step}`);
      await gate.promise;
      log.push("1 end");
    });
    bus.on("agent/pre-step", ({ step }) => {
      log.push(`2 start ${step}`);
    });
    const done = bus.serial("agent/pre-step", { step: 7 });
    await flush();
    expect(log).toStrictEqual(["1 start 7"]);
    gate.resolve();
    await done;
    expect(log).toStrictEqual(["1 start 7", "1 end", "2 start 7"]);
  });

  test("the dispatch settles only after the last listener settles", async () => {
    const { bus } = recordingBus();
    const gate = deferred();
    bus.on("agent/pre-step", () => gate.promise);
    let settled = false;
    const done = bus.serial("agent/pre-step", { step: 0 }).then(() => {
      settled = true;
    });
    await flush();
    expect(settled).toBe(false);
    gate.resolve();
    await done;
    expect(settled).toBe(true);
  });

  test("a sync throw propagates and the later listeners do not run", async () => {
    const { bus, reported } = recordingBus();
    const boom = new Error("gate refused");
    const ran: string[] = [];
    bus.on("agent/pre-step", () => void ran.push("first"));
    bus.on("agent/pre-step", () => {
      throw boom;
    });
    bus.on("agent/pre-step", () => void ran.push("third"));
    await expect(bus.serial("agent/pre-step", { step: 1 })).rejects.toBe(boom);
    expect(ran).toStrictEqual(["first"]);
    expect(reported).toStrictEqual([]); // propagated, not contained
  });

  test("an async rejection propagates and the later listeners do not run", async () => {
    const { bus } = recordingBus();
    const boom = new Error("async refusal");
    const ran: string[] = [];
    bus.on("agent/pre-step", async () => {
      throw boom;
    });
    bus.on("agent/pre-step", () => void ran.push("second"));
    await expect(bus.serial("agent/pre-step", { step: 1 })).rejects.toBe(boom);
    expect(ran).toStrictEqual([]);
  });

  test("with no listeners resolves to undefined", async () => {
    const { bus } = recordingBus();
    await expect(bus.serial("agent/pre-step", { step: 0 })).resolves.toBeUndefined();
  });

  test("a listener registered during the dispatch runs only on the next dispatch", async () => {
    const { bus } = recordingBus();
    const ran: string[] = [];
    bus.on("agent/pre-step", ({ step }) => {
      ran.push(`first ${step}`);
      if (step === 1) bus.on("agent/pre-step", ({ step: s }) => void ran.push(`late ${s}`));
    });
    await bus.serial("agent/pre-step", { step: 1 });
    await bus.serial("agent/pre-step", { step: 2 });
    expect(ran).toStrictEqual(["first 1", "first 2", "late 2"]);
  });
});
