// The agent host's per-session queue (issue #22 §4): every prompt is a turn of its own, in the
// order it was queued for its session (never merged, as concurrent agent.send() calls are);
// `ifBusy: 'reject'` refuses instead of waiting; a waiting prompt can be dropped without running;
// sessions do not wait for each other.
import { describe, expect, test } from "vitest";
import { type AgentHost, HostError } from "../../src/host/index.js";
import type { TurnEvent } from "../../src/loop/index.js";
import { drain, GatedModel, profileOf, promptsByTurn, storedLog, useHostFixture } from "./support.js";

const fixture = useHostFixture();

const hostOver = (model: GatedModel): AgentHost => fixture().host({ profile: profileOf(model.provider) });

describe("per-session FIFO", () => {
  test("concurrent sends to one session run as separate turns, in the order they were queued", async () => {
    const model = new GatedModel(["a"]);
    const h = hostOver(model);
    const outcomes = [h.send("s1", "a"), h.send("s1", "b"), h.send("s1", "c")];
    await model.called("a");
    expect(h.stats()).toEqual({ open: 1, running: 1, queued: 2 });
    expect(model.calls).toEqual(["a"]); // b and c wait for a's turn to end
    model.release("a");
    const done = await Promise.all(outcomes);
    expect(done.map((o) => [o.turn, o.text])).toEqual([
      [1, "re: a"],
      [2, "re: b"],
      [3, "re: c"],
    ]);
    await h.close();
    const { events, report } = await storedLog(fixture().store, "s1");
    expect(promptsByTurn(events)).toEqual([["a"], ["b"], ["c"]]);
    expect(report.ok).toBe(true);
  });

  test("concurrent streams to one session: each streams its own turn, in order", async () => {
    const model = new GatedModel(["one"]);
    const h = hostOver(model);
    const first = h.stream("s1", "one");
    const second = h.stream("s1", "two");
    const seen: TurnEvent[][] = [[], []];
    const reading = [first, second].map(async (stream, i) => {
      for await (const event of stream) seen[i]!.push(event);
    });
    await model.called("one");
    expect(seen[1]).toEqual([]); // the second turn has not started
    model.release("one");
    await Promise.all(reading);
    const [a, b] = await Promise.all([first.outcome, second.outcome]);
    expect([a.turn, b.turn]).toEqual([1, 2]);
    expect(seen[0]!.at(-1)).toMatchObject({ type: "turn-end", turn: 1 });
    expect(seen[1]![0]).toMatchObject({ type: "turn-start", turn: 2 });
    expect(seen[1]!.find((e) => e.type === "user-message")).toMatchObject({
      content: [{ type: "text", text: "two" }],
    });
  });

  test("sessions do not wait for each other: a held turn in one lets another session's turn finish", async () => {
    const model = new GatedModel(["held"]);
    const h = hostOver(model);
    const held = h.send("s1", "held");
    await model.called("held");
    const other = await h.send("s2", "free");
    expect(other.text).toBe("re: free");
    expect(h.stats()).toEqual({ open: 2, running: 1, queued: 0 });
    model.release("held");
    expect((await held).text).toBe("re: held");
  });
});

describe("ifBusy: 'reject'", () => {
  test("a session with a turn running or waiting refuses with HostError('busy'); an idle one accepts", async () => {
    const model = new GatedModel(["a"]);
    const h = hostOver(model);
    const running = h.send("s1", "a");
    await expect(h.send("s1", "b", { ifBusy: "reject" })).rejects.toMatchObject({ code: "busy" });
    expect(() => h.stream("s1", "b", { ifBusy: "reject" })).toThrow(HostError);
    model.release("a");
    await running;
    expect((await h.send("s1", "c", { ifBusy: "reject" })).turn).toBe(2);
    await h.close();
    const { events } = await storedLog(fixture().store, "s1");
    expect(promptsByTurn(events)).toEqual([["a"], ["c"]]); // the refused prompts were never logged
  });
});

describe("dropping a waiting prompt", () => {
  test("closing a waiting stream's iteration drops its prompt: it never runs, nothing is logged", async () => {
    const model = new GatedModel(["a"]);
    const h = hostOver(model);
    const running = h.send("s1", "a");
    const waiting = h.stream("s1", "dropped");
    const after = h.send("s1", "after");
    await model.called("a");
    const iterator = waiting[Symbol.asyncIterator]();
    await iterator.return?.();
    await expect(waiting.outcome).rejects.toMatchObject({ code: "cancelled" });
    expect(h.stats().queued).toBe(1);
    model.release("a");
    await running;
    expect((await after).turn).toBe(2);
    expect(model.calls).toEqual(["a", "after"]);
    await h.close();
    expect(promptsByTurn((await storedLog(fixture().store, "s1")).events)).toEqual([["a"], ["after"]]);
  });

  test("cancel() or the signal drop a waiting prompt; its iteration fails with HostError('cancelled')", async () => {
    const model = new GatedModel(["a"]);
    const h = hostOver(model);
    const running = h.send("s1", "a");
    const byCancel = h.stream("s1", "x");
    const controller = new AbortController();
    const bySignal = h.stream("s1", "y", { signal: controller.signal });
    const sent = h.send("s1", "z", { signal: controller.signal });
    await model.called("a");
    byCancel.cancel();
    controller.abort();
    await expect(drain(byCancel)).rejects.toMatchObject({ code: "cancelled" });
    await expect(drain(bySignal)).rejects.toMatchObject({ code: "cancelled" });
    await expect(sent).rejects.toMatchObject({ code: "cancelled" });
    expect(h.stats()).toMatchObject({ running: 1, queued: 0 });
    model.release("a");
    await running;
    await h.close();
    expect(model.calls).toEqual(["a"]);
    expect(promptsByTurn((await storedLog(fixture().store, "s1")).events)).toEqual([["a"]]);
  });

  test("closing a running stream's iteration cancels its turn (it ends aborted); the next prompt still runs", async () => {
    const model = new GatedModel(["a"]);
    const h = hostOver(model);
    const stream = h.stream("s1", "a");
    const next = h.send("s1", "b");
    for await (const event of stream) if (event.type === "step-start") break;
    expect((await stream.outcome).reason).toMatchObject({ kind: "aborted" });
    expect((await next).turn).toBe(2);
    model.release("a");
  });
});
