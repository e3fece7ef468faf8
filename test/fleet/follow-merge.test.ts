// The follower's merge (src/fleet/follow-merge.ts), without a database: live messages and
// durable events in any interleaving come out in log order, live items after the committed
// event they follow; refs and turn ends wait for the log; the log wins over what a lost worker
// streamed; an older attempt is ignored; deltas are bounded; a block's delta or end comes only
// after its start, and a worker's restart message repeats nothing a follower has.
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
const textStart = (step = 1, index = 0): TurnEvent => ({
  type: "text-start",
  turn: 1,
  step,
  index,
  id: `text_1_${step}_${index}`,
});
const textEnd = (step = 1, index = 0): TurnEvent => ({
  type: "text-end",
  turn: 1,
  step,
  index,
  id: `text_1_${step}_${index}`,
});
/** Messages are numbered as a worker numbers them: 1, 2, … in the order made. */
let made = 0;
const message = (afterSeq: number, items: WireItem[], attempt = 1, restart = false): LiveMessage => ({
  turnId: "7",
  attempt,
  message: ++made,
  afterSeq,
  restart,
  items,
});

/** The worker's copy of a question asked before call c1 runs, at `seq`, with that call. */
const askedAt = (seq: number, call: { name: string; arguments: string }) =>
  ({ type: "input-request", seq, id: "c1", source: "ship", schema: {}, message: "Where?", call }) as const;

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
    merge.live(message(4, [{ type: "step-start", seq: 5, turn: 1, step: 1 }, textStart(), delta("Hi")]));
    expect(drain(merge).map(label)).toEqual(["step-start@5", "text-start", "text-delta:Hi"]);
    merge.durable([stepStart(5), answer(6, "Hi"), stepEnd(7)]);
    expect(drain(merge).map(label)).toEqual(["assistant-message@6", "step-end@7"]);
  });

  test("deltas of a follower that joined mid-step wait for the log to fill what it missed", () => {
    const merge = new FollowMerge();
    merge.start(5);
    merge.live(message(5, [textStart(), delta("later")])); // follows seq 5, which this follower never saw live
    expect(drain(merge)).toEqual([]);
    merge.durable([stepStart(5)]);
    expect(drain(merge).map(label)).toEqual(["step-start@5", "text-start", "text-delta:later"]);
  });

  test("a delta the log overtook (its successor delivered already) is dropped", () => {
    const merge = new FollowMerge();
    merge.start(5);
    merge.durable([stepStart(5), answer(6, "ab")]);
    expect(drain(merge).map(label)).toEqual(["step-start@5", "assistant-message@6"]);
    merge.live(message(5, [textStart(), delta("ab")]));
    expect(drain(merge)).toEqual([]);
  });

  test("a reference waits for the log, and so does everything after it", () => {
    const merge = new FollowMerge();
    merge.start(5);
    merge.live(message(4, [{ type: "ref", seq: 5 }, textStart(), delta("x")]));
    expect(drain(merge)).toEqual([]);
    merge.durable([stepStart(5)]);
    expect(drain(merge).map(label)).toEqual(["step-start@5", "text-start", "text-delta:x"]);
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
    merge.live(message(4, [{ type: "step-start", seq: 5, turn: 1, step: 1 }, textStart(), delta("par")]));
    expect(drain(merge).map(label)).toEqual(["step-start@5", "text-start", "text-delta:par"]);
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

  test("a question with or without its call is the log's question: confirmed, not delivered again", () => {
    const merge = new FollowMerge();
    merge.start(9);
    const question = {
      type: "input-request",
      seq: 9,
      id: "c1",
      source: "ship",
      schema: {},
      message: "Where?",
    } as const;
    const call = { name: "ship", arguments: "{}" };
    merge.live(message(8, [{ ...question, call }]));
    expect(drain(merge)).toEqual([{ ...question, call }]);
    // The log's copy: this follower started after the answer, so it has no call of its own.
    merge.durable([logged(9, "input/request", { id: "c1", source: "ship", schema: {}, message: "Where?" })]);
    expect(drain(merge)).toEqual([]);
    // The log's copy first (no answer placed: held for the follower's read back, which found
    // none), the worker's after: the same event, not delivered again.
    const first = new FollowMerge();
    first.start(9);
    first.durable([logged(9, "input/request", { id: "c1", source: "ship", schema: {}, message: "Where?" })]);
    expect(drain(first)).toEqual([]);
    expect(first.wantsAnswerBefore).toBe(9);
    first.answerFound(undefined);
    expect(first.wantsAnswerBefore).toBeUndefined();
    expect(drain(first)).toEqual([question]);
    first.live(message(8, [{ ...question, call }]));
    expect(drain(first)).toEqual([]);
    // A worker of an earlier version sends the question without its call: this follower, which
    // read the answer, gives it the call — and the log's copy is the same event.
    const skewed = new FollowMerge();
    skewed.start(8);
    skewed.durable([
      logged(8, "assistant/message", { turn: 1, step: 1, content: [{ type: "tool-call", callId: "c1", ...call }] }),
    ]);
    skewed.live(message(8, [question]));
    expect(drain(skewed).at(-1)).toEqual({ ...question, call });
    skewed.durable([logged(9, "input/request", { id: "c1", source: "ship", schema: {}, message: "Where?" })]);
    expect(drain(skewed)).toEqual([]);
  });

  test("a question from the log gets its call from the answer read before it, or from the worker's copy", () => {
    const request = (seq: number) =>
      logged(seq, "input/request", { id: "c1", source: "ship", schema: {}, message: "Where?" });
    const withCall = logged(4, "assistant/message", {
      turn: 1,
      step: 1,
      content: [{ type: "tool-call", callId: "c1", name: "ship", arguments: '{"what":"v2"}' }],
    });
    const read = new FollowMerge();
    read.start(4);
    read.durable([withCall, request(5)]);
    expect(drain(read).at(-1)).toMatchObject({
      type: "input-request",
      call: { name: "ship", arguments: '{"what":"v2"}' },
    });
    const late = new FollowMerge();
    late.start(9);
    const call = { name: "ship", arguments: "{}" };
    late.live(message(8, [askedAt(9, call)]));
    late.durable([request(9)]); // before the live copy was taken: the log's copy keeps the worker's call
    expect(drain(late)).toMatchObject([{ type: "input-request", seq: 9, call }]);
    // Started after the answer, the log's copy alone: held until the read back hands the answer
    // over; then delivered with its call, and the worker's copy later is the same event.
    const after = new FollowMerge();
    after.start(9);
    after.durable([request(9), logged(10, "turn/end", { turn: 2, reason: { kind: "awaiting-input" } })]);
    expect(drain(after)).toEqual([]);
    expect(after.wantsAnswerBefore).toBe(9);
    after.answerFound(withCall);
    const delivered = drain(after);
    expect(delivered[0]).toMatchObject({
      type: "input-request",
      seq: 9,
      call: { name: "ship", arguments: '{"what":"v2"}' },
    });
    after.live(message(8, [askedAt(9, { name: "ship", arguments: '{"what":"v2"}' })]));
    expect(drain(after)).toEqual([]);
    // The question placed before its answer (the worker's copy, of a version that sends none, heard
    // before the log's answer is read): delivered after the answer, with the call taken from it.
    const reversed = new FollowMerge();
    reversed.start(4);
    reversed.live(
      message(4, [{ type: "input-request", seq: 5, id: "c1", source: "ship", schema: {}, message: "Where?" }]),
    );
    expect(drain(reversed)).toEqual([]);
    reversed.durable([withCall]);
    expect(drain(reversed).map((e) => (e.type === "input-request" ? e.call : e.type))).toEqual([
      "assistant-message",
      { name: "ship", arguments: '{"what":"v2"}' },
    ]);
    expect(reversed.wantsAnswerBefore).toBeUndefined();
    // A question whose answer this follower placed is never held.
    const placed = new FollowMerge();
    placed.start(4);
    placed.durable([withCall, request(5)]);
    expect(drain(placed).map((e) => e.type)).toEqual(["assistant-message", "input-request"]);
    expect(placed.wantsAnswerBefore).toBeUndefined();
  });

  test("a later attempt's messages supersede an earlier attempt's", () => {
    const merge = new FollowMerge();
    merge.start(5);
    expect(merge.live(message(4, [{ type: "step-start", seq: 5, turn: 1, step: 1 }], 2))).toBe("taken");
    expect(merge.live(message(5, [textStart(), delta("stale")], 1))).toBe("stale");
    expect(drain(merge).map(label)).toEqual(["step-start@5"]);
  });

  test("a message heard again (replayed on the channel) is not delivered twice; a later one is", () => {
    const merge = new FollowMerge();
    merge.start(5);
    const first = message(4, [{ type: "step-start", seq: 5, turn: 1, step: 1 }, textStart(), delta("once")]);
    expect(merge.live(first)).toBe("taken");
    expect(drain(merge).map(label)).toEqual(["step-start@5", "text-start", "text-delta:once"]);
    expect(merge.live(first)).toBe("stale");
    expect(merge.live({ ...first, message: first.message - 1 })).toBe("stale");
    expect(drain(merge)).toEqual([]);
    expect(merge.live(message(5, [delta(" more")]))).toBe("taken");
    expect(drain(merge).map(label)).toEqual(["text-delta: more"]);
  });
});

test("over the bound a lagging consumer's queued deltas and block ends are dropped and the step streams no more; block starts stay", () => {
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
  // The first block's end went with its delta: a client that ended its part on it would hold half a text.
  expect(drain(merge).map(label)).toEqual(["step-start@5", "text-start", "text-start"]);
});

describe("blocks: a delta or an end only after its start, each block's text once", () => {
  const stepStartItem = { type: "step-start", seq: 5, turn: 1, step: 1 } as const;

  test("a follower that joined after a block started gets none of its deltas nor its end (the answer carries it)", () => {
    const merge = new FollowMerge();
    merge.start(5);
    merge.live(message(4, [stepStartItem, delta("lost "), textEnd(), textStart(1, 1)]));
    merge.live(message(5, [{ ...delta("kept", 1), index: 1, id: "text_1_1_1" } as TurnEvent]));
    expect(drain(merge).map(label)).toEqual(["step-start@5", "text-start", "text-delta:kept"]);
  });

  test("a restart gives a newcomer each open block's start and its text so far", () => {
    const merge = new FollowMerge();
    merge.start(5);
    merge.live(message(5, [delta("w3 w4 ")])); // heard before the restart: its block's start is not known yet
    merge.live(message(4, [stepStartItem, textStart(), delta("w0 w1 w2 w3 w4 ")], 1, true));
    merge.live(message(5, [delta("w5 ")]));
    expect(drain(merge).map(label)).toEqual(["step-start@5", "text-start", "text-delta:w0 w1 w2 w3 w4 w5 "]); // queued deltas coalesce
  });

  test("a follower that has the blocks takes from a restart only the text it lacks, and no start or end twice", () => {
    const merge = new FollowMerge();
    merge.start(5);
    merge.live(message(4, [stepStartItem, textStart(), delta("Hel"), delta("lo"), textEnd(), textStart(1, 1)]));
    merge.live(message(5, [{ ...delta("wor", 1), index: 1, id: "text_1_1_1" } as TurnEvent]));
    const before = drain(merge).map(label);
    merge.live(
      message(
        4,
        [
          stepStartItem,
          textStart(),
          delta("Hello"),
          textEnd(),
          textStart(1, 1),
          { ...delta("world", 1), index: 1, id: "text_1_1_1" } as TurnEvent,
          textEnd(1, 1),
          { ...delta("!", 1), index: 1, id: "text_1_1_1" } as TurnEvent, // after its end: dropped
        ],
        1,
        true,
      ),
    );
    expect(before).toEqual([
      "step-start@5",
      "text-start",
      "text-delta:Hello",
      "text-end",
      "text-start",
      "text-delta:wor",
    ]);
    expect(drain(merge).map(label)).toEqual(["text-delta:ld", "text-end"]);
  });

  test("in a restart only a block's first delta is its text so far; the next ones are new text", () => {
    const merge = new FollowMerge();
    merge.start(5);
    merge.live(message(4, [stepStartItem, textStart(), delta("ab")]));
    expect(drain(merge).map(label)).toEqual(["step-start@5", "text-start", "text-delta:ab"]);
    merge.live(
      message(
        5,
        [
          textStart(),
          delta("abc"),
          { type: "tool-progress", turn: 1, step: 1, callId: "c", progress: 1 } as TurnEvent,
          delta("ab"),
        ],
        1,
        true,
      ),
    );
    expect(drain(merge).map(label)).toEqual(["text-delta:c", "tool-progress", "text-delta:ab"]);
  });

  test("messages missed: the open blocks stream no more, nor end (the answer ends them); a block started after is whole", () => {
    const merge = new FollowMerge();
    merge.start(5);
    merge.live(message(4, [stepStartItem, textStart(), delta("a")]));
    made++; // a message this follower never heard
    expect(merge.live(message(5, [delta("c"), textEnd(), textStart(1, 1)]))).toBe("missed");
    merge.live(message(5, [{ ...delta("new", 1), index: 1, id: "text_1_1_1" } as TurnEvent]));
    expect(drain(merge).map(label)).toEqual([
      "step-start@5",
      "text-start",
      "text-delta:a",
      "text-start",
      "text-delta:new",
    ]);
  });

  test("a retried attempt's block at the same position, after the retry's commit, is a new block", () => {
    const merge = new FollowMerge();
    merge.start(5);
    merge.live(message(4, [stepStartItem, textStart(), delta("first try")]));
    merge.live(
      message(5, [
        { type: "retry", seq: 6, turn: 1, step: 1, attempt: 1, code: "overloaded", delayMs: 0 } as TurnEvent,
        textStart(),
        delta("second"),
      ]),
    );
    expect(drain(merge).map(label)).toEqual([
      "step-start@5",
      "text-start",
      "text-delta:first try",
      "retry@6",
      "text-start",
      "text-delta:second",
    ]);
  });
});
