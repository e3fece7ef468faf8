// Regression (found by the cancellation reliability suite): an `inject()` claimed by a turn that
// ends before admitting its input — cancelled before it started, or failing in a manual
// compaction that runs before admission — used to be neither logged nor settled: the content was
// dropped and `await agent.inject()` never returned. Claimed injects are now logged before
// `turn/end`, like injects that arrive after the last boundary, and resolve once logged.
import { describe, expect, test } from "vitest";
import { eventsOf, expectClosedLog, rig, types } from "./loop-support.js";

const note = [{ type: "text" as const, text: "a note" }];

describe("claimed injects of a turn that never admitted its input", () => {
  test("send + inject + cancel in one frame: the turn ends aborted, the inject is logged and resolves", async () => {
    const r = rig();
    const sent = r.agent.send("hello");
    const injected = r.agent.inject(note);
    r.agent.cancel("esc");
    expect(await sent).toEqual({ turn: 1, reason: { kind: "aborted", reason: "esc" } });
    await expect(injected).resolves.toBeUndefined();
    expect(types(r.agent)).toEqual(["turn/start", "context/message", "turn/end"]);
    expect(eventsOf(r.agent, "context/message")[0]!.data).toEqual({ content: note, source: "inject" });
    expect(r.provider.requests).toHaveLength(0);
    expectClosedLog(r.agent);
    expect((await r.agent.send("again")).reason).toEqual({ kind: "completed" });
    expect(r.provider.requests[0]!.messages.map((m) => m.content)).toEqual([note, [{ type: "text", text: "again" }]]);
  });

  test("an inject-only turn cancelled before it starts still logs the inject", async () => {
    const r = rig();
    const injected = r.agent.inject(note);
    r.agent.cancel("esc");
    await expect(injected).resolves.toBeUndefined();
    expect(types(r.agent)).toEqual(["turn/start", "context/message", "turn/end"]);
    expectClosedLog(r.agent);
  });

  test("compact + inject where the compaction fails before admission: the turn ends error, the inject is logged", async () => {
    const r = rig({
      compaction: {
        compactIfNeeded: async () => undefined,
        compactNow: async () => {
          throw new Error("summary model unavailable");
        },
      },
    });
    const compacting = r.agent.compact();
    const injected = r.agent.inject(note);
    expect((await compacting).reason).toMatchObject({ kind: "error", message: "summary model unavailable" });
    await expect(injected).resolves.toBeUndefined();
    expect(eventsOf(r.agent, "context/message").map((e) => e.data)).toEqual([{ content: note, source: "inject" }]);
    expectClosedLog(r.agent);
  });
});
