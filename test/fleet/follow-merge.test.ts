// The follower's merge (src/fleet/follow-merge.ts), without a database: live messages and
// durable events in any interleaving come out in log order, live items after the committed
// event they follow; refs and turn ends wait for the log; the log wins over what a lost worker
// streamed; an older attempt is ignored; deltas are bounded.
import { describe, expect, test } from "vitest";
import { FollowMerge } from "../../src/fleet/follow-merge.js";
import type { LiveMessage, WireItem } from "../../src/fleet/follow-wire.js";
import type { TurnEvent } from "../../src/loop/index.js";
import type { SessionEvent } from "../../src/session/index.js";

const logged = (seq: number, type: string, data: Record<string, unknown>): SessionEvent =>
  ({ seq, type, time: 0, data }) as unknown as SessionEvent;
const stepStart = (seq: number, step = 1) => logged(seq, "step/start", { turn: 1, step });
const stepEnd = (seq: number, step = 1) => logged(seq, "step/end", { turn: 1, step });
const answer = (seq: number, text: string) =>
  logged(seq, "assistant/message", { turn: 1, step: 1, content: [{ type: "text", text }] });
const turnEnd = (seq: number, kind = "completed") => logged(seq, "turn/end", { turn: 1, reason: { kind } });

const delta = (text: string, step = 1): TurnEvent => ({
  type: "text-delta",
  turn: 1,
  step,
  index: 0,
  id: `text_1_${step}_0`,
  delta: text,
});
/** Messages are numbered as a worker numbers them: 1, 2, … in the order made. */
let made = 0;
const message = (afterSeq: number, items: WireItem[], attempt = 1): LiveMessage => ({
  turnId: "7",
  attempt,
  message: ++made,
  afterSeq,
  items,
});

function drain(merge: FollowMerge): TurnEvent[] {
  const out: TurnEvent[] = [];
  for (let event = merge.next(); event !== undefined; event = merge.next()) out.push(event);
  return out;
}

const label = (e: TurnEvent): string =>
  "seq" in e ? `${e.type}@${e.seq}` : `${e.type}${"delta" in e ? `:${e.delta}` : ""}`;

describe("ordering", () => {
  test("a live delta comes after the committed event it follows, before the next one", () => {
    const merge = new FollowMerge();
    merge.start(5);
    merge.live(message(4, [{ type: "step-start", seq: 5, turn: 1, step: 1 }, delta("Hi")]));
    expect(drain(merge).map(label)).toEqual(["step-start@5", "text-delta:Hi"]);
    merge.durable([stepStart(5), answer(6, "Hi"), stepEnd(7)]);
    expect(drain(merge).map(label)).toEqual(["assistant-message@6", "step-end@7"]);
  });

  test("deltas of a follower that joined mid-step wait for the log to fill what it missed", () => {
    const merge = new FollowMerge();
    merge.start(5);
    merge.live(message(5, [delta("later")])); // follows seq 5, which this follower never saw live
    expect(drain(merge)).toEqual([]);
    merge.durable([stepStart(5)]);
    expect(drain(merge).map(label)).toEqual(["step-start@5", "text-delta:later"]);
  });

  test("a delta the log overtook (its successor delivered already) is dropped", () => {
    const merge = new FollowMerge();
    merge.start(5);
    merge.durable([stepStart(5), answer(6, "ab")]);
    expect(drain(merge).map(label)).toEqual(["step-start@5", "assistant-message@6"]);
    merge.live(message(5, [delta("ab")]));
    expect(drain(merge)).toEqual([]);
  });

  test("a reference waits for the log, and so does everything after it", () => {
    const merge = new FollowMerge();
    merge.start(5);
    merge.live(message(4, [{ type: "ref", seq: 5 }, delta("x")]));
    expect(drain(merge)).toEqual([]);
    merge.durable([stepStart(5)]);
    expect(drain(merge).map(label)).toEqual(["step-start@5", "text-delta:x"]);
  });

  test("a turn's end is taken from the log only, never from a live message", () => {
    const merge = new FollowMerge();
    merge.start(8);
    merge.live(message(7, [{ type: "turn-end", seq: 8, turn: 1, reason: { kind: "completed" } }]));
    expect(drain(merge)).toEqual([]);
    merge.durable([turnEnd(8)]);
    expect(drain(merge).map(label)).toEqual(["turn-end@8"]);
  });

  test("durable events before the start are not kept; live ones are (a queued turn's follower)", () => {
    const merge = new FollowMerge();
    merge.durable([stepStart(3)]);
    merge.live(message(4, [{ type: "step-start", seq: 5, turn: 1, step: 1 }]));
    merge.start(3);
    expect(drain(merge)).toEqual([]); // seq 3 came before the start: the log is read again from there
    merge.durable([stepStart(3), stepEnd(4)]);
    expect(drain(merge).map(label)).toEqual(["step-start@3", "step-end@4", "step-start@5"]);
  });
});

describe("a lost worker", () => {
  test("when the log holds something else at a seq delivered live, delivery goes back to it and goes on from the log", () => {
    const merge = new FollowMerge();
    merge.start(5);
    merge.live(message(4, [{ type: "step-start", seq: 5, turn: 1, step: 1 }, delta("par")]));
    expect(drain(merge).map(label)).toEqual(["step-start@5", "text-delta:par"]);
    // The worker died before saving seq 5; crash repair closed the turn there.
    merge.durable([turnEnd(5, "interrupted")]);
    expect(drain(merge).map(label)).toEqual(["turn-end@5"]);
  });

  test("the same event saved later is confirmed silently (never delivered twice)", () => {
    const merge = new FollowMerge();
    merge.start(5);
    merge.live(message(4, [{ type: "step-start", seq: 5, turn: 1, step: 1 }]));
    expect(drain(merge)).toHaveLength(1);
    merge.durable([stepStart(5)]);
    expect(drain(merge)).toEqual([]);
  });

  test("a later attempt's messages supersede an earlier attempt's", () => {
    const merge = new FollowMerge();
    merge.start(5);
    expect(merge.live(message(4, [{ type: "step-start", seq: 5, turn: 1, step: 1 }], 2))).toBe(true);
    expect(merge.live(message(5, [delta("stale")], 1))).toBe(false);
    expect(drain(merge).map(label)).toEqual(["step-start@5"]);
  });

  test("a message heard again (replayed on the channel) is not delivered twice; a later one is", () => {
    const merge = new FollowMerge();
    merge.start(5);
    const first = message(4, [{ type: "step-start", seq: 5, turn: 1, step: 1 }, delta("once")]);
    expect(merge.live(first)).toBe(true);
    expect(drain(merge).map(label)).toEqual(["step-start@5", "text-delta:once"]);
    expect(merge.live(first)).toBe(false);
    expect(merge.live({ ...first, message: first.message - 1 })).toBe(false);
    expect(drain(merge)).toEqual([]);
    expect(merge.live(message(5, [delta(" more")]))).toBe(true);
    expect(drain(merge).map(label)).toEqual(["text-delta: more"]);
  });
});

test("over the bound a lagging consumer's queued deltas are dropped and the step streams no more; block events stay", () => {
  const merge = new FollowMerge({ maxBufferedChars: 100 });
  merge.start(5);
  merge.live(
    message(4, [
      { type: "step-start", seq: 5, turn: 1, step: 1 },
      { type: "text-start", turn: 1, step: 1, index: 0, id: "text_1_1_0" },
      delta("x".repeat(60)),
      { type: "text-end", turn: 1, step: 1, index: 0, id: "text_1_1_0" },
      { type: "text-start", turn: 1, step: 1, index: 1, id: "text_1_1_1" },
      { ...delta("y".repeat(60)), index: 1, id: "text_1_1_1" } as TurnEvent,
    ]),
  );
  merge.live(message(5, [{ ...delta("z"), index: 1, id: "text_1_1_1" } as TurnEvent]));
  expect(drain(merge).map(label)).toEqual(["step-start@5", "text-start", "text-end", "text-start"]);
});
