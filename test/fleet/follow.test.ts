// Following turns across processes (decision 0014), on the run's PostgreSQL: a worker in this
// process (its own pool) and a client on another pool. A gated provider holds its step open
// after its first deltas, so "the client saw deltas before the step ended" is a fact the test
// arranges, not a timing. Also: late connect, a queued turn, a whole session, the negative
// (nobody follows: nothing on any live channel) and unknown turns and sessions.
import pg from "pg";
import { afterEach, describe, expect, test } from "vitest";
import { FleetError, liveChannel } from "../../src/fleet/index.js";
import type { Provider, StreamChunk } from "../../src/llm/core.js";
import { committedTurnEvent, type TurnEvent } from "../../src/loop/index.js";
import type { SessionEvent } from "../../src/session/index.js";
import { type Deferred, deferred } from "../support/deferred.js";
import { useFleetDatabase } from "./fleet-harness.js";
import { profiles } from "./fixtures/fleet-profiles.mjs";

const database = useFleetDatabase();

/** The error `run` rejects with (failing the test when it resolves). */
async function rejection(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}
const listeners: pg.Client[] = [];
afterEach(async () => {
  for (const client of listeners.splice(0)) await client.end().catch(() => undefined);
});

/** A provider that streams `first`, waits for `gate`, then streams `rest` and a tool call (step 1) or text (step 2). */
function gatedProvider(gate: Deferred<void>, first: readonly string[], rest: readonly string[]): Provider {
  let calls = 0;
  return {
    id: "gated",
    async *stream(request): AsyncGenerator<StreamChunk> {
      calls++;
      if (calls > 1) {
        yield { type: "block-start", index: 0, block: { type: "text" } };
        yield { type: "text-delta", index: 0, text: "done after the tool" };
        yield { type: "block-end", index: 0 };
        yield { type: "finish", reason: "stop" };
        return;
      }
      yield { type: "block-start", index: 0, block: { type: "text" } };
      for (const text of first) yield { type: "text-delta", index: 0, text };
      await Promise.race([
        gate.promise,
        new Promise((resolve) => request.signal.addEventListener("abort", resolve, { once: true })),
      ]);
      for (const text of rest) yield { type: "text-delta", index: 0, text };
      yield { type: "block-end", index: 0 };
      yield {
        type: "block-start",
        index: 1,
        block: { type: "tool-call", callId: "toolu_provider_1", name: "echo_tool" },
      };
      yield { type: "tool-call-delta", index: 1, argumentsDelta: '{"say":' };
      yield { type: "tool-call-delta", index: 1, argumentsDelta: '"hi"}' };
      yield { type: "block-end", index: 1 };
      yield { type: "finish", reason: "tool-calls" };
    },
  };
}

const echoTool = {
  name: "echo_tool",
  description: "says what it is told",
  input: { type: "object", properties: { say: { type: "string" } } },
  readOnly: true,
  execute: async (args: { say?: string }) => `said ${args.say ?? ""}`,
};

function gatedProfile(gate: Deferred<void>) {
  return {
    gated: {
      provider: () => gatedProvider(gate, ["Hel", "lo"], [" wor", "ld"]),
      model: "gated",
      tools: [echoTool],
      options: { invariants: true, maxSteps: 4 },
    },
  };
}

/**
 * Resolves once a follower has marked `sessionId` watched (its watch is up): a worker that starts
 * a turn from then on publishes it from its `turn/start`. Polls a fact, not a duration.
 */
async function untilWatched(sessionId: string): Promise<void> {
  for (;;) {
    const [row] = await database().query<{ watched: boolean }>(
      "SELECT coalesce(watched_until > now(), false) AS watched FROM keelson_sessions WHERE id = $1",
      [sessionId],
    );
    if (row?.watched === true) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function storedEvents(sessionId: string): Promise<readonly SessionEvent[]> {
  const { session } = await database().store().load(sessionId, { readOnly: true });
  return session.events;
}

/** The log's turn events from the turn's `turn/start` to its `turn/end`. */
function loggedTurn(events: readonly SessionEvent[], startSeq: number): TurnEvent[] {
  const out: TurnEvent[] = [];
  for (const event of events.slice(startSeq)) {
    if (out.length === 0 && event.type !== "turn/start") continue;
    out.push(committedTurnEvent(event));
    if (event.type === "turn/end") break;
  }
  return out;
}

const committedOf = (events: readonly TurnEvent[]): TurnEvent[] => events.filter((e) => "seq" in e);

async function collect(stream: AsyncIterable<TurnEvent>): Promise<TurnEvent[]> {
  const events: TurnEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

describe("a client on another pool follows a turn a worker runs", () => {
  test("deltas arrive before the step ends, in order, with the log's ids; the committed events are the log's", async () => {
    const gate = deferred();
    const client = await database().client();
    const id = await client.enqueueTurn({ sessionId: "follow-gated", prompt: "hello", profile: "gated" });
    const seen: TurnEvent[] = [];
    let opened = false;
    const stream = client.stream(id);
    await untilWatched("follow-gated");
    await database().worker({ profiles: gatedProfile(gate) });
    for await (const event of stream) {
      seen.push(event);
      // The provider waits on the gate after "Hel" "lo": both are here, and the step is still open.
      const text = seen.flatMap((e) => (e.type === "text-delta" ? [e.delta] : [])).join("");
      if (text === "Hello" && !opened) {
        expect(seen.some((e) => e.type === "step-end" || e.type === "assistant-message")).toBe(false);
        opened = true;
        gate.resolve();
      }
    }
    expect(opened).toBe(true);
    const types = seen.map((e) => e.type);
    expect(types[0]).toBe("turn-start");
    expect(types.at(-1)).toBe("turn-end");
    expect(types.indexOf("text-delta")).toBeGreaterThan(types.indexOf("step-start"));
    expect(types.indexOf("text-delta")).toBeLessThan(types.indexOf("assistant-message"));
    expect(
      seen
        .flatMap((e) => (e.type === "text-delta" ? [e.delta] : []))
        .join("")
        .startsWith("Hello world"),
    ).toBe(true);
    // The live tool call carries the log's callId from its first delta on.
    const record = await client.awaitTurn(id, { timeoutMs: 20_000 });
    expect(record.status).toBe("done");
    const log = await storedEvents("follow-gated");
    const logged = loggedTurn(log, record.startSeq!);
    const call = logged.find((e) => e.type === "tool-call-ready");
    expect(call).toBeDefined();
    const liveCall = seen.filter((e) => e.type === "tool-call-start" || e.type === "tool-call-delta");
    expect(liveCall.length).toBeGreaterThan(0);
    for (const e of liveCall) expect((e as { callId: string }).callId).toBe((call as { callId: string }).callId);
    // Every committed event is the log's, seq for seq, each once, in order.
    expect(committedOf(seen)).toEqual(logged);
  });

  test("a client that connects after the turn ended gets the turn's committed events from the log", async () => {
    await database().worker({ profiles });
    const client = await database().client();
    const id = await client.enqueueTurn({ sessionId: "follow-late", prompt: "late hello", profile: "echo" });
    const record = await client.awaitTurn(id, { timeoutMs: 20_000 });
    const late = await database().client();
    const seen = await collect(late.stream(id));
    expect(seen).toEqual(loggedTurn(await storedEvents("follow-late"), record.startSeq!));
    expect(seen.at(-1)).toMatchObject({ type: "turn-end", reason: { kind: "completed" } });
  });

  test("a client that connects mid-step gets the committed events so far, then the rest", async () => {
    const gate = deferred();
    const client = await database().client();
    const id = await client.enqueueTurn({ sessionId: "follow-mid", prompt: "hello", profile: "gated" });
    // A first follower sees the step open (the gate holds it); the second connects only then.
    const first = client.stream(id);
    await untilWatched("follow-mid");
    await database().worker({ profiles: gatedProfile(gate) });
    for await (const event of first) if (event.type === "text-delta") break;
    const second = await database().client();
    const stream = second.stream(id);
    const seen: TurnEvent[] = [];
    const drained = (async () => {
      for await (const event of stream) seen.push(event);
    })();
    gate.resolve();
    await drained;
    const record = await client.awaitTurn(id, { timeoutMs: 20_000 });
    expect(committedOf(seen)).toEqual(loggedTurn(await storedEvents("follow-mid"), record.startSeq!));
  });

  test("following a queued turn: it waits behind the session's earlier turn, then streams only its own", async () => {
    const client = await database().client();
    const firstId = await client.enqueueTurn({ sessionId: "follow-queued", prompt: "one", profile: "echo" });
    const secondId = await client.enqueueTurn({ sessionId: "follow-queued", prompt: "two", profile: "echo" });
    const follower = await database().client();
    const seen = collect(follower.stream(secondId));
    await untilWatched("follow-queued");
    await database().worker({ profiles }); // no worker until both are queued and followed
    const events = await seen;
    const record = await client.awaitTurn(secondId, { timeoutMs: 20_000 });
    expect((await client.turn(firstId)).status).toBe("done");
    expect(events[0]).toMatchObject({ type: "turn-start", turn: 2 });
    expect(events.at(-1)).toMatchObject({ type: "turn-end", turn: 2 });
    expect(committedOf(events)).toEqual(loggedTurn(await storedEvents("follow-queued"), record.startSeq!));
    expect(events.some((e) => e.type === "text-delta")).toBe(true);
  });

  test("streamSession: the log after `from`, then each queued turn as it runs; ends when the session is idle", async () => {
    const client = await database().client();
    const done = await client.enqueueTurn({ sessionId: "follow-session", prompt: "zero", profile: "echo" });
    await database().worker({ profiles });
    await client.awaitTurn(done, { timeoutMs: 20_000 });
    const before = (await storedEvents("follow-session")).length;
    const a = await client.enqueueTurn({ sessionId: "follow-session", prompt: "one", profile: "echo" });
    const b = await client.enqueueTurn({ sessionId: "follow-session", prompt: "two", profile: "echo" });
    const events = await collect(client.streamSession("follow-session", { from: before - 2 }));
    await client.awaitTurn(b, { timeoutMs: 20_000 });
    expect((await client.turn(a)).status).toBe("done");
    const log = await storedEvents("follow-session");
    expect(committedOf(events)).toEqual(log.slice(before - 1).map(committedTurnEvent));
    expect(events.filter((e) => e.type === "turn-end").map((e) => (e as { turn: number }).turn)).toEqual([1, 2, 3]);
  });
});

test("nobody follows: the worker sends nothing on the session's live channel; a follower then receives its turn there", async () => {
  const worker = await database().worker({ profiles });
  const listener = new pg.Client({ connectionString: database().url });
  listeners.push(listener);
  await listener.connect();
  const heard: string[] = [];
  listener.on("notification", (message) => heard.push(message.channel));
  await listener.query(`LISTEN ${liveChannel("follow-none")}`);
  const client = await database().client();
  const id = await client.enqueueTurn({ sessionId: "follow-none", prompt: "unwatched", profile: "echo" });
  await client.awaitTurn(id, { timeoutMs: 20_000 });
  await listener.query("SELECT 1"); // a round trip on the listener: a notification sent before it has arrived
  expect(heard).toEqual([]);
  // The same listener hears the next turn once a client follows it (run by a new worker, started
  // once the follower is watching: the turn is published from its start).
  await worker.stop();
  const next = await client.enqueueTurn({ sessionId: "follow-none", prompt: "watched", profile: "echo" });
  const followed = collect(client.stream(next));
  await untilWatched("follow-none");
  await database().worker({ profiles });
  await followed;
  await listener.query("SELECT 1");
  expect(heard.length).toBeGreaterThan(0);
  expect(new Set(heard)).toEqual(new Set([liveChannel("follow-none")]));
});

describe("unknown turns and sessions", () => {
  test("an unknown turn id is FleetError not-found, from the first next()", async () => {
    const client = await database().client();
    for (const id of ["999999", "not-a-number"]) {
      const error = await rejection(() => client.stream(id).next());
      expect(error).toBeInstanceOf(FleetError);
      expect((error as FleetError).code).toBe("not-found");
    }
  });

  test("an unknown session is not-found; a `from` beyond the log is invalid-position", async () => {
    const client = await database().client();
    expect(await rejection(() => client.streamSession("no-such-session").next())).toMatchObject({ code: "not-found" });
    await client.createSession({ id: "follow-empty" });
    expect(await rejection(() => client.streamSession("follow-empty", { from: 0 }).next())).toMatchObject({
      code: "invalid-position",
    });
  });
});
