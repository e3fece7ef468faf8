// The agent host over the PostgreSQL store (issue #22 §4): the same contract as over JSONL —
// separate turns in FIFO order per session, eviction then resume with the log continuing and
// verifying clean, follow from the stored log, and a close that releases every lease (another
// store, another lease owner, takes each session at once).
import { describe, expect, test } from "vitest";
import { createAgentHost } from "../../src/host/index.js";
import { verifyLog } from "../../src/reconstruct/index.js";
import { usePgDatabase } from "../store/postgres-harness.js";
import { drain, GatedModel, ManualClock, profileOf, promptsByTurn } from "./support.js";

const database = usePgDatabase();

describe("agent host on PostgreSQL", () => {
  test("FIFO turns per session, eviction and resume, follow from the store, close releases every lease", async () => {
    const db = database();
    const store = db.open({ leaseMs: 60_000 });
    const clock = new ManualClock();
    const model = new GatedModel(["a1"]);
    const host = createAgentHost({ store, profile: profileOf(model.provider), idleMs: 1000, maxOpen: 2, clock });
    const a = [host.send("pa", "a1"), host.send("pa", "a2"), host.send("pa", "a3")];
    const b = [host.send("pb", "b1"), host.send("pb", "b2")];
    await model.called("a1");
    await Promise.all(b);
    model.release("a1");
    expect((await Promise.all(a)).map((o) => o.turn)).toEqual([1, 2, 3]);
    clock.advance(1000); // both idle: evicted, leases released
    expect(host.stats().open).toBe(0);
    const stored = await drain(await host.follow("pa", { from: 0 }));
    expect(stored.at(-1)).toMatchObject({ type: "turn-end", turn: 3 });
    expect((await host.send("pa", "a4")).turn).toBe(4); // resumed
    await host.close();
    const other = db.open(); // another owner: a live lease would refuse it (`locked`)
    for (const [id, prompts] of [
      ["pa", [["a1"], ["a2"], ["a3"], ["a4"]]],
      ["pb", [["b1"], ["b2"]]],
    ] as const) {
      const { session } = await other.load(id);
      expect(promptsByTurn(session.events)).toEqual(prompts);
      expect(verifyLog(session.events).ok).toBe(true);
      await other.release(id);
    }
    await db.closeStores();
  });
});
