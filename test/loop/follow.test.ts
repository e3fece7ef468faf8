// agent.follow({ from }) (issue #22 §3): what a reconnecting client gets — the committed events
// after its last seq from the log, then the turn in flight live, ending when the log is idle.
import { describe, expect, test } from "vitest";
import { ScriptedProvider } from "../../src/llm/core.js";
import { createAgent, LoopError, type TurnEvent } from "../../src/loop/index.js";
import { defineTool, jsonSchema } from "../../src/tools/index.js";
import { deferred } from "../support/deferred.js";

async function drain(events: AsyncIterable<TurnEvent>): Promise<TurnEvent[]> {
  const out: TurnEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

describe("agent.follow", () => {
  test("after a finished turn: the committed events after `from`, then the end", async () => {
    const agent = createAgent({ provider: new ScriptedProvider([{ text: "one" }]), model: "m" });
    await agent.send("go");
    const all = await drain(agent.follow());
    expect(all.map((e) => ("seq" in e ? e.seq : -1))).toEqual([...agent.session.events.keys()]);
    const tail = await drain(agent.follow({ from: 3 }));
    expect(tail[0]).toMatchObject({ seq: 4 });
    expect(tail.at(-1)?.type).toBe("turn-end");
    await agent.dispose();
  });

  test("joining mid-step: the log so far, then live deltas for blocks that start later, then the committed answer", async () => {
    const gate = deferred();
    const joined = deferred();
    const tool = defineTool({
      name: "wait",
      description: "waits",
      input: jsonSchema({ type: "object", properties: {} }),
      readOnly: true,
      execute: async () => {
        joined.resolve();
        await gate.promise;
        return "waited";
      },
    });
    const provider = new ScriptedProvider([{ toolCalls: [{ name: "wait" }] }, { text: "after the wait" }]);
    const agent = createAgent({ provider, model: "m", tools: [tool] });
    const outcome = agent.send("go");
    await joined.promise; // the tool is running: step 1's answer is committed
    const feed = agent.follow({ from: 1 });
    gate.resolve();
    const events = await drain(feed);
    await outcome;
    const seqs = events.flatMap((e) => ("seq" in e ? [e.seq] : []));
    expect(seqs[0]).toBe(2);
    expect(seqs).toEqual([...agent.session.events.keys()].slice(2));
    expect(events.some((e) => e.type === "text-delta" && e.turn === 1 && e.step === 2)).toBe(true);
    expect(events.at(-1)?.type).toBe("turn-end");
    await agent.dispose();
  });

  test("a position beyond the log, or not a seq, is a typed error and reads nothing", async () => {
    const agent = createAgent({ provider: new ScriptedProvider([{ text: "x" }]), model: "m" });
    await agent.send("go");
    for (const from of [1.5, -2, Number.NaN]) {
      expect(() => agent.follow({ from })).toThrow(LoopError);
      expect(() => agent.follow({ from })).toThrow(expect.objectContaining({ code: "invalid-position" }));
    }
    expect(() => agent.follow({ from: agent.session.length })).toThrow(
      expect.objectContaining({ code: "position-beyond-log", message: expect.stringMatching(/seqs 0\.\./) }),
    );
    await agent.dispose();
  });
});
