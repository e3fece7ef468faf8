// agent.stream() (issue #22 §1): typed turn events in log order, the log's ids live (a tool
// call's callId from its first delta), a seq on every committed event, a bounded buffer for a
// consumer that lags, catch-up from the log, early close cancels, draining equals send().
import { describe, expect, test } from "vitest";
import { ScriptedProvider } from "../../src/llm/core.js";
import { createAgent, LoopError, type TurnEvent } from "../../src/loop/index.js";
import { defineTool, jsonSchema } from "../../src/tools/index.js";

const echo = defineTool({
  name: "echo",
  description: "echoes",
  input: jsonSchema({ type: "object", properties: { text: { type: "string" } } }),
  readOnly: true,
  execute: (args: { text?: string }) => `echo: ${args.text ?? ""}`,
});

async function drain(events: AsyncIterable<TurnEvent>): Promise<TurnEvent[]> {
  const out: TurnEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

describe("agent.stream", () => {
  test("next() called again before the last one settled: each call gets the next event, in order", async () => {
    const provider = new ScriptedProvider([{ text: "one answer" }]);
    const agent = createAgent({ provider, model: "m" });
    const iterator = agent.stream("go")[Symbol.asyncIterator]();
    const pending: Promise<IteratorResult<TurnEvent>>[] = [];
    for (let i = 0; i < 40; i++) pending.push(iterator.next()); // more calls than the turn has events
    const results = await Promise.all(pending);
    const events = results.filter((r) => r.done !== true).map((r) => r.value as TurnEvent);
    expect(events[0]?.type).toBe("turn-start");
    expect(events.at(-1)?.type).toBe("turn-end");
    const seqs = events.flatMap((e) => ("seq" in e ? [e.seq] : []));
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(seqs).toEqual(agent.session.events.map((e) => e.seq)); // every committed event once
    expect(results.slice(events.length).every((r) => r.done === true)).toBe(true);
  });

  test("yields the turn's events in log order, ending with turn-end and the outcome", async () => {
    const provider = new ScriptedProvider([
      { reasoning: "think", text: "calling", toolCalls: [{ name: "echo", arguments: { text: "hi" } }] },
      { text: "done: echo hi" },
    ]);
    const agent = createAgent({ provider, model: "m", tools: [echo] });
    const stream = agent.stream("go");
    const events = await drain(stream);
    const outcome = await stream.outcome;
    expect(outcome.reason).toEqual({ kind: "completed" });
    expect(outcome.text).toBe("done: echo hi");
    // (deltas may arrive one per chunk or coalesced: runs of one type count once)
    const types = events.map((e) => e.type).filter((type, i, all) => type !== all[i - 1]);
    expect(types).toEqual([
      "turn-start",
      "user-message",
      "step-start",
      "log-event", // request/header
      "reasoning-start",
      "reasoning-delta",
      "reasoning-end",
      "text-start",
      "text-delta",
      "text-end",
      "tool-call-start",
      "tool-call-delta",
      "tool-call-end",
      "assistant-message",
      "tool-call-ready",
      "tool-result",
      "step-end",
      "step-start", // the same request header: nothing logged before it
      "text-start",
      "text-delta",
      "text-end",
      "assistant-message",
      "step-end",
      "turn-end",
    ]);
    const last = events.at(-1);
    expect(last?.type === "turn-end" && last.outcome).toBe(outcome);
    // every committed event carries the seq of the logged event it stands for
    for (const event of events) {
      if (!("seq" in event)) continue;
      const logged = agent.session.eventAt(event.seq);
      expect(logged).toBeDefined();
    }
    const seqs = events.flatMap((e) => ("seq" in e ? [e.seq] : []));
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(seqs.length).toBe(agent.session.length);
    await agent.dispose();
  });

  test("a tool call carries the log's callId live, from its first delta on", async () => {
    const provider = new ScriptedProvider([
      { toolCalls: [{ name: "echo", arguments: { text: "x" } }] },
      { text: "ok" },
    ]);
    const agent = createAgent({ provider, model: "m", tools: [echo] });
    const events = await drain(agent.stream("go"));
    const live = events.filter((e) => e.type === "tool-call-start" || e.type === "tool-call-delta");
    const logged = events.find((e) => e.type === "tool-call-ready");
    const result = events.find((e) => e.type === "tool-result");
    expect(live.length).toBe(2);
    for (const event of live) expect("callId" in event && event.callId).toBe("call_1_1_0");
    expect(logged?.type === "tool-call-ready" && logged.callId).toBe("call_1_1_0");
    expect(result?.type === "tool-result" && result.callId).toBe("call_1_1_0");
    await agent.dispose();
  });

  test("draining a stream gives what send() gives", async () => {
    const script = () => new ScriptedProvider([{ toolCalls: [{ name: "echo", arguments: {} }] }, { text: "fine" }]);
    const a = createAgent({ provider: script(), model: "m", tools: [echo], clock: () => 0, sessionId: "s" });
    const b = createAgent({ provider: script(), model: "m", tools: [echo], clock: () => 0, sessionId: "s" });
    const stream = a.stream("go");
    await drain(stream);
    const streamed = await stream.outcome;
    const sent = await b.send("go");
    expect(streamed).toEqual(sent);
    expect(streamed.text).toBe(sent.text);
    expect(a.session.events).toEqual(b.session.events);
    await Promise.all([a.dispose(), b.dispose()]);
  });

  test("a consumer that starts reading after the turn ended gets every committed event from the log", async () => {
    const provider = new ScriptedProvider([{ text: "a long answer" }]);
    const agent = createAgent({ provider, model: "m" });
    const stream = agent.stream("go");
    await stream.outcome; // the turn ran to the end with nobody reading
    const events = await drain(stream);
    expect(events.filter((e) => "seq" in e).length).toBe(agent.session.length);
    expect(events.some((e) => e.type === "assistant-message")).toBe(true);
    await agent.dispose();
  });

  test("a lagging consumer holds bounded deltas: over the bound the step streams no deltas, its answer carries the text", async () => {
    const big = "x".repeat(50_000);
    const provider = new ScriptedProvider([{ text: big }]);
    const agent = createAgent({ provider, model: "m" });
    const stream = agent.stream("go", { maxBufferedChars: 1_000 });
    await stream.outcome;
    const events = await drain(stream);
    const deltas = events.filter((e) => e.type === "text-delta");
    const answer = events.find((e) => e.type === "assistant-message");
    expect(deltas.reduce((n, e) => n + (e.type === "text-delta" ? e.delta.length : 0), 0)).toBeLessThanOrEqual(1_000);
    expect(answer?.type === "assistant-message" && answer.content).toEqual([{ type: "text", text: big }]);
    await agent.dispose();
  });

  test("a consumer that never reads a long turn: the live events held stay within the bound, every committed one is read after", async () => {
    const steps = 2_000;
    let calls = 0;
    const provider = new ScriptedProvider([], {
      record: false, // each request holds the whole history: 2,000 of them would be quadratic
      fallback: () =>
        ++calls < steps
          ? { text: `step ${calls} text`, toolCalls: [{ name: "echo", arguments: { text: `${calls}` } }] }
          : { text: "done" },
    });
    const agent = createAgent({ provider, model: "m", tools: [echo], maxSteps: steps + 1, invariants: false });
    const stream = agent.stream("go", { maxBufferedChars: 10_000 });
    const outcome = await stream.outcome; // nobody read while the turn ran
    expect(outcome.reason.kind).toBe("completed");
    const events = await drain(stream);
    const live = events.filter((e) => !("seq" in e));
    // Every live event weighs at least 64: a queue kept within 10,000 holds under 160 of them
    // (block starts and ends of every step were kept before: ~8,000).
    expect(live.length).toBeLessThan(160);
    expect(events.filter((e) => "seq" in e).map((e) => (e as { seq: number }).seq)).toEqual(
      agent.session.events.map((e) => e.seq),
    );
    await agent.dispose();
  });

  test("a consumer that reads a long turn's queue afterwards (a bound large enough to keep it all) gets every live event once, each inside its step", async () => {
    const steps = 2_000;
    let calls = 0;
    const provider = new ScriptedProvider([], {
      record: false,
      fallback: () =>
        ++calls < steps
          ? { text: `step ${calls} text`, toolCalls: [{ name: "echo", arguments: { text: `${calls}` } }] }
          : { text: "done" },
    });
    const agent = createAgent({ provider, model: "m", tools: [echo], maxSteps: steps + 1, invariants: false });
    const stream = agent.stream("go", { maxBufferedChars: 100_000_000 });
    await stream.outcome;
    const events = await drain(stream);
    // Per tool step: text start, its deltas (coalesced), end, tool-call start, delta, end; the last step's text.
    const live = events.filter((e) => !("seq" in e));
    expect(live).toHaveLength(6 * (steps - 1) + 3);
    let step = 0;
    let answered = false;
    for (const e of events) {
      if (e.type === "step-start") [step, answered] = [e.step, false];
      else if (e.type === "assistant-message") answered = true;
      else if (!("seq" in e) && e.type !== "subagent") {
        expect(e.step).toBe(step);
        expect(answered).toBe(false);
      }
    }
    const texts = live.filter((e) => e.type === "text-delta").map((e) => (e.type === "text-delta" ? e.delta : ""));
    expect(texts.slice(0, 2)).toEqual(["step 1 text", "step 2 text"]);
    expect(texts.at(-1)).toBe("done");
    await agent.dispose();
  });

  test("a consumer that waits (events handed over as they come) and one that reads afterwards (from the queue and the log) get the same turn", async () => {
    const script = () =>
      new ScriptedProvider([
        { reasoning: "hmm", text: "calling", toolCalls: [{ name: "echo", arguments: { text: "a" } }] },
        { text: "done" },
      ]);
    const live = createAgent({ provider: script(), model: "m", tools: [echo], clock: () => 0, sessionId: "s" });
    const late = createAgent({ provider: script(), model: "m", tools: [echo], clock: () => 0, sessionId: "s" });
    const waited = await drain(live.stream("go"));
    const lateStream = late.stream("go");
    await lateStream.outcome;
    const read = await drain(lateStream);
    const committed = (events: TurnEvent[]) => events.filter((e) => "seq" in e);
    expect(committed(waited)).toEqual(committed(read));
    // live events: the same blocks with the same ids, the same text once deltas are joined
    const blocks = (events: TurnEvent[]) => {
      const out: string[] = [];
      for (const e of events) {
        if ("seq" in e || e.type === "subagent" || e.type === "tool-progress") continue;
        const id = "id" in e ? e.id : e.callId;
        if (e.type.endsWith("-delta") && out.at(-1)?.startsWith(`${e.type} ${id} `))
          out[out.length - 1] += (e as { delta: string }).delta;
        else out.push(`${e.type} ${id} ${"delta" in e ? e.delta : ""}`);
      }
      return out;
    };
    expect(blocks(waited)).toEqual(blocks(read));
    expect(blocks(waited)).toContain('tool-call-delta call_1_1_2 {"text":"a"}');
    await Promise.all([live.dispose(), late.dispose()]);
  });

  test("a step whose deltas overflowed streams none, and the next step streams its deltas again", async () => {
    const provider = new ScriptedProvider([
      { text: "x".repeat(5_000), toolCalls: [{ name: "echo", arguments: { text: "a" } }] },
      { text: "short answer" },
    ]);
    const agent = createAgent({ provider, model: "m", tools: [echo] });
    const stream = agent.stream("go", { maxBufferedChars: 1_000 });
    await stream.outcome; // nobody read: the first step overflowed the bound
    const events = await drain(stream);
    const deltaText = (step: number) =>
      events.map((e) => (e.type === "text-delta" && e.step === step ? e.delta : "")).join("");
    expect(deltaText(1)).toBe("");
    expect(deltaText(2)).toBe("short answer");
    await agent.dispose();
  });

  test("breaking the iteration early cancels the turn (it ends aborted)", async () => {
    const provider = new ScriptedProvider(["hang"]);
    const agent = createAgent({ provider, model: "m" });
    const stream = agent.stream("go");
    for await (const event of stream) if (event.type === "step-start") break;
    const outcome = await stream.outcome;
    expect(outcome.reason).toEqual({ kind: "aborted", reason: "stream closed" });
    await agent.dispose();
  });

  test("an aborted signal cancels the turn even while it is queued", async () => {
    const provider = new ScriptedProvider(["hang", { text: "second" }]);
    const agent = createAgent({ provider, model: "m" });
    const first = agent.stream("one");
    const controller = new AbortController();
    const firstIter = first[Symbol.asyncIterator]();
    await firstIter.next(); // turn 1 is running (hung)
    const second = agent.stream("two", { signal: controller.signal });
    controller.abort();
    first.cancel("enough");
    expect((await first.outcome).reason).toEqual({ kind: "aborted", reason: "enough" });
    expect((await second.outcome).reason).toEqual({ kind: "aborted", reason: "client disconnected" });
    await agent.dispose();
  });

  test("a prompt queued after a queued stream was cancelled waits for the turn after, not the cancelled one (found from outside)", async () => {
    const provider = new ScriptedProvider(["hang"], { fallback: { text: "ok" } });
    const agent = createAgent({ provider, model: "m" });
    const first = agent.stream("A");
    const firstIter = first[Symbol.asyncIterator]();
    while ((await firstIter.next()).value?.type !== "step-start"); // turn 1 runs (its model call hangs)
    const b = agent.stream("B");
    const joined = agent.send("B2"); // joins B's turn before the cancel: cancelled with it
    b.cancel("B gave up");
    const c = agent.send("C"); // after the cancel: a turn of its own
    first.cancel("enough");
    expect((await b.outcome).reason).toEqual({ kind: "aborted", reason: "B gave up" });
    expect((await joined).reason).toEqual({ kind: "aborted", reason: "B gave up" });
    const outcomeC = await c;
    expect(outcomeC.reason).toEqual({ kind: "completed" });
    expect(outcomeC.turn).toBe((await b.outcome).turn + 1);
    const prompts = agent.session.events
      .filter((e) => e.type === "user/message")
      .map((e) => (e.data as { content: { text: string }[] }).content[0]!.text);
    expect(prompts).toEqual(["A", "C"]);
    await agent.dispose();
  });

  test("a signal's own reason is the turn's (a string, an Error other than AbortError); the default abort says client disconnected", async () => {
    const agent = createAgent({ provider: new ScriptedProvider([], { fallback: { text: "ok" } }), model: "m" });
    const cases: [unknown, string][] = [
      [undefined, "client disconnected"],
      ["user pressed stop", "user pressed stop"],
      [new Error("my reason"), "my reason"],
      [new DOMException("The operation timed out.", "TimeoutError"), "The operation timed out."],
      [new DOMException("gone", "AbortError"), "client disconnected"],
      ["x".repeat(10_000), "x".repeat(200)],
    ];
    for (const [reason, expected] of cases) {
      const controller = new AbortController();
      controller.abort(reason);
      const stream = agent.stream("go", { signal: controller.signal });
      expect((await stream.outcome).reason).toEqual({ kind: "aborted", reason: expected });
    }
    await agent.dispose();
  });

  test("a prompt refused before its turn starts ends the stream with the error", async () => {
    const agent = createAgent({ provider: new ScriptedProvider([]), model: "m" });
    await agent.dispose();
    const stream = agent.stream("late");
    await expect(drain(stream)).rejects.toBeInstanceOf(LoopError);
    await expect(stream.outcome).rejects.toMatchObject({ code: "disposed" });
  });

  test("a stream is iterated once: a second iteration is LoopError('already-iterated')", async () => {
    const agent = createAgent({ provider: new ScriptedProvider([{ text: "x" }]), model: "m" });
    const stream = agent.stream("go");
    await drain(stream);
    expect(() => stream[Symbol.asyncIterator]()).toThrow(
      expect.objectContaining({ name: "LoopError", code: "already-iterated" }),
    );
    await agent.dispose();
  });

  // Found from outside: `{ sigal }` ran the turn with no cancel, `{ form: 5 }` followed from the start.
  test("a key a method does not take is LoopError('invalid-options') naming it; nothing is queued or logged", async () => {
    const agent = createAgent({ provider: new ScriptedProvider([], { fallback: { text: "ok" } }), model: "m" });
    const refused = (message: RegExp) =>
      expect.objectContaining({ name: "LoopError", code: "invalid-options", message: expect.stringMatching(message) });
    const signal = new AbortController().signal;
    expect(() => agent.stream("go", { sigal: signal } as never)).toThrow(
      refused(/^stream has no option "sigal" \(it takes signal, maxBufferedChars, output, repair\)$/),
    );
    expect(() => agent.stream("go", { maxBufferdChars: 10 } as never)).toThrow(refused(/"maxBufferdChars"/));
    expect(() => agent.follow({ form: 5 } as never)).toThrow(refused(/^follow has no option "form"/));
    await expect(agent.send("go", { outptu: {} } as never)).rejects.toEqual(refused(/^send has no option "outptu"/));
    await expect(agent.send("go", 5 as never)).rejects.toEqual(refused(/options must be an object/));
    expect(() => agent.streamAnswers({ decisions: [] }, { output: {} } as never)).toThrow(
      refused(/^streamAnswers has no option "output"/),
    );
    expect(agent.session.length).toBe(0);
    // What each takes passes; a key whose value is undefined is let be.
    expect((await agent.send("go", { repair: 0, signal: undefined } as never)).reason.kind).toBe("completed");
    const stream = agent.stream("again", { signal, maxBufferedChars: 10, repair: 1 });
    await drain(stream);
    expect((await stream.outcome).reason.kind).toBe("completed");
    await agent.dispose();
  });

  test("concurrent sends while idle join one turn; awaited sends run as separate turns", async () => {
    const agent = createAgent({ provider: new ScriptedProvider([], { fallback: { text: "ok" } }), model: "m" });
    const [a, b] = await Promise.all([agent.send("one"), agent.send("two")]);
    expect(a.turn).toBe(1);
    expect(b.turn).toBe(1);
    const c = await agent.send("three");
    expect(c.turn).toBe(2);
    await agent.dispose();
  });
});
