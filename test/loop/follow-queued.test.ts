// agent.follow() right after agent.stream() / agent.send(): the prompt is accepted but its turn
// starts a microtask later. The follow treats accepted, queued input as the turn in flight — it
// ends once the log is read, no turn is open and the agent has nothing queued or driving — so it
// gets that turn's events through its turn-end (as the host's follow does for an admitted prompt).
import { describe, expect, test } from "vitest";
import { ScriptedProvider } from "../../src/llm/core.js";
import { createAgent, LoopError, type TurnEvent } from "../../src/loop/index.js";

async function drain(events: AsyncIterable<TurnEvent>): Promise<TurnEvent[]> {
  const out: TurnEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

const seqs = (events: readonly TurnEvent[]): number[] => events.flatMap((e) => ("seq" in e ? [e.seq] : []));

describe("agent.follow with input queued", () => {
  test("a follow right after stream() gets that turn's events through its turn-end, turn after turn", async () => {
    const provider = new ScriptedProvider([], { fallback: () => ({ text: "answer" }) });
    const agent = createAgent({ provider, model: "m" });
    for (const turn of [1, 2, 3]) {
      const from = agent.session.length - 1;
      const stream = agent.stream(`prompt ${turn}`);
      const followed = drain(agent.follow({ from }));
      const streamed = await drain(stream);
      const events = await followed;
      expect(events[0]).toMatchObject({ type: "turn-start", turn, seq: from + 1 });
      expect(events.at(-1)).toMatchObject({ type: "turn-end", turn });
      expect(seqs(events)).toEqual(seqs(streamed));
    }
    await agent.dispose();
  });

  test("a follow right after send() gets that turn", async () => {
    const agent = createAgent({ provider: new ScriptedProvider([{ text: "one" }]), model: "m" });
    const outcome = agent.send("go");
    const events = await drain(agent.follow());
    await outcome;
    expect(events[0]?.type).toBe("turn-start");
    expect(events.at(-1)).toMatchObject({ type: "turn-end", turn: 1 });
    expect(seqs(events)).toEqual([...agent.session.events.keys()]);
    await agent.dispose();
  });

  test("queued input that starts no turn: the follow ends when the agent is idle again", async () => {
    const agent = createAgent({ provider: new ScriptedProvider([{ text: "one" }]), model: "m" });
    await agent.send("go");
    const length = agent.session.length;
    const rejected = agent.send("too late");
    const disposed = agent.dispose(); // rejects the queued prompt: no turn is started
    const events = await drain(agent.follow({ from: length - 1 }));
    await expect(rejected).rejects.toThrow(LoopError);
    await disposed;
    expect(events).toEqual([]);
  });

  test("a follow while the agent is idle with nothing queued ends at once", async () => {
    const agent = createAgent({ provider: new ScriptedProvider([{ text: "one" }]), model: "m" });
    await agent.send("go");
    const feed = agent.follow({ from: agent.session.length - 1 });
    expect(await feed.next()).toEqual({ done: true, value: undefined });
    expect(await drain(agent.follow({ from: 2 }))).toHaveLength(agent.session.length - 3);
    await agent.dispose();
  });
});
