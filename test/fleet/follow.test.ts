// Following turns across processes (decision 0016), on the run's PostgreSQL: a worker in this
// process (its own pool) and a client on another pool. A gated provider holds its step open
// after its first deltas, so "the client saw deltas before the step ended" is a fact the test
// arranges, not a timing. Also: late connect, a queued turn, a whole session, the negative
// (nobody follows: nothing on any live channel) and unknown turns and sessions.
import pg from "pg";
import { afterEach, describe, expect, test } from "vitest";
import { announcementText } from "../../src/fleet/follow-announcement.js";
import { FollowSeal } from "../../src/fleet/follow-seal.js";
import { decodeMessage, FrameAssembler } from "../../src/fleet/follow-wire.js";
import { FleetError, liveChannel, rotateFollowKey } from "../../src/fleet/index.js";
import type { Provider, StreamChunk } from "../../src/llm/core.js";
import { committedTurnEvent, type TurnEvent } from "../../src/loop/index.js";
import { readSSE, toSSE } from "../../src/serve/index.js";
import type { SessionEvent } from "../../src/session/index.js";
import { type Deferred, deferred } from "../support/deferred.js";
import { until } from "../support/until.js";
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

/**
 * Step 1: streams "Hel" "lo", waits for `gates.text`, streams " wor" "ld" and a tool call's start
 * and argument deltas, waits for `gates.call`, then ends the step (the call runs). Step 2: text.
 */
function gatedProvider(gates: { text: Deferred<void>; call: Deferred<void>; reached?: Deferred<void> }): Provider {
  let calls = 0;
  return {
    id: "gated",
    async *stream(request): AsyncGenerator<StreamChunk> {
      const gate = (d: Deferred<void>) =>
        Promise.race([d.promise, new Promise((resolve) => request.signal.addEventListener("abort", resolve))]);
      calls++;
      if (calls > 1) {
        yield { type: "block-start", index: 0, block: { type: "text" } };
        yield { type: "text-delta", index: 0, text: "done after the tool" };
        yield { type: "block-end", index: 0 };
        yield { type: "finish", reason: "stop" };
        return;
      }
      yield { type: "block-start", index: 0, block: { type: "text" } };
      yield { type: "text-delta", index: 0, text: "Hel" };
      yield { type: "text-delta", index: 0, text: "lo" };
      gates.reached?.resolve();
      await gate(gates.text);
      yield { type: "text-delta", index: 0, text: " wor" };
      yield { type: "text-delta", index: 0, text: "ld" };
      yield { type: "block-end", index: 0 };
      const call = { type: "tool-call", callId: "toolu_provider_1", name: "echo_tool" } as const;
      yield { type: "block-start", index: 1, block: call };
      yield { type: "tool-call-delta", index: 1, argumentsDelta: '{"say":' };
      yield { type: "tool-call-delta", index: 1, argumentsDelta: '"hi"}' };
      await gate(gates.call);
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

function gatedProfile(gates: { text: Deferred<void>; call: Deferred<void>; reached?: Deferred<void> }) {
  return {
    gated: {
      provider: () => gatedProvider(gates),
      model: "gated",
      tools: [echoTool],
      options: { invariants: true, maxSteps: 4 },
    },
  };
}

/**
 * Resolves once a follower has marked queued turn `turnId` followed: the worker that starts it
 * publishes it from its `turn/start`. Polls a fact, not a duration.
 */
async function untilFollowed(turnId: string): Promise<void> {
  for (;;) {
    const [row] = await database().query<{ watched: boolean }>(
      "SELECT coalesce(followed_until > now(), false) AS watched FROM keelson_turns WHERE id = $1",
      [turnId],
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
  // Whatever a test did, its held steps end before the harness closes the worker (which waits for
  // running turns): a failing test fails, it does not hang. This describe's hook runs first.
  const heldGates: { text: Deferred<void>; call: Deferred<void> }[] = [];
  afterEach(() => {
    for (const gates of heldGates.splice(0)) {
      gates.text.resolve();
      gates.call.resolve();
    }
  });
  test("deltas arrive before the step ends, in order, with the log's ids; the committed events are the log's", async () => {
    const gates = { text: deferred(), call: deferred() };
    const client = await database().client();
    const id = await client.enqueueTurn({ sessionId: "follow-gated", prompt: "hello", profile: "gated" });
    const stream = client.stream(id);
    await untilFollowed(id);
    await database().worker({ profiles: gatedProfile(gates) });
    const seen: TurnEvent[] = [];
    const stepEnded = (): boolean => seen.some((e) => e.type === "step-end" || e.type === "assistant-message");
    const text = (): string => seen.flatMap((e) => (e.type === "text-delta" ? [e.delta] : [])).join("");
    const args = (): string => seen.flatMap((e) => (e.type === "tool-call-delta" ? [e.delta] : [])).join("");
    let opened = 0;
    for await (const event of stream) {
      seen.push(event);
      // The provider holds its step open at each gate: what arrived by then arrived before the step's end.
      if (opened === 0 && text() === "Hello") {
        expect(stepEnded()).toBe(false);
        opened = 1;
        gates.text.resolve();
      } else if (opened === 1 && args() === '{"say":"hi"}') {
        expect(stepEnded()).toBe(false);
        expect(text()).toBe("Hello world");
        opened = 2;
        gates.call.resolve();
      }
    }
    expect(opened).toBe(2);
    const types = seen.map((e) => e.type);
    expect(types[0]).toBe("turn-start");
    expect(types.at(-1)).toBe("turn-end");
    const record = await client.awaitTurn(id, { timeoutMs: 20_000 });
    expect(record.status).toBe("done");
    const logged = loggedTurn(await storedEvents("follow-gated"), record.startSeq!);
    // The live tool call carries the log's callId from its first delta on (not the provider's id).
    const call = logged.find((e) => e.type === "tool-call-ready") as { callId: string };
    const live = seen.filter((e) => e.type === "tool-call-start" || e.type === "tool-call-delta");
    expect(live[0]?.type).toBe("tool-call-start"); // then its argument deltas (coalesced or not)
    expect(live.slice(1).every((e) => e.type === "tool-call-delta")).toBe(true);
    for (const e of live) expect((e as { callId: string }).callId).toBe(call.callId);
    expect(call.callId).not.toBe("toolu_provider_1");
    // The live events sit between the step's start and its answer; every committed event is the
    // log's, seq for seq, each once, in order.
    expect(types.indexOf("text-delta")).toBeGreaterThan(types.indexOf("step-start"));
    expect(types.lastIndexOf("tool-call-delta")).toBeLessThan(types.indexOf("assistant-message"));
    expect(committedOf(seen)).toEqual(logged);
  });

  test("through SSE, a follower gives an id only to what PostgreSQL holds: the worker's events come live before they are saved (found from outside)", async () => {
    const gates = { text: deferred(), call: deferred() };
    heldGates.push(gates);
    const client = await database().client();
    const id = await client.enqueueTurn({ sessionId: "follow-durable-ids", prompt: "hello", profile: "gated" });
    const reader = readSSE(toSSE(client.stream(id), { keepAliveMs: 0 }));
    await untilFollowed(id);
    await database().worker({ profiles: gatedProfile(gates) });
    const logged = async (): Promise<number> => (await storedEvents("follow-durable-ids")).length;
    let text = "";
    let withheld = 0;
    let last: TurnEvent | undefined;
    for await (const event of reader) {
      last = event;
      expect(Number(reader.lastEventId ?? -1)).toBeLessThan(await logged());
      if ("seq" in event && reader.lastEventId !== String(event.seq)) withheld++;
      if (event.type === "text-delta") text += event.delta;
      if (text === "Hello") {
        text = "Hello!";
        gates.text.resolve(); // the step's first events were streamed before any flush
      }
      if (event.type === "tool-call-delta") gates.call.resolve();
    }
    expect(withheld).toBeGreaterThan(0);
    expect(last?.type).toBe("turn-end");
    expect(reader.lastEventId).toBe(String((last as { seq: number }).seq)); // the end is the log's: positioned there
  });

  test("a turn follower's position moves on after each step's flush, mid-turn — not only at the turn's end (found from outside)", async () => {
    // Step 1 calls the tool; step 2 streams one delta per gate the test opens, and ends when
    // `end` opens. The worker's messages say how far its log is durable; a follower that hears
    // it past what it delivered live reads the log. The test opens one more gate per delta until
    // the follower's position covers step 1 — on the old follower it stayed at the turn's start
    // (its first read came with the turn's end), so the bound below is reached.
    const steps = { end: deferred(), next: [] as Deferred<void>[] };
    heldGates.push({ text: steps.end, call: steps.end });
    let calls = 0;
    const provider: Provider = {
      id: "stepwise",
      async *stream(request): AsyncGenerator<StreamChunk> {
        const aborted = new Promise((resolve) => request.signal.addEventListener("abort", resolve));
        if (++calls === 1) {
          yield { type: "block-start", index: 0, block: { type: "tool-call", callId: "toolu_1", name: "echo_tool" } };
          yield { type: "tool-call-delta", index: 0, argumentsDelta: '{"say":"one"}' };
          yield { type: "block-end", index: 0 };
          yield { type: "finish", reason: "tool-calls" };
          return;
        }
        yield { type: "block-start", index: 0, block: { type: "text" } };
        for (let i = 0; ; i++) {
          yield { type: "text-delta", index: 0, text: `d${i} ` };
          const gate = deferred();
          steps.next.push(gate);
          if (
            (await Promise.race([gate.promise.then(() => "next"), steps.end.promise.then(() => "end"), aborted])) !==
            "next"
          )
            break;
        }
        yield { type: "block-end", index: 0 };
        yield { type: "finish", reason: "stop" };
      },
    };
    const profile = {
      stepwise: { provider: () => provider, model: "stepwise", tools: [echoTool], options: { maxSteps: 4 } },
    };
    const client = await database().client();
    const id = await client.enqueueTurn({ sessionId: "follow-durable-mid-turn", prompt: "hello", profile: "stepwise" });
    const stream = client.stream(id);
    await untilFollowed(id);
    await database().worker({ profiles: profile });
    let stepOneEnd: number | undefined;
    let coveredMidTurn = false;
    let deltas = 0;
    for await (const event of stream) {
      if (event.type === "step-end" && stepOneEnd === undefined) stepOneEnd = event.seq;
      if (event.type !== "text-delta") continue;
      if (stepOneEnd !== undefined && stream.durableThrough() >= stepOneEnd) {
        coveredMidTurn = true;
        steps.end.resolve();
      } else if (++deltas < 200) steps.next.at(-1)?.resolve();
      else steps.end.resolve();
    }
    expect(stepOneEnd).toBeDefined();
    expect(coveredMidTurn).toBe(true);
    // And the position never names an event PostgreSQL does not hold.
    expect(stream.durableThrough()).toBeLessThan((await storedEvents("follow-durable-mid-turn")).length);
  }, 20_000);

  test("a client that connects after the turn ended gets the turn's committed events from the log", async () => {
    await database().worker({ profiles });
    const client = await database().client();
    const id = await client.enqueueTurn({ sessionId: "follow-late", prompt: "late hello", profile: "echo" });
    const record = await client.awaitTurn(id, { timeoutMs: 20_000 });
    const late = await database().client();
    const seen = await collect(late.stream(id));
    expect(seen).toEqual(loggedTurn(await storedEvents("follow-late"), record.startSeq!));
    expect(seen.at(-1)).toMatchObject({ type: "turn-end", reason: { kind: "completed" } });
    // The same turn when its id is given as a number, as turn() and awaitTurn() take it (it was "gone": found from outside).
    expect(await collect(late.stream(Number(id) as unknown as string))).toEqual(seen);
    // And zero-padded, or as a bigint (was not-found: "gone from the log").
    expect(await collect(late.stream(`00${id}`))).toEqual(seen);
    expect(await collect(late.stream(BigInt(id) as unknown as string))).toEqual(seen);
  });

  test("a client whose first look finds the turn running mid-step gets the turn from its start before the step ends", async () => {
    // Nobody followed the turn while it was queued: the worker publishes only once this client
    // announces it, mid-step, before the step's first flush — the turn's first events are in
    // no log yet. It must get them (and the rest) without waiting for the step to end.
    const gates = { text: deferred(), call: deferred(), reached: deferred() };
    const client = await database().client();
    await database().worker({ profiles: gatedProfile(gates) });
    const id = await client.enqueueTurn({ sessionId: "follow-running", prompt: "hello", profile: "gated" });
    await gates.reached.promise; // the step is open, held at its first gate
    const seen: TurnEvent[] = [];
    for await (const event of client.stream(id)) {
      seen.push(event);
      if (event.type === "turn-start") {
        expect(seen.some((e) => e.type === "assistant-message")).toBe(false); // the step has not ended
        gates.text.resolve();
        gates.call.resolve();
      }
    }
    const record = await client.awaitTurn(id, { timeoutMs: 20_000 });
    expect(committedOf(seen)).toEqual(loggedTurn(await storedEvents("follow-running"), record.startSeq!));
    expect(seen.some((e) => e.type === "text-delta")).toBe(true);
  }, 20_000);

  test("a client that connects mid-step gets the committed events so far, then the rest", async () => {
    const gates = { text: deferred(), call: deferred() };
    const client = await database().client();
    const id = await client.enqueueTurn({ sessionId: "follow-mid", prompt: "hello", profile: "gated" });
    // A first follower sees the step open (the gate holds it); the second connects only then.
    const first = client.stream(id);
    await untilFollowed(id);
    await database().worker({ profiles: gatedProfile(gates) });
    for await (const event of first) if (event.type === "text-delta") break;
    const second = await database().client();
    const stream = second.stream(id);
    const seen: TurnEvent[] = [];
    const drained = (async () => {
      for await (const event of stream) seen.push(event);
    })();
    gates.text.resolve();
    gates.call.resolve();
    await drained;
    const record = await client.awaitTurn(id, { timeoutMs: 20_000 });
    expect(committedOf(seen)).toEqual(loggedTurn(await storedEvents("follow-mid"), record.startSeq!));
  });

  test("a second follower that joins mid-step gets the step so far (each block's start, then its text) live, before the step ends; the first gets nothing twice (found from outside)", async () => {
    // Before: the worker published the step so far only to the first follower; a second one heard
    // nothing live until the step's flush, then a text delta without its text-start.
    const gates = { text: deferred(), call: deferred() };
    const client = await database().client();
    const id = await client.enqueueTurn({ sessionId: "follow-second", prompt: "hello", profile: "gated" });
    heldGates.push(gates);
    const first = client.stream(id);
    await untilFollowed(id);
    await database().worker({ profiles: gatedProfile(gates) });
    const firstSeen: TurnEvent[] = [];
    for await (const event of first) {
      firstSeen.push(event);
      if (event.type === "text-delta" && textOf(firstSeen) === "Hello") break; // the step is held at its first gate
    }
    const second = await database().client();
    const secondSeen: TurnEvent[] = [];
    for await (const event of second.stream(id)) {
      secondSeen.push(event);
      if (textOf(secondSeen) === "Hello") {
        expect(secondSeen.some((e) => e.type === "assistant-message")).toBe(false); // live, not from the step's flush
        gates.text.resolve();
        gates.call.resolve();
      }
    }
    const record = await client.awaitTurn(id, { timeoutMs: 20_000 });
    const logged = loggedTurn(await storedEvents("follow-second"), record.startSeq!);
    expect(committedOf(secondSeen)).toEqual(logged);
    expect(textOf(secondSeen)).toBe("Hello world");
    expect(blockOrderFaults(secondSeen)).toEqual([]);
    // What the first follower took before it stopped: in order too.
    expect(blockOrderFaults(firstSeen)).toEqual([]);
    expect(textOf(firstSeen)).toBe("Hello");
  }, 30_000);

  test("a follower whose LISTEN connection is cut mid-step listens again by itself; the blocks streamed after come live, whole, never a delta without its start (found from outside)", async () => {
    const gates = { text: deferred(), call: deferred() };
    const client = await database().client();
    const id = await client.enqueueTurn({ sessionId: "follow-cut", prompt: "hello", profile: "gated" });
    heldGates.push(gates);
    const seen: TurnEvent[] = [];
    const hello = deferred();
    const args = deferred();
    const following = (async () => {
      for await (const event of client.stream(id)) {
        seen.push(event);
        if (textOf(seen) === "Hello") hello.resolve();
        if (argsOf(seen) === '{"say":"hi"}') args.resolve();
      }
    })();
    await untilFollowed(id);
    await database().worker({ profiles: gatedProfile(gates) });
    await hello.promise; // the step is held at its first gate
    const listeners = async () =>
      database().query<{ pid: number }>(
        "SELECT pid FROM pg_stat_activity WHERE application_name = 'keelson-client' AND query LIKE 'LISTEN keelson_live_%' AND datname = current_database()",
      );
    const [cut] = await listeners();
    expect(cut).toBeDefined();
    await database().query("SELECT pg_terminate_backend($1)", [cut!.pid]);
    await until(async () => (await listeners()).some((l) => l.pid !== cut!.pid), "the follower to LISTEN again");
    gates.text.resolve(); // the rest of the text, then a tool call, held before the step ends
    await args.promise;
    expect(seen.some((e) => e.type === "assistant-message")).toBe(false); // live, not from the step's flush
    gates.call.resolve();
    await following;
    const record = await client.awaitTurn(id, { timeoutMs: 20_000 });
    expect(committedOf(seen)).toEqual(loggedTurn(await storedEvents("follow-cut"), record.startSeq!));
    expect(blockOrderFaults(seen)).toEqual([]);
    expect(textOf(seen)).toBe("Hello world"); // nothing was sent while it was cut: no gap, nothing stopped
  }, 30_000);

  test("two followers at once, the second joining mid-step: both get every block once, in order, the text exactly once", async () => {
    const gates = { text: deferred(), call: deferred() };
    const client = await database().client();
    const id = await client.enqueueTurn({ sessionId: "follow-two", prompt: "hello", profile: "gated" });
    heldGates.push(gates);
    const firstSeen: TurnEvent[] = [];
    const secondSeen: TurnEvent[] = [];
    const hello = deferred();
    const firstDone = (async () => {
      for await (const event of client.stream(id)) {
        firstSeen.push(event);
        if (textOf(firstSeen) === "Hello") hello.resolve();
      }
    })();
    await untilFollowed(id);
    await database().worker({ profiles: gatedProfile(gates) });
    await hello.promise;
    const second = await database().client();
    for await (const event of second.stream(id)) {
      secondSeen.push(event);
      if (textOf(secondSeen) === "Hello") {
        gates.text.resolve();
        gates.call.resolve();
      }
    }
    await firstDone;
    const record = await client.awaitTurn(id, { timeoutMs: 20_000 });
    const logged = loggedTurn(await storedEvents("follow-two"), record.startSeq!);
    for (const seen of [firstSeen, secondSeen]) {
      expect(committedOf(seen)).toEqual(logged);
      expect(textOf(seen)).toBe("Hello world");
      expect(argsOf(seen)).toBe('{"say":"hi"}');
      expect(blockOrderFaults(seen)).toEqual([]);
    }
  }, 30_000);

  test("one follower that listened before the claim: the worker never restarts the publication (decision 0038); a second one that comes later makes it restart once", async () => {
    const gates = { text: deferred(), call: deferred() };
    const listener = new pg.Client({ connectionString: database().url });
    listeners.push(listener);
    await listener.connect();
    const payloads: string[] = [];
    listener.on("notification", (message) => payloads.push(message.payload ?? ""));
    await listener.query(`LISTEN ${liveChannel("follow-fresh")}`);
    const [secret] = await database().query<{ follow_key: Buffer }>("SELECT follow_key FROM keelson_fleet_secret");
    const key = secret!.follow_key;
    const restarts = (): boolean[] => {
      const frames = new FrameAssembler();
      const seal = new FollowSeal(key);
      return payloads.flatMap((payload) => {
        const sealed = frames.push(payload);
        const text = sealed === undefined ? undefined : seal.open(liveChannel("follow-fresh"), sealed);
        const message = text === undefined ? undefined : decodeMessage(text);
        return message === undefined ? [] : [message.restart];
      });
    };
    const client = await database().client();
    const id = await client.enqueueTurn({ sessionId: "follow-fresh", prompt: "hello", profile: "gated" });
    const first = collect(client.stream(id));
    heldGates.push(gates);
    await untilFollowed(id); // queued when it looked: it listens before the claim
    const reached = deferred();
    await database().worker({ profiles: gatedProfile({ ...gates, reached }) });
    await reached.promise;
    const second = await database().client();
    const late: TurnEvent[] = [];
    for await (const event of second.stream(id)) {
      late.push(event);
      if (textOf(late) === "Hello") {
        gates.text.resolve();
        gates.call.resolve();
      }
    }
    await first;
    await listener.query("SELECT 1");
    const marks = restarts();
    expect(marks.length).toBeGreaterThan(1);
    expect(marks.filter((r) => r)).toHaveLength(1); // the second follower's, once
  }, 30_000);

  test("the follow key rotated under a running worker and client: a turn followed after it streams live (deltas before the step ends) to a client that read the new key and to one that read the old, with no restart", async () => {
    // One session a turn: each turn's agent, and so its gated provider, is its own.
    const turnGates = [0, 1, 2].map(() => ({ text: deferred(), call: deferred() }));
    heldGates.push(...turnGates);
    let started = 0;
    const rotating = {
      gated: {
        provider: () => gatedProvider(turnGates[started++]!),
        model: "gated",
        tools: [echoTool],
        options: { invariants: true, maxSteps: 4 },
      },
    };
    const key = async (): Promise<Buffer> =>
      (await database().query<{ follow_key: Buffer }>("SELECT follow_key FROM keelson_fleet_secret"))[0]!.follow_key;
    await database().worker({ profiles: rotating });
    const old = await database().client();
    const follow = async (client: typeof old, sessionId: string, gates: (typeof turnGates)[number]) => {
      const id = await client.enqueueTurn({ sessionId, prompt: "hello", profile: "gated" });
      const live = await liveThroughGates(client.stream(id), gates);
      expect((await client.awaitTurn(id, { timeoutMs: 20_000 })).status).toBe("done");
      return live;
    };
    expect(await follow(old, "rotate-before", turnGates[0]!)).toBe(true); // the old client has read the key
    const before = await key();
    await rotateFollowKey(database().url);
    expect((await key()).equals(before)).toBe(false);
    // A client that reads the new key; the worker still seals under the old one until it hears the new.
    const fresh = await database().client();
    expect(await follow(fresh, "rotate-new-client", turnGates[1]!)).toBe(true);
    // The client that read the old key; the worker seals under the new one by now.
    expect(await follow(old, "rotate-old-client", turnGates[2]!)).toBe(true);
  }, 60_000);

  test("following a queued turn: it waits behind the session's earlier turn, then streams only its own", async () => {
    const client = await database().client();
    const firstId = await client.enqueueTurn({ sessionId: "follow-queued", prompt: "one", profile: "echo" });
    const secondId = await client.enqueueTurn({ sessionId: "follow-queued", prompt: "two", profile: "echo" });
    const follower = await database().client();
    const seen = collect(follower.stream(secondId));
    await untilFollowed(secondId);
    await database().worker({ profiles }); // no worker until both are queued and followed
    const events = await seen;
    const record = await client.awaitTurn(secondId, { timeoutMs: 20_000 });
    expect((await client.turn(firstId)).status).toBe("done");
    expect(events[0]).toMatchObject({ type: "turn-start", turn: 2 });
    expect(events.at(-1)).toMatchObject({ type: "turn-end", turn: 2 });
    expect(committedOf(events)).toEqual(loggedTurn(await storedEvents("follow-queued"), record.startSeq!));
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
  await untilFollowed(next);
  await database().worker({ profiles });
  await followed;
  // The follower may end (its turn's end read from the log) before the last NOTIFY lands: wait for it.
  while (heard.length === 0) await listener.query("SELECT 1");
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

  test("a log with a corrupt row: streamSession fails with the store's corrupt error, never waits for ever (found from outside)", async () => {
    const client = await database().client();
    const done = await client.enqueueTurn({ sessionId: "follow-corrupt", prompt: "zero", profile: "echo" });
    await database().worker({ profiles });
    await client.awaitTurn(done, { timeoutMs: 20_000 });
    const [row] = await database().query<{ next_seq: number }>(
      "SELECT next_seq FROM keelson_sessions WHERE id = 'follow-corrupt'",
    );
    const at = Number(row!.next_seq);
    await database().query("INSERT INTO keelson_events VALUES ('follow-corrupt', $1, 'this is not json')", [at]);
    await database().query("UPDATE keelson_sessions SET next_seq = $1 WHERE id = 'follow-corrupt'", [at + 1]);
    const error = await rejection(() => collect(client.streamSession("follow-corrupt")));
    expect(error).toMatchObject({ code: "corrupt", message: expect.stringMatching(/is not valid JSON/) });
    // What the log holds before the corrupt row is delivered first, each event once, then the error.
    const delivered: TurnEvent[] = [];
    const again = await rejection(async () => {
      for await (const event of client.streamSession("follow-corrupt")) delivered.push(event);
    });
    expect(again).toMatchObject({ code: "corrupt" });
    const readable = await database().store().readEvents("follow-corrupt", 0, at);
    expect(readable.length).toBe(at);
    expect(delivered).toEqual(readable.map(committedTurnEvent));
  });

  test("a finished turn recorded from a seq no log has (a row written by hand) is not-run at once, not a wait for ever (found from outside)", async () => {
    const client = await database().client();
    const first = await client.enqueueTurn({ sessionId: "follow-crafted", prompt: "zero", profile: "echo" });
    await database().worker({ profiles });
    await client.awaitTurn(first, { timeoutMs: 20_000 });
    for (const startSeq of [999_999_999, -7]) {
      const [row] = await database().query<{ id: string }>(
        `INSERT INTO keelson_turns (session_id, prompt, profile, status, attempts, start_seq, outcome)
         VALUES ('follow-crafted', 'crafted', 'echo', 'done', 1, $1, '{"turn":9,"reason":"completed","saved":true}')
         RETURNING id::text AS id`,
        [startSeq],
      );
      const error = await rejection(() => client.stream(row!.id).next());
      expect(error).toMatchObject({ code: "not-run", message: expect.stringMatching(/does not match the log/) });
    }
  });

  test("a running turn recorded from a seq no log has, its worker gone: closed interrupted, not done with an earlier turn's outcome", async () => {
    const client = await database().client();
    const first = await client.enqueueTurn({ sessionId: "follow-crafted-running", prompt: "zero", profile: "echo" });
    const worker = await database().worker({ profiles });
    await client.awaitTurn(first, { timeoutMs: 20_000 });
    await worker.stop();
    const [row] = await database().query<{ id: string }>(
      `INSERT INTO keelson_turns (session_id, prompt, profile, status, attempts, start_seq, claimed_by)
       VALUES ('follow-crafted-running', 'crafted', 'echo', 'running', 1, -7, 'a-worker-gone')
       RETURNING id::text AS id`,
    );
    await database().worker({ profiles });
    const record = await client.awaitTurn(row!.id, { timeoutMs: 20_000 });
    expect(record.status).toBe("interrupted");
    expect(record.outcome).toBeUndefined();
  });

  test("an unknown session is not-found; a `from` beyond the log is position-beyond-log, not a seq invalid-position", async () => {
    const client = await database().client();
    expect(await rejection(() => client.streamSession("no-such-session").next())).toMatchObject({ code: "not-found" });
    for (const id of ["nul\u0000id", "x".repeat(5000), "../escape"]) {
      const error = await rejection(() => client.streamSession(id).next());
      expect(error).toMatchObject({ code: "not-found" }); // was `unavailable` for a NUL
      expect((error as Error).message.length).toBeLessThan(200); // the id is not echoed whole
    }
    await client.createSession({ id: "follow-empty" });
    expect(await rejection(() => client.streamSession("follow-empty", { from: 0 }).next())).toMatchObject({
      code: "position-beyond-log",
    });
    expect(await rejection(() => client.streamSession("follow-empty", { from: -3 }).next())).toMatchObject({
      code: "invalid-position",
    });
    const fromNull = { from: null as unknown as number }; // not "from the start"
    expect(await rejection(() => client.streamSession("follow-empty", fromNull).next())).toMatchObject({
      code: "invalid-position",
    });
  });

  test("a turn id is the same turn however it is written (leading zeros, a number, a bigint); what is no id is not-found, never an outage", async () => {
    const client = await database().client();
    const id = await client.enqueueTurn({ sessionId: "ids-any-way", prompt: "hi", profile: "nobody-serves-this" });
    for (const same of [id, `00${id}`, Number(id), BigInt(id)] as unknown as string[])
      expect((await client.turn(same)).id, String(same)).toBe(id);
    const object = { toString: () => id } as unknown as string; // digits as text, not a string: sent nowhere
    for (const bad of [object, "", "1e3", " 1", "-1", `${"9".repeat(19)}`]) {
      expect(await rejection(() => client.turn(bad))).toMatchObject({ code: "not-found" });
      expect(await rejection(() => client.awaitTurn(bad, { timeoutMs: 2000 }))).toMatchObject({ code: "not-found" });
      expect(await rejection(() => client.stream(bad).next())).toMatchObject({ code: "not-found" });
    }
    // Refused here, without asking the database (it used to look the preview up as an id).
    for (const bad of [2 ** 53 + 2, -1, 1.5, "-1", `${"9".repeat(19)}`] as unknown as string[])
      expect(await rejection(() => client.stream(bad).next()), String(bad)).toMatchObject({
        code: "not-found",
        message: expect.stringMatching(/^no turn .* \(turn ids are integers ≥ 0 below 10\^18\)$/),
      });
  });

  test("a bound that is not a positive integer (NaN, a string) or a signal that is not one: invalid-options at once", async () => {
    const client = await database().client();
    await client.createSession({ id: "follow-options" });
    for (const options of [{ maxBufferedChars: Number.NaN }, { maxBufferedChars: "1000000" }, { signal: "nope" }]) {
      const bad = options as { maxBufferedChars?: number };
      expect(() => client.streamSession("follow-options", bad)).toThrow(
        expect.objectContaining({ code: "invalid-options" }),
      );
      expect(() => client.stream("1", bad)).toThrow(expect.objectContaining({ code: "invalid-options" }));
    }
    expect(() => client.stream("1", { maxBufferedChars: Number.NaN })).toThrow(/got NaN/);
  });

  test("awaitTurn: a timeoutMs or pollMs that is not a positive finite number is invalid-options, not a wait for ever", async () => {
    const client = await database().client();
    const id = await client.enqueueTurn({ sessionId: "await-options", prompt: "hi", profile: "nobody-serves-this" });
    for (const options of [
      { timeoutMs: Number.NaN },
      { timeoutMs: Number.POSITIVE_INFINITY },
      { timeoutMs: -1 },
      { timeoutMs: "100" },
      { pollMs: 0 },
    ]) {
      const error = await rejection(() => client.awaitTurn(id, options as { timeoutMs?: number }));
      expect(error).toMatchObject({ code: "invalid-options" });
    }
    expect(
      await rejection(() => client.enqueueTurn({ sessionId: "s", prompt: 42 as unknown as string, profile: "echo" })),
    ).toMatchObject({
      code: "invalid-turn",
      message: expect.stringMatching(/must be a string, got 42/),
    });
  });
});

describe("a login of the database that may not read the fleet's tables (decision 0037)", () => {
  test("hears only sealed payloads, cannot read the follow key, and nothing it notifies or replays reaches a follower", async () => {
    const role = `keelson_outsider_${process.pid}`;
    await database().query(`CREATE ROLE ${role} LOGIN`);
    const url = new URL(database().url);
    url.username = role;
    const outsider = new pg.Client({ connectionString: url.toString() });
    listeners.push(outsider);
    try {
      await outsider.connect();
      await expect(outsider.query("SELECT follow_key FROM keelson_fleet_secret")).rejects.toMatchObject({
        code: "42501",
      });
      const sessionId = "follow-sealed";
      const channel = liveChannel(sessionId);
      const heard: { channel: string; payload: string }[] = [];
      outsider.on("notification", (m) => heard.push({ channel: m.channel, payload: m.payload ?? "" }));
      await outsider.query(`LISTEN keelson_follow; LISTEN ${channel}`);
      const gates = { text: deferred(), call: deferred() };
      const client = await database().client();
      const id = await client.enqueueTurn({ sessionId, prompt: "hello", profile: "gated" });
      const stream = client.stream(id);
      await untilFollowed(id);
      await database().worker({ profiles: gatedProfile(gates) });
      const seen: TurnEvent[] = [];
      const text = (): string => seen.flatMap((e) => (e.type === "text-delta" ? [e.delta] : [])).join("");
      let forged = false;
      for await (const event of stream) {
        seen.push(event);
        if (forged || text() !== "Hello") continue;
        forged = true;
        // The provider holds the step open: the outsider replays what it heard, forges a message
        // and an announcement in the clear; all of it commits before the worker's next message.
        while (!heard.some((h) => h.channel === channel)) await outsider.query("SELECT 1");
        const replayed = heard.find((h) => h.channel === channel)!.payload;
        const forgedDelta = { type: "text-delta", turn: 1, step: 1, index: 0, id: "text_1_1_0", delta: " FORGED" };
        const plain = `9 0 1 ${JSON.stringify({ t: id, a: 1, m: 99, s: 0, e: [forgedDelta] })}`;
        await outsider.query("SELECT pg_notify($1, $2), pg_notify($1, $3), pg_notify('keelson_follow', $4)", [
          channel,
          plain,
          replayed,
          sessionId,
        ]);
        gates.text.resolve();
        gates.call.resolve();
      }
      expect(forged).toBe(true);
      expect(text()).toBe("Hello worlddone after the tool"); // no forged delta, nothing delivered twice
      const record = await client.awaitTurn(id, { timeoutMs: 20_000 });
      expect(committedOf(seen)).toEqual(loggedTurn(await storedEvents(sessionId), record.startSeq!));
      // What the outsider heard from the fleet (not its own three): announcements and live messages, all
      // sealed — base64, so no quote, colon or hyphen of the clear JSON or the session id survives.
      // The follower announces on hearing the claim without waiting for the NOTIFY to commit: on a
      // loaded machine it can land after the turn's end (seen once in a full run). Wait for it, a
      // round trip at a time.
      const fleetAnnounced = (): boolean =>
        heard.some((h) => h.channel === "keelson_follow" && !h.payload.startsWith("9 0 1 ") && h.payload !== sessionId);
      while (!fleetAnnounced()) await outsider.query("SELECT 1");
      const fleets = heard.filter((h) => !h.payload.startsWith("9 0 1 ") && h.payload !== sessionId);
      expect(fleets.filter((h) => h.channel === channel).length).toBeGreaterThan(1);
      for (const { payload } of fleets)
        for (const clear of [sessionId, '"delta":', '"t":', "world", "hello"]) expect(payload).not.toContain(clear);
    } finally {
      await outsider.end().catch(() => undefined);
      await database().query(`DROP ROLE IF EXISTS ${role}`);
    }
  });

  test("a captured announcement replayed makes no worker publish a turn nobody follows", async () => {
    const [row] = await database().query<{ follow_key: Buffer }>("SELECT follow_key FROM keelson_fleet_secret");
    const seal = new FollowSeal(row!.follow_key);
    const replayedSession = "replay-target";
    const sentinelSession = "replay-sentinel";
    // What an outsider could have captured earlier: a real announcement of the target session.
    const captured = seal.seal("keelson_follow", announcementText(replayedSession, Date.now()));
    const gates = {
      a: { text: deferred(), call: deferred(), reached: deferred() },
      b: { text: deferred(), call: deferred(), reached: deferred() },
    };
    await database().worker({
      profiles: { "gated-a": gatedProfile(gates.a).gated, "gated-b": gatedProfile(gates.b).gated },
      concurrency: 2,
    });
    const client = await database().client();
    /** Opens both sessions' gates and waits for their turns `a` and `b` to finish done. */
    const finishBoth = async (a: string, b: string): Promise<void> => {
      for (const g of [gates.a, gates.b]) {
        g.text.resolve();
        g.call.resolve();
      }
      for (const id of [a, b]) expect((await client.awaitTurn(id, { timeoutMs: 20_000 })).status).toBe("done");
    };
    // The target's first turn is announced by that payload itself, so the worker has believed it once.
    const heardLive: string[] = [];
    const listener = new pg.Client({ connectionString: database().url });
    listeners.push(listener);
    await listener.connect();
    listener.on("notification", (m) => heardLive.push(m.channel));
    await listener.query(`LISTEN ${liveChannel(replayedSession)}; LISTEN ${liveChannel(sentinelSession)}`);
    const target = await client.enqueueTurn({
      sessionId: replayedSession,
      prompt: "nobody follows",
      profile: "gated-a",
    });
    const sentinel = await client.enqueueTurn({ sessionId: sentinelSession, prompt: "followed", profile: "gated-b" });
    await gates.a.reached.promise;
    await gates.b.reached.promise;
    await database().query("SELECT pg_notify('keelson_follow', $1)", [captured]); // believed: the first time
    await database().query("SELECT pg_notify('keelson_follow', $1)", [
      seal.seal("keelson_follow", announcementText(sentinelSession, Date.now())),
    ]);
    while (!heardLive.includes(liveChannel(sentinelSession)) || !heardLive.includes(liveChannel(replayedSession)))
      await listener.query("SELECT 1");
    await finishBoth(target, sentinel);

    // The next turn of each session, nobody following either: the captured payload again, then a fresh
    // announcement of the sentinel — heard after it on the same connection, so once the sentinel's
    // turn is published the replay has been judged.
    for (const g of [gates.a, gates.b]) Object.assign(g, { text: deferred(), call: deferred(), reached: deferred() });
    const again = await client.enqueueTurn({ sessionId: replayedSession, prompt: "still nobody", profile: "gated-a" });
    const sentinelAgain = await client.enqueueTurn({ sessionId: sentinelSession, prompt: "again", profile: "gated-b" });
    await gates.a.reached.promise;
    await gates.b.reached.promise;
    heardLive.length = 0;
    await database().query("SELECT pg_notify('keelson_follow', $1)", [captured]); // a replay
    await database().query("SELECT pg_notify('keelson_follow', $1)", [
      seal.seal("keelson_follow", announcementText(sentinelSession, Date.now())),
    ]);
    while (!heardLive.includes(liveChannel(sentinelSession))) await listener.query("SELECT 1");
    await finishBoth(again, sentinelAgain);
    expect(heardLive.filter((c) => c === liveChannel(replayedSession))).toEqual([]);
  });
});

/**
 * Drains a follow of gatedProvider's turn, opening its gates only once the deltas before each
 * arrived with the step still open; whether both did (else the step stays held: the test times out).
 */
async function liveThroughGates(
  stream: AsyncIterable<TurnEvent>,
  gates: { text: Deferred<void>; call: Deferred<void> },
): Promise<boolean> {
  const seen: TurnEvent[] = [];
  const args = (): string => seen.flatMap((e) => (e.type === "tool-call-delta" ? [e.delta] : [])).join("");
  let opened = 0;
  for await (const event of stream) {
    seen.push(event);
    const stepEnded = seen.some((e) => e.type === "step-end" || e.type === "assistant-message");
    if (opened === 0 && textOf(seen) === "Hello" && !stepEnded) {
      opened = 1;
      gates.text.resolve();
    } else if (opened === 1 && args() === '{"say":"hi"}' && !stepEnded) {
      opened = 2;
      gates.call.resolve();
    }
  }
  return opened === 2;
}

const textOf = (seen: readonly TurnEvent[]): string =>
  seen.flatMap((e) => (e.type === "text-delta" && e.step === 1 ? [e.delta] : [])).join("");
const argsOf = (seen: readonly TurnEvent[]): string =>
  seen.flatMap((e) => (e.type === "tool-call-delta" ? [e.delta] : [])).join("");

/** What breaks `agent.stream()`'s block order in `seen`: a delta or end without its start, a start or end twice. */
function blockOrderFaults(seen: readonly TurnEvent[]): string[] {
  const faults: string[] = [];
  const state = new Map<string, "open" | "ended">();
  for (const e of seen) {
    if (!("index" in e) || !("step" in e) || "seq" in e) continue;
    const key = `${e.turn}/${e.step}/${e.index}`;
    const at = state.get(key);
    if (e.type.endsWith("-start")) {
      if (at !== undefined) faults.push(`${e.type} twice at ${key}`);
      state.set(key, "open");
    } else if (e.type.endsWith("-end")) {
      if (at !== "open") faults.push(`${e.type} at ${key} while ${at ?? "not started"}`);
      state.set(key, "ended");
    } else if (at !== "open") faults.push(`${e.type} at ${key} while ${at ?? "not started"}`);
  }
  return faults;
}
