// agent.follow({ from }) (issue #22 §3): what a reconnecting client gets — the committed events
// after its last seq from the log, then the turn in flight live, ending when the log is idle.
import { describe, expect, test } from "vitest";
import { type Provider, ScriptedProvider, type StreamChunk } from "../../src/llm/core.js";
import { createAgent, LoopError, type TurnEvent } from "../../src/loop/index.js";
import { defineTool, jsonSchema } from "../../src/tools/index.js";
import { deployTool } from "../support/approval-tools.js";
import { deferred } from "../support/deferred.js";

async function drain(events: AsyncIterable<TurnEvent>): Promise<TurnEvent[]> {
  const out: TurnEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

describe("agent.follow", () => {
  test("opened right after decide() — its approval/decide listeners still running — it follows the continuation", async () => {
    const ran: string[] = [];
    const provider = new ScriptedProvider(
      [
        { toolCalls: [{ name: "deploy", arguments: { target: "prod" } }] },
        { text: "shipped" },
        { toolCalls: [{ name: "deploy", arguments: { target: "staging" } }] },
      ],
      { fallback: { text: "done" } },
    );
    const agent = createAgent({ provider, model: "m", tools: [deployTool(ran)] });
    const listening = deferred();
    agent.hooks.on("approval/decide", async ({ decision }, next) => {
      await listening.promise; // an approver check that takes a while (a lookup)
      return decision.by === "mallory" ? { action: "refuse", reason: "not an approver" } : next();
    });
    await agent.send("go");
    const from = agent.session.length - 1;
    const [pending] = agent.pendingApprovals();
    const decided = agent.decide(pending!.callId, { approve: true, by: "ana" });
    const feed = agent.follow({ from });
    listening.resolve();
    const events = await drain(feed);
    expect((await decided).reason).toEqual({ kind: "completed" });
    expect(events.map((e) => e.type)).toContain("approval-decision");
    expect(events.at(-1)).toMatchObject({ type: "turn-end", turn: 2 });
    expect(ran).toEqual(["prod"]);
    // A refused one queues nothing: the follow opened meanwhile ends, it does not wait for ever.
    await agent.send("again");
    const again = deferred();
    agent.hooks.on("approval/decide", async (_payload, next) => {
      await again.promise;
      return next();
    });
    const [second] = agent.pendingApprovals();
    const refused = agent.decide(second!.callId, { approve: true, by: "mallory" }).catch((error: unknown) => error);
    const idle = drain(agent.follow({ from: agent.session.length - 1 }));
    again.resolve();
    expect(await refused).toMatchObject({ code: "refused" });
    expect(await idle).toEqual([]);
    await agent.dispose();
  });

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

  test("joining mid-block (found from outside): the step so far as one delta per block, then the rest live", async () => {
    // A model that streams a reasoning block, a text block, holds mid-text, then finishes the text
    // and calls a tool: a feed that joins at the hold gets both blocks' starts, what each streamed
    // so far, the reasoning's end, then the rest of the text live (it got nothing of the step before).
    const hold = deferred();
    const held = deferred();
    let calls = 0;
    const provider: Provider = {
      id: "held",
      async *stream(): AsyncIterable<StreamChunk> {
        calls++;
        if (calls > 1) {
          yield { type: "block-start", index: 0, block: { type: "text" } };
          yield { type: "text-delta", index: 0, text: "done" };
          yield { type: "block-end", index: 0 };
          yield { type: "finish", reason: "stop" };
          return;
        }
        yield { type: "block-start", index: 0, block: { type: "reasoning" } };
        yield { type: "reasoning-delta", index: 0, text: "think" };
        yield { type: "block-end", index: 0 };
        yield { type: "block-start", index: 1, block: { type: "text" } };
        yield { type: "text-delta", index: 1, text: "Hello " };
        yield { type: "text-delta", index: 1, text: "wor" };
        held.resolve();
        await hold.promise;
        yield { type: "text-delta", index: 1, text: "ld" };
        yield { type: "block-end", index: 1 };
        yield { type: "block-start", index: 2, block: { type: "tool-call", callId: "p1", name: "wait" } };
        yield { type: "tool-call-delta", index: 2, argumentsDelta: "{}" };
        yield { type: "block-end", index: 2 };
        yield { type: "finish", reason: "tool-calls" };
      },
    };
    const tool = defineTool({
      name: "wait",
      description: "waits",
      input: jsonSchema({ type: "object", properties: {} }),
      readOnly: true,
      execute: async () => "waited",
    });
    const agent = createAgent({ provider, model: "m", tools: [tool] });
    const outcome = agent.send("go");
    await held.promise;
    const feed = agent.follow({ from: agent.session.length - 1 }); // the step's start is the last logged event
    hold.resolve();
    const events = await drain(feed);
    await outcome;
    const step1 = events.filter((e) => "step" in e && e.step === 1 && e.type !== "step-start");
    const types = step1.map((e) => e.type).filter((type, i, all) => type !== all[i - 1]); // deltas may coalesce
    expect(types.slice(0, 6)).toEqual([
      "reasoning-start",
      "reasoning-delta",
      "reasoning-end",
      "text-start",
      "text-delta",
      "text-end",
    ]);
    expect(step1.find((e) => e.type === "reasoning-delta")).toMatchObject({ delta: "think" });
    expect(step1.find((e) => e.type === "tool-call-start")).toMatchObject({ callId: "call_1_1_2", name: "wait" });
    const text = step1.filter((e) => e.type === "text-delta").map((e) => (e as { delta: string }).delta);
    expect(text.join("")).toBe("Hello world");
    // Step 2 joined from its start: nothing replayed twice, and step 1's blocks are not replayed into it.
    const step2 = events.filter((e) => "step" in e && e.step === 2 && e.type.startsWith("text"));
    expect(step2.map((e) => e.type)).toEqual(["text-start", "text-delta", "text-end"]);
    // A feed that joins between steps (the turn over) replays nothing live.
    const after = await drain(agent.follow({ from: agent.session.length - 2 }));
    expect(after.some((e) => e.type.endsWith("-delta"))).toBe(false);
    await agent.dispose();
  });

  /** Counts the session observers added from now on that are still subscribed. */
  const countObservers = (session: { observe: (o: never) => () => void }): (() => number) => {
    let live = 0;
    const observe = session.observe.bind(session);
    session.observe = (observer: never) => {
      const off = observe(observer);
      live++;
      let on = true;
      return () => {
        if (on) live--;
        on = false;
        off();
      };
    };
    return () => live;
  };

  test("a follower dropped unread lets go of the agent when it goes idle: no listener on later turns (found from outside)", async () => {
    const agent = createAgent({ provider: new ScriptedProvider([], { fallback: { text: "ok" } }), model: "m" });
    const live = countObservers(agent.session as never);
    const first = agent.send("one");
    const dropped = agent.follow()[Symbol.asyncIterator]();
    await dropped.next(); // read once, then never again (no return())
    agent.follow(); // and one never iterated at all
    expect(live()).toBe(2);
    await first;
    expect(live()).toBe(0); // the agent went idle: both let go
    for (let i = 0; i < 3; i++) await agent.send(`more ${i}`);
    expect(live()).toBe(0);
    await agent.dispose();
  });

  test("a follower that lags through an idle reads on from the log, then follows a turn that started since, live", async () => {
    const hold = deferred();
    const held = deferred();
    let calls = 0;
    const provider: Provider = {
      id: "held",
      async *stream(): AsyncIterable<StreamChunk> {
        calls++;
        yield { type: "block-start", index: 0, block: { type: "text" } };
        yield { type: "text-delta", index: 0, text: `answer ${calls} ` };
        if (calls === 2) {
          held.resolve();
          await hold.promise;
        }
        yield { type: "text-delta", index: 0, text: "end" };
        yield { type: "block-end", index: 0 };
        yield { type: "finish", reason: "stop" };
      },
    };
    const agent = createAgent({ provider, model: "m" });
    const live = countObservers(agent.session as never);
    const follower = agent.follow()[Symbol.asyncIterator]();
    await agent.send("one"); // the follower read nothing of it: it let go at the idle
    expect(live()).toBe(0);
    const second = agent.send("two");
    await held.promise; // turn 2 in flight, mid-text
    const events: TurnEvent[] = [];
    for (;;) {
      const { done, value } = await follower.next();
      if (done) break;
      events.push(value);
      if (
        value.type === "text-delta" &&
        value.turn === 2 &&
        events.filter((e) => e.type === "text-delta" && e.turn === 2).length === 1
      )
        hold.resolve(); // caught up with turn 2 (its step so far): let it finish, live
    }
    await second;
    const committed = events.flatMap((e) => ("seq" in e ? [e.seq] : []));
    expect(committed).toEqual([...Array(agent.session.length).keys()]); // every committed event, in order
    expect(events.filter((e) => e.type === "turn-end").map((e) => (e as { turn: number }).turn)).toEqual([1, 2]);
    expect(events.filter((e) => e.type === "assistant-message")).toHaveLength(2);
    // Turn 2 streamed to it: the step so far as one delta when it caught up, then the rest live.
    const text2 = events
      .filter((e) => e.type === "text-delta" && e.turn === 2)
      .map((e) => (e as { delta: string }).delta);
    expect(text2).toEqual(["answer 2 ", "end"]);
    expect(live()).toBe(0); // it ended: nothing left subscribed
    await agent.dispose();
  });

  test("a position beyond the log, or not a seq, is a typed error and reads nothing", async () => {
    const agent = createAgent({ provider: new ScriptedProvider([{ text: "x" }]), model: "m" });
    await agent.send("go");
    expect(() => agent.follow({ from: Number.NaN })).toThrow(/from seq NaN: not an integer/); // not "null"
    for (const from of [1.5, -2, Number.NaN, null as unknown as number]) {
      expect(() => agent.follow({ from })).toThrow(LoopError);
      expect(() => agent.follow({ from })).toThrow(expect.objectContaining({ code: "invalid-position" }));
    }
    expect(() => agent.follow({ from: agent.session.length })).toThrow(
      expect.objectContaining({ code: "position-beyond-log", message: expect.stringMatching(/seqs 0\.\./) }),
    );
    for (const from of [2 ** 53, 1e21]) // integers past every log: 416's code, as keelson/serve's followFrom gives 20 digits
      expect(() => agent.follow({ from })).toThrow(expect.objectContaining({ code: "position-beyond-log" }));
    await agent.dispose();
  });
});
