// The SSE encoder's ids against a stream that says how far its log is durable (`durableThrough`):
// an event gets its id only up to that, an id-only frame catches up once more is durable, and a
// fleet follower's go-back (the log differs from what a dead worker streamed: the same seqs are
// delivered again) never lets an id cover an event not yet sent again.
import { describe, expect, test } from "vitest";
import type { TurnEvent } from "../../src/loop/index.js";
import { toSSE } from "../../src/serve/index.js";

const step = (seq: number): TurnEvent => ({ type: "step-start", seq, turn: 1, step: seq + 1 });

/** Events, each sent once the log is durable through the given seq; then `end`. */
function script(items: readonly (readonly [TurnEvent, number])[], end: number) {
  let durable = -1;
  return {
    durableThrough: () => durable,
    async *[Symbol.asyncIterator]() {
      for (const [event, through] of items) {
        durable = through;
        yield event;
      }
      durable = end;
    },
  };
}

/** The stream's frames, each as "id N" (an id-only frame) or "<seq>" / "<seq>#N" (an event, with its id). */
async function frames(events: AsyncIterable<TurnEvent>): Promise<string[]> {
  const text = await new Response(toSSE(events, { keepAliveMs: 0 })).text();
  return text
    .split("\n\n")
    .filter((frame) => frame !== "")
    .map((frame) => {
      const id = /^id: (.*)$/m.exec(frame)?.[1];
      const data = /^data: (.*)$/m.exec(frame)?.[1];
      if (data === undefined) return `id ${id}`;
      const seq = (JSON.parse(data) as { seq: number }).seq;
      return id === undefined ? `${seq}` : `${seq}#${id}`;
    });
}

describe("SSE ids up to the durable position", () => {
  test("events past it go without ids; an id-only frame follows as it moves, and at the end", async () => {
    const out = await frames(
      script(
        [
          [step(0), 0],
          [step(1), 0],
          [step(2), 0],
          [step(3), 2],
          [step(4), 2],
        ],
        4,
      ),
    );
    expect(out).toEqual(["0#0", "1", "2", "id 2", "3", "4", "id 4"]);
  });

  test("a go-back: the same seqs delivered again are not covered by an id before they are sent again", async () => {
    const out = await frames(
      script(
        [
          [step(0), 0],
          [step(1), 0], // streamed live by a worker that then died
          [step(2), 0],
          [step(1), 2], // the log's own events at 1 and 2, both durable now
          [step(2), 2],
        ],
        2,
      ),
    );
    expect(out).toEqual(["0#0", "1", "2", "1#1", "2#2"]);
  });

  test("a stream that does not say how far it is durable keeps every id", async () => {
    async function* plain(): AsyncGenerator<TurnEvent> {
      yield step(0);
      yield step(1);
    }
    expect(await frames(plain())).toEqual(["0#0", "1#1"]);
  });
});
