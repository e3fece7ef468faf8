// A provider that ignores its request's abort — a third-party `Provider` whose stream, once
// cancelled, neither ends nor throws — must not hold the turn: the cancel ends the turn aborted at
// once, the session is free for the next turn, the stream's iterator is asked to close, and a
// chunk it hands out after the abort never reaches the live stream. Likewise a compaction's
// summary call. No timers: a hang fails by the test's timeout.
import { describe, expect, test } from "vitest";
import type { Provider, ProviderRequest, StreamChunk } from "../../src/llm/index.js";
import { createCompaction } from "../../src/compaction/index.js";
import { createAgent } from "../../src/loop/index.js";
import { verifyLog } from "../../src/reconstruct/index.js";
import { fixedClock } from "../support/builders.js";
import { deferred } from "../support/deferred.js";

const text = (index: number, value: string): StreamChunk[] => [
  { type: "block-start", index, block: { type: "text" } },
  { type: "text-delta", index, text: value },
  { type: "block-end", index },
];

/** Answers "done" — except the calls listed in `deafOn`, which stream one delta and then wait for ever. */
class DeafProvider implements Provider {
  readonly id = "deaf";
  calls = 0;
  closed = 0;
  /** Settles the hung read from outside (the test's stand-in for a late chunk). */
  readonly late = deferred<void>();
  /** Resolved once a deaf call has streamed its delta and waits. */
  readonly hung = deferred<void>();
  readonly #deafOn: ReadonlySet<number>;

  constructor(deafOn: readonly number[]) {
    this.#deafOn = new Set(deafOn);
  }

  stream(_request: ProviderRequest): AsyncIterable<StreamChunk> {
    this.calls += 1;
    if (!this.#deafOn.has(this.calls)) return answer();
    const self = this;
    return (async function* () {
      try {
        yield { type: "block-start", index: 0, block: { type: "text" } };
        yield { type: "text-delta", index: 0, text: "partial" };
        self.hung.resolve();
        await self.late.promise; // the signal is ignored
        yield { type: "text-delta", index: 0, text: " LATE" };
        yield { type: "block-end", index: 0 };
        yield { type: "finish", reason: "stop" };
      } finally {
        self.closed += 1;
      }
    })();
  }
}

async function* answer(): AsyncGenerator<StreamChunk> {
  yield* text(0, "done");
  yield { type: "finish", reason: "stop" };
}

describe("a provider that ignores the abort", () => {
  test("a cancel mid-stream ends the turn aborted; the next turn runs; the late chunk is not streamed", async () => {
    const provider = new DeafProvider([1]);
    const agent = createAgent({ provider, model: "deaf:m", system: "s", clock: fixedClock() });
    const deltas: string[] = [];
    const turn = agent.stream("hello");
    let ended: unknown;
    for await (const event of turn) {
      if (event.type === "text-delta") {
        deltas.push(event.delta);
        agent.cancel("user stop");
      }
      if (event.type === "turn-end") ended = event.outcome?.reason.kind;
    }
    expect(ended).toBe("aborted");
    expect(deltas).toEqual(["partial"]);

    const next = await agent.send("again");
    expect(next.reason.kind).toBe("completed");
    expect(provider.calls).toBe(2);

    provider.late.resolve(); // the hung read wakes up: its chunk goes nowhere, its iterator closes
    await new Promise((resolve) => setImmediate(resolve));
    expect(provider.closed).toBe(1);
    expect(deltas).toEqual(["partial"]);
    const log = agent.session.events;
    expect(verifyLog(log).ok).toBe(true);
    expect(JSON.stringify(log)).not.toContain("LATE");
    await agent.dispose();
  });

  test("a dispose mid-stream ends the turn disposed", async () => {
    const provider = new DeafProvider([1]);
    const agent = createAgent({ provider, model: "deaf:m", system: "s", clock: fixedClock() });
    const started = deferred<void>();
    agent.hooks.on("llm/chunk", ({ chunk }) => {
      if (chunk.type === "text-delta") started.resolve();
    });
    const sent = agent.send("hello");
    await started.promise;
    const disposing = agent.dispose();
    expect((await sent).reason.kind).toBe("disposed");
    await disposing;
  });

  test("a cancel during a compaction's summary call ends the compaction aborted", async () => {
    const provider = new DeafProvider([4]); // three turns, then the summary call
    const compaction = createCompaction({ contextWindow: 100_000, keepRecentTokens: 50, summaryMaxTokens: 50 });
    const agent = createAgent({ provider, model: "deaf:m", system: "s", clock: fixedClock(), compaction });
    const words = (seed: number): string => Array.from({ length: 100 }, (_, i) => `w${seed}x${i}`).join(" ");
    for (let i = 0; i < 3; i++) expect((await agent.send(`q ${words(i)}`)).reason.kind).toBe("completed");
    const compacting = agent.compact();
    await provider.hung.promise;
    agent.cancel("user stop");
    expect((await compacting).reason.kind).toBe("aborted");
    expect((await agent.send("again")).reason.kind).toBe("completed");
    provider.late.resolve();
    await new Promise((resolve) => setImmediate(resolve));
    expect(provider.closed).toBe(1);
    expect(verifyLog(agent.session.events).ok).toBe(true);
    await agent.dispose();
  });
});
