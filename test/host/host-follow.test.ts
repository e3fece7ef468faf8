// host.follow (issue #22 §3–4): a reconnecting client's feed — the open agent's follow (the log
// after `from`, then the turn in flight live), or the stored log's committed events when the
// session is not open; an unknown session is HostError('not-found') and a `from` beyond the log
// HostError('position-beyond-log') (or 'invalid-position' for what is not a seq), before any event.
import { beforeEach, describe, expect, test } from "vitest";
import { z } from "zod";
import { type AgentHost, HostError } from "../../src/host/index.js";
import { ScriptedProvider } from "../../src/llm/index.js";
import { createAgent, type TurnEvent } from "../../src/loop/index.js";
import { JsonlSessionStore } from "../../src/store/index.js";
import { defineTool } from "../../src/tools/index.js";
import { deferred } from "../support/deferred.js";
import { drain, GatedModel, ManualClock, profileOf, refusal, useHostFixture } from "./support.js";

const fixture = useHostFixture();
let host: AgentHost;
let clock: ManualClock;
let model: GatedModel;
beforeEach(() => {
  clock = new ManualClock();
  model = new GatedModel(["held"]);
  host = fixture().host({ profile: profileOf(model.provider), idleMs: 1000, clock });
});

const seqs = (events: readonly TurnEvent[]): number[] => events.flatMap((e) => ("seq" in e ? [e.seq] : []));

describe("host.follow", () => {
  test("an open session: the events after `from`, then the turn in flight live to its end", async () => {
    await host.send("s1", "first");
    const length = (await drain(await host.follow("s1"))).length;
    const held = host.send("s1", "held");
    await model.called("held");
    const feed = await host.follow("s1", { from: length - 1 });
    model.release("held");
    const events = await drain(feed);
    await held;
    expect(events[0]).toMatchObject({ type: "turn-start", turn: 2, seq: length });
    expect(events.some((e) => e.type === "text-delta")).toBe(true); // live: the step started after the feed joined
    expect(events.at(-1)).toMatchObject({ type: "turn-end", turn: 2 });
  });

  test("a session that is not open (evicted): its committed events from the store", async () => {
    await host.send("s1", "one");
    await host.send("s1", "two");
    const whole = await drain(await host.follow("s1"));
    clock.advance(1000);
    expect(host.stats().open).toBe(0);
    const stored = await drain(await host.follow("s1"));
    expect(stored).toEqual(whole.filter((e) => "seq" in e));
    const tail = await drain(await host.follow("s1", { from: 3 }));
    expect(seqs(tail)).toEqual(seqs(whole).slice(4));
    expect(host.stats().open).toBe(0); // following opened nothing
  });

  // Found from outside: the stored follow ended cleanly, as if the session were idle, while its
  // turn ran in another process.
  test("a session whose turn another process runs: its committed events, then HostError('open-elsewhere')", async () => {
    const other = new JsonlSessionStore({ root: fixture().root }); // another process's store, same directory
    const started = deferred<void>();
    const finish = deferred<void>();
    const note = defineTool({
      name: "note",
      description: "takes a note",
      input: z.object({}),
      execute: async () => {
        started.resolve(); // its call was flushed before it ran: the open turn is on disk
        await finish.promise;
        return "noted";
      },
    });
    const provider = new ScriptedProvider([{ toolCalls: [{ name: "note", arguments: {} }] }], {
      fallback: { text: "done" },
    });
    const agent = createAgent({ provider, model: "scripted:m", tools: [note], store: other, sessionId: "elsewhere" });
    const turn = agent.send("go");
    await started.promise;
    const seen: TurnEvent[] = [];
    const feed = await host.follow("elsewhere");
    const error = await (async () => {
      for await (const event of feed) seen.push(event);
    })().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(HostError);
    expect(error).toMatchObject({ code: "open-elsewhere" });
    expect((error as Error).message).toMatch(/turn 1 of session elsewhere is open in the log, not in this host/);
    expect(seen[0]).toMatchObject({ type: "turn-start", turn: 1 });
    expect(seen.at(-1)).toMatchObject({ type: "tool-call-ready" });
    expect(host.stats().open).toBe(0); // following opened nothing
    finish.resolve();
    await turn;
    await agent.dispose();
    await other.close();
    const after = await drain(await host.follow("elsewhere")); // once it ended, the follow ends cleanly
    expect(after.at(-1)).toMatchObject({ type: "turn-end", turn: 1 });
  });

  test("an unknown session: HostError('not-found'); nothing is created", async () => {
    expect(await refusal(() => host.follow("nobody"))).toMatchObject({ code: "not-found" });
    expect(await fixture().store.list()).toEqual([]);
  });

  test("a position beyond the log: HostError('position-beyond-log'); not a seq: 'invalid-position' — open or stored", async () => {
    await host.send("s1", "one");
    const length = (await drain(await host.follow("s1"))).filter((e) => "seq" in e).length;
    for (const from of [1.5, -2, "3", null]) {
      expect(await refusal(() => host.follow("s1", { from: from as number }))).toMatchObject({
        code: "invalid-position",
      });
    }
    expect(await refusal(() => host.follow("s1", { from: length }))).toMatchObject({ code: "position-beyond-log" });
    expect(await refusal(() => host.follow("s1", { from: 2 ** 53 }))).toMatchObject({ code: "position-beyond-log" });
    clock.advance(1000);
    expect(await refusal(() => host.follow("s1", { from: length }))).toMatchObject({ code: "position-beyond-log" });
    expect(await refusal(() => host.follow("s1", { from: -1.5 }))).toMatchObject({ code: "invalid-position" });
    expect(seqs(await drain(await host.follow("s1", { from: length - 1 })))).toEqual([]);
  });

  test("right after a prompt is admitted, its agent still opening: follow waits for that turn and follows it", async () => {
    await host.send("s1", "one");
    clock.advance(1000); // evicted: the next prompt reopens it
    expect(host.stats().open).toBe(0);
    const sent = host.send("s1", "two");
    const feed = await host.follow("s1"); // no event has been logged for the prompt yet
    const events = await drain(feed);
    await sent;
    expect(events.filter((e) => e.type === "turn-end").map((e) => (e as { turn: number }).turn)).toEqual([1, 2]);
  });

  test("prompts the host still holds for the session are followed too: each turn live, in order, to the last", async () => {
    await host.send("s1", "first");
    const from = (await host.log("s1")).length - 1;
    const held = host.send("s1", "held");
    const queued = [host.send("s1", "next"), host.send("s1", "last")]; // waiting in the host, not in the agent
    await model.called("held");
    const feed = await host.follow("s1", { from });
    model.release("held");
    const events = await drain(feed);
    await Promise.all([held, ...queued]);
    const ends = events.filter((e) => e.type === "turn-end").map((e) => (e as { turn: number }).turn);
    expect(ends).toEqual([2, 3, 4]);
    expect(events.filter((e) => e.type === "text-delta").length).toBeGreaterThanOrEqual(3); // every turn live
    expect(seqs(events)).toEqual((await host.log("s1")).slice(from + 1).map((e) => e.seq)); // each once, in order
  });

  test("breaking off a follow through queued prompts cancels nothing", async () => {
    const held = host.send("s1", "held");
    const queued = host.send("s1", "next");
    await model.called("held");
    const feed = await host.follow("s1");
    model.release("held");
    for await (const event of feed) if (event.type === "turn-start") break;
    expect((await held).reason).toEqual({ kind: "completed" });
    expect((await queued).reason).toEqual({ kind: "completed" });
  });

  test("a new session whose first prompt is admitted is followed, not 'not-found'", async () => {
    const sent = host.send("fresh", "hello");
    const events = await drain(await host.follow("fresh"));
    await sent;
    expect(events[0]).toMatchObject({ type: "turn-start", turn: 1, seq: 0 });
    expect(events.at(-1)).toMatchObject({ type: "turn-end", turn: 1 });
  });

  test("a prompt whose agent cannot open: follow does not wait for ever", async () => {
    const sent = host.send("s1", "x", { profile: "nope" }).catch((error: unknown) => error);
    expect(await refusal(() => host.follow("s1"))).toMatchObject({ code: "not-found" });
    expect(await sent).toBeDefined();
  });

  test("host.log: the open agent's events, then the same read from the store once evicted; not-found, nothing created", async () => {
    await host.send("s1", "one");
    const open = await host.log("s1");
    expect(Object.isFrozen(open)).toBe(true);
    expect(open.map((e) => e.type)).toContain("turn/end");
    await host.send("s1", "two");
    expect(open.filter((e) => e.type === "turn/end")).toHaveLength(1); // a snapshot: later appends do not change it
    const live = await host.log("s1");
    clock.advance(1000);
    expect(host.stats().open).toBe(0);
    expect((await host.log("s1")).map((e) => e.seq)).toEqual(live.map((e) => e.seq));
    expect(host.stats().open).toBe(0); // reading opened nothing
    expect(await refusal(() => host.log("nobody"))).toMatchObject({ code: "not-found" });
    expect(await refusal(() => host.log("../x"))).toMatchObject({ code: "invalid-id" });
    expect((await fixture().store.list()).map((s) => s.id)).toEqual(["s1"]);
  });
});
