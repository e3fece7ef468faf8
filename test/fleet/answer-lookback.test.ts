// latestAnswerBefore: a follower's read back for the answer a question takes its call from —
// windows that double going back, the latest answer wins, nothing read past the bound or below 0.
import { describe, expect, test } from "vitest";
import { latestAnswerBefore, MAX_ANSWER_LOOKBACK } from "../../src/fleet/answer-lookback.js";
import type { SessionEvent } from "../../src/session/index.js";

const event = (seq: number, type: string): SessionEvent => ({ seq, type, data: {} }) as unknown as SessionEvent;

function logOf(length: number, answers: readonly number[]) {
  const events = Array.from({ length }, (_, seq) =>
    event(seq, answers.includes(seq) ? "assistant/message" : "tool/result"),
  );
  const reads: [number, number][] = [];
  const readEvents = async (from: number, to: number) => {
    reads.push([from, to]);
    return events.slice(from, to);
  };
  return { readEvents, reads };
}

describe("latestAnswerBefore", () => {
  test("finds the latest answer before the seq, reading windows that double", async () => {
    const { readEvents, reads } = logOf(200, [3, 40, 150]);
    expect((await latestAnswerBefore(readEvents, 100))?.seq).toBe(40);
    expect(reads).toEqual([
      [84, 100],
      [52, 84],
      [0, 52],
    ]);
    expect((await latestAnswerBefore(readEvents, 151))?.seq).toBe(150);
  });

  test("none: undefined, without reading below 0 or further back than the bound", async () => {
    const small = logOf(10, []);
    expect(await latestAnswerBefore(small.readEvents, 10)).toBeUndefined();
    expect(small.reads).toEqual([[0, 10]]);
    expect(await latestAnswerBefore(small.readEvents, 0)).toBeUndefined();
    expect(small.reads).toHaveLength(1);
    const long = logOf(10_000, [0]);
    expect(await latestAnswerBefore(long.readEvents, 10_000)).toBeUndefined();
    expect(Math.min(...long.reads.map(([from]) => from))).toBe(10_000 - MAX_ANSWER_LOOKBACK);
  });
});
