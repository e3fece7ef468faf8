// Keep-alive comments in the byte streams (src/serve/keep-alive.ts): after `keepAliveMs` without
// output a `: keep-alive` comment goes out, the event still on its way follows it, and every reader
// skips the comment — readSSE, and the AI SDK's own transport for the UI message stream. Never
// before a held status's first event. Timers are vitest's fake ones: nothing here waits on the clock.
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import { ScriptedProvider } from "../../src/llm/core.js";
import { createAgent, type TurnEvent } from "../../src/loop/index.js";
import { pullStream } from "../../src/serve/pull-stream.js";
import {
  DEFAULT_KEEP_ALIVE_MS,
  pipeUIMessageStream,
  readSSE,
  ServeError,
  type UIMessageChunk,
  toSSE,
  uiMessageStreamBody,
  uiMessageStreamResponse,
} from "../../src/serve/index.js";
import { deferred } from "../support/deferred.js";
import { closeServers, collect, listen, viaChatTransport, waitingTool } from "./support.js";

const COMMENT = ": keep-alive\n\n";
const start: TurnEvent = { type: "turn-start", seq: 0, turn: 1, trigger: "send" };
const text = (bytes: readonly Uint8Array[]): string => bytes.map((b) => new TextDecoder().decode(b)).join("");

/** Events that yield `before`, wait for `gate`, then yield `after`. */
function held(before: readonly TurnEvent[], after: readonly TurnEvent[]) {
  const gate = deferred();
  const events = (async function* () {
    yield* before;
    await gate.promise;
    yield* after;
  })();
  return { gate, events };
}

/** Whether `promise` has settled (after the microtasks queued so far have run). */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(
    () => (done = true),
    () => (done = true),
  );
  await vi.advanceTimersByTimeAsync(0);
  return done;
}

describe("keep-alive", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
  });
  afterEach(async () => {
    vi.useRealTimers();
    await closeServers();
  });

  test("toSSE: a comment after keepAliveMs without an event, then the event that was awaited; readSSE skips it", async () => {
    const { gate, events } = held([], [start]);
    const reader = toSSE(events, { keepAliveMs: 1_000 }).getReader();
    const first = reader.read();
    await vi.advanceTimersByTimeAsync(999);
    expect(await settled(first)).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const beat = await first;
    expect(text([beat.value!])).toBe(COMMENT);
    const second = reader.read();
    await vi.advanceTimersByTimeAsync(1_000); // quiet again: another comment
    expect(text([(await second).value!])).toBe(COMMENT);
    const third = reader.read();
    gate.resolve();
    const frame = text([(await third).value!]);
    expect(frame).toMatch(/^id: 0\nevent: turn-start\n/);
    expect((await reader.read()).done).toBe(true);
    const all = `${COMMENT}${COMMENT}${frame}`;
    const read: TurnEvent[] = [];
    for await (const event of readSSE(new Response(all, { headers: { "content-type": "text/event-stream" } })))
      read.push(event);
    expect(read).toEqual([start]);
  });

  test(`the default is ${DEFAULT_KEEP_ALIVE_MS} ms; 0 sends none`, async () => {
    const quiet = held([], [start]);
    const reader = toSSE(quiet.events).getReader();
    const first = reader.read();
    await vi.advanceTimersByTimeAsync(DEFAULT_KEEP_ALIVE_MS - 1);
    expect(await settled(first)).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(text([(await first).value!])).toBe(COMMENT);
    quiet.gate.resolve();
    await reader.cancel();

    const off = held([], [start]);
    const none = toSSE(off.events, { keepAliveMs: 0 }).getReader();
    const read = none.read();
    await vi.advanceTimersByTimeAsync(600_000);
    expect(await settled(read)).toBe(false);
    off.gate.resolve();
    expect(text([(await read).value!])).toMatch(/^id: 0\nevent: turn-start\n/);
  });

  test("a comment goes out only while the stream is quiet: events arriving in time reset nothing and add nothing", async () => {
    const { gate, events } = held([start, { type: "step-start", seq: 1, turn: 1, step: 1 }], []);
    const body = toSSE(events, { keepAliveMs: 1_000 });
    gate.resolve();
    const all = text(await collect(body));
    expect(all.split("\n").filter((line) => line.startsWith(":"))).toEqual([]);
    expect(all.split("\n\n").filter(Boolean)).toHaveLength(2);
  });

  test("where the status waits for the first event (failBeforeOutput), no comment goes before it — then they do", async () => {
    const { gate, events } = held([], [start]);
    const second = deferred();
    const more = (async function* () {
      yield* events;
      await second.promise;
    })();
    const stream = pullStream(
      more,
      { encode: (e: TurnEvent) => [e.type], end: () => ["end"], heartbeat: () => "beat" },
      { failBeforeOutput: true, keepAliveMs: 1_000 },
    );
    const reader = stream.getReader();
    const first = reader.read();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(await settled(first)).toBe(false); // the turn has not started: nothing, not even a comment
    gate.resolve();
    expect((await first).value).toBe("turn-start");
    const next = reader.read();
    await vi.advanceTimersByTimeAsync(1_000);
    expect((await next).value).toBe("beat");
    second.resolve();
    expect((await reader.read()).value).toBe("end");
  });

  test("a client that leaves while the stream is quiet leaves no timer behind", async () => {
    const { events } = held([], [start]);
    const reader = toSSE(events, { keepAliveMs: 1_000 }).getReader();
    void reader.read().catch(() => {});
    await vi.advanceTimersByTimeAsync(500);
    await reader.cancel();
    expect(vi.getTimerCount()).toBe(0);
  });

  test("a stream nobody reads arms no timer; one whose reader stopped without cancelling holds one comment at most", async () => {
    const unread = toSSE(held([], [start]).events, { keepAliveMs: 1_000 });
    await vi.advanceTimersByTimeAsync(5_000);
    expect(vi.getTimerCount()).toBe(0);
    void unread;

    const { gate, events } = held([], [start]);
    const reader = toSSE(events, { keepAliveMs: 1_000 }).getReader();
    const first = reader.read();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(text([(await first).value!])).toBe(COMMENT);
    await vi.advanceTimersByTimeAsync(10_000); // nobody reads: ten periods
    expect(text([(await reader.read()).value!])).toBe(COMMENT); // the one queued
    const after = reader.read();
    expect(await settled(after)).toBe(false); // and no more
    gate.resolve();
    expect(text([(await after).value!])).toMatch(/^id: 0\nevent: turn-start\n/);
  });

  test("keepAliveMs that is not an integer from 0 to 2^31 − 1 is invalid-options, at the call", () => {
    for (const keepAliveMs of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 31, "5000"]) {
      const options = { keepAliveMs } as unknown as { keepAliveMs: number };
      expect(() => toSSE(held([], []).events, options), String(keepAliveMs)).toThrow(
        expect.objectContaining({ name: "ServeError", code: "invalid-options" }),
      );
      expect(() => uiMessageStreamResponse(held([], []).events, options)).toThrow(ServeError);
    }
  });

  test("the UI message stream's body with comments reads, through useChat's own transport, as the same chunks as without", async () => {
    vi.useRealTimers();
    const agent = createAgent({ provider: new ScriptedProvider([{ text: "kept alive" }]), model: "m" });
    const turn: TurnEvent[] = [];
    for await (const event of agent.stream("go")) turn.push(event);
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
    const bytesOf = async (keepAliveMs: number): Promise<Uint8Array[]> => {
      const { gate, events } = held(turn.slice(0, 3), turn.slice(3));
      const reader = uiMessageStreamBody(events, { keepAliveMs }).getReader();
      const out: Uint8Array[] = [];
      let read = reader.read();
      const take = async (): Promise<boolean> => {
        const { done, value } = await read;
        if (!done) out.push(value);
        read = reader.read();
        return done;
      };
      while (await settled(read)) await take(); // up to the gate: the turn waits there
      if (keepAliveMs > 0)
        for (let beat = 0; beat < 2; beat++) {
          await vi.advanceTimersByTimeAsync(keepAliveMs); // two comments while it waits
          await take();
        }
      gate.resolve();
      while (!(await take()));
      return out;
    };
    const withComments = await bytesOf(1_000);
    const without = await bytesOf(0);
    expect(text(withComments)).toContain(`${COMMENT}${COMMENT}`);
    expect(text(without)).not.toContain(COMMENT);
    vi.useRealTimers();
    const headers = { "content-type": "text/event-stream" };
    const chunks = async (bytes: Uint8Array[]): Promise<UIMessageChunk[]> =>
      collect(await viaChatTransport("go", () => new Response(new Blob(bytes), { headers })));
    const read = await chunks(withComments);
    expect(read).toEqual(await chunks(without));
    expect(read.some((c) => c.type === "text-delta")).toBe(true);
  });

  test("over node:http: a turn waiting on its tool sends comments between its events (real timers, no deadline); the page reads the same message", async () => {
    vi.useRealTimers();
    const { tool, gate, running } = waitingTool();
    const provider = new ScriptedProvider([
      { toolCalls: [{ name: "wait", arguments: {} }] },
      { text: "waited it out" },
    ]);
    const agent = createAgent({ provider, model: "m", tools: [tool] });
    const origin = await listen((_req, res) => void pipeUIMessageStream(agent.stream("go"), res, { keepAliveMs: 20 }));
    const response = await fetch(origin);
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let wire = "";
    await running.promise;
    while (!wire.includes(COMMENT)) wire += decoder.decode((await reader.read()).value); // however long it takes
    gate.resolve();
    for (let next = await reader.read(); !next.done; next = await reader.read()) wire += decoder.decode(next.value);
    expect(wire.indexOf(COMMENT)).toBeGreaterThan(wire.indexOf('"type":"tool-input-available"'));
    expect(wire).toMatch(/data: \{"type":"finish"[^\n]*\n\ndata: \[DONE\]\n\n$/);
    const chunks = await collect(
      await viaChatTransport("go", () => new Response(wire, { headers: { "content-type": "text/event-stream" } })),
    );
    expect(
      chunks
        .filter((c) => c.type === "text-delta")
        .map((c) => (c as { delta: string }).delta)
        .join(""),
    ).toBe("waited it out");
    expect(chunks.some((c) => c.type === "tool-output-available")).toBe(true);
  });
});
