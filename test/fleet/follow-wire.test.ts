// The follow wire format (src/fleet/follow-wire.ts): frames under PostgreSQL's NOTIFY limit that
// reassemble to the message byte for byte, a batch that coalesces deltas and sends big committed
// events by reference, and a decoder that refuses what is not a message.
import { describe, expect, test } from "vitest";
import {
  decodeMessage,
  FrameAssembler,
  frames,
  liveChannel,
  MAX_FRAME_BYTES,
  MAX_INLINE_BYTES,
  MAX_MESSAGE_FRAMES,
  MAX_MESSAGE_ITEM_CHARS,
  MAX_PENDING_DELTA_CHARS,
  PublishBatch,
} from "../../src/fleet/follow-wire.js";
import { FollowSeal } from "../../src/fleet/follow-seal.js";
import type { TurnEvent } from "../../src/loop/index.js";

const key = new FollowSeal(Buffer.alloc(32, 7));
const CHANNEL = liveChannel("wire-test");
const sealed = (text: string): string => key.seal(CHANNEL, text);

const delta = (text: string, index = 0, step = 1): TurnEvent => ({
  type: "text-delta",
  turn: 1,
  step,
  index,
  id: `text_1_${step}_${index}`,
  delta: text,
});

/** The one message a batch's drain sends, reassembled and decoded. */
function sent(batch: PublishBatch) {
  const assembler = new FrameAssembler();
  let text: string | undefined;
  for (const frame of batch.drain()) text = assembler.push(frame);
  return decodeMessage(key.open(CHANNEL, text!)!)!;
}

describe("frames", () => {
  test("a long message of mixed-width characters splits into frames under the limit that reassemble exactly", () => {
    const text = JSON.stringify({ e: 'é中😀a\u2028"\\'.repeat(4000) });
    const parts = frames(7, text);
    expect(parts.length).toBeGreaterThan(1);
    for (const part of parts) expect(Buffer.byteLength(part)).toBeLessThanOrEqual(MAX_FRAME_BYTES);
    const assembler = new FrameAssembler();
    const results = parts.map((p) => assembler.push(p));
    expect(results.slice(0, -1).every((r) => r === undefined)).toBe(true);
    expect(results.at(-1)).toBe(text);
  });

  test("a short message is one frame", () => {
    expect(frames(3, '{"a":1}')).toEqual(['3 0 1 {"a":1}']);
  });

  test("a message whose first frame was missed is dropped; the next one is whole", () => {
    const first = frames(1, "x".repeat(20_000));
    const second = frames(2, "y".repeat(10));
    const assembler = new FrameAssembler();
    for (const part of first.slice(1)) expect(assembler.push(part)).toBeUndefined();
    expect(assembler.push(second[0]!)).toBe("y".repeat(10));
  });
});

describe("a forged message that never ends", () => {
  test("a frame claiming more than MAX_MESSAGE_FRAMES frames is dropped at once: nothing of it is kept", () => {
    const assembler = new FrameAssembler();
    // One frame more than the bound, each a full one: assembled whole, it would be returned at its
    // last frame (and held meanwhile: a claim of 10^9 frames grew a follower without end).
    const count = MAX_MESSAGE_FRAMES + 1;
    const slice = "A".repeat(MAX_FRAME_BYTES - 40);
    for (let frame = 0; frame < count; frame++) expect(assembler.push(`1 ${frame} ${count} ${slice}`)).toBeUndefined();
    expect(assembler.push("2 5 3 x")).toBeUndefined(); // a frame number past the count, too
    expect(assembler.push('3 0 1 {"a":1}')).toBe('{"a":1}'); // a real message after them still assembles
    // At the bound, a message is taken (what the most a follower holds for one: ~32 MB).
    const most = Array.from({ length: MAX_MESSAGE_FRAMES }, (_v, frame) => `4 ${frame} ${MAX_MESSAGE_FRAMES} x`);
    expect(most.map((f) => assembler.push(f)).at(-1)).toBe("x".repeat(MAX_MESSAGE_FRAMES));
    expect(MAX_MESSAGE_FRAMES * MAX_FRAME_BYTES).toBeLessThanOrEqual(32 * 1024 * 1024);
  });

  test("a long publication (a restart of a long turn) is cut into messages a follower takes, seqs in order", () => {
    const batch = new PublishBatch("t1", 1, -1, sealed);
    const text = "é".repeat(30_000); // 60 KB of UTF-8 an event: inline (under MAX_INLINE_BYTES)
    for (let seq = 0; seq < 80; seq++)
      batch.add({ type: "user-message", seq, content: [{ type: "text", text }], source: "user" });
    batch.restart(-1);
    for (let seq = 0; seq < 80; seq++)
      batch.add({ type: "user-message", seq, content: [{ type: "text", text }], source: "user" });
    const assembler = new FrameAssembler();
    const messages = [];
    for (const frame of batch.drain()) {
      const opened = assembler.push(frame);
      if (opened !== undefined) messages.push(decodeMessage(key.open(CHANNEL, opened)!)!);
    }
    expect(messages.length).toBeGreaterThan(4); // 2 × 2.4 M characters, cut at ~1 M
    expect(messages.map((m) => m.message)).toEqual(messages.map((_m, i) => i + 1));
    expect(messages.filter((m) => m.restart)).toHaveLength(1);
    const seqs = messages.flatMap((m) => m.items.map((item) => (item as { seq: number }).seq));
    expect(seqs).toEqual([...Array(80).keys(), ...Array(80).keys()]);
    // Each message names the last committed seq before its first item.
    for (const m of messages) {
      const first = (m.items[0] as { seq: number }).seq;
      expect(m.afterSeq).toBe(m.restart || first === 0 ? -1 : first - 1);
    }
    for (const m of messages) expect(JSON.stringify(m.items).length).toBeLessThanOrEqual(MAX_MESSAGE_ITEM_CHARS + 2);
  });
});

describe("PublishBatch", () => {
  test("each message is numbered (1, 2, …) and goes sealed: its frames carry none of its text", () => {
    // A turn id with a '-', which standard base64 never holds: random ciphertext cannot contain it
    // by chance (a bare "42" did, now and then: two base64 characters in a ~200-character frame).
    const batch = new PublishBatch("turn-42", 1, 3, sealed);
    batch.add(delta("a secret answer"));
    const frames1 = batch.drain();
    expect(frames1.join("")).not.toContain("secret");
    expect(frames1.join("")).not.toContain("turn-42");
    expect(frames1.join("")).not.toContain("-");
    const assembler = new FrameAssembler();
    let text: string | undefined;
    for (const frame of frames1) text = assembler.push(frame);
    expect(decodeMessage(key.open(CHANNEL, text!)!)).toMatchObject({ turnId: "turn-42", message: 1 });
    expect(key.open(liveChannel("another session"), text!)).toBeUndefined();
    batch.add(delta("next"));
    expect(sent(batch).message).toBe(2);
  });

  test("adjacent deltas of one block coalesce while a message is in flight; another block starts a new item", () => {
    const batch = new PublishBatch("42", 1, 3, sealed);
    for (const t of ["He", "ll", "o"]) batch.add(delta(t));
    batch.add(delta("!", 1));
    const message = sent(batch);
    expect(message).toMatchObject({ turnId: "42", attempt: 1, afterSeq: 3 });
    expect(message.items.map((i) => (i as { delta: string }).delta)).toEqual(["Hello", "!"]);
  });

  test("a message names the last committed seq before its first item", () => {
    const batch = new PublishBatch("42", 2, 3, sealed);
    batch.add({ type: "step-start", seq: 4, turn: 1, step: 1 });
    batch.add(delta("a"));
    expect(sent(batch).afterSeq).toBe(3);
    batch.add(delta("b"));
    expect(sent(batch).afterSeq).toBe(4);
  });

  test("a message says how far the worker's log was durable when it was made; a batch without a source says nothing", () => {
    let durable = 2;
    const batch = new PublishBatch("42", 2, 3, sealed, () => durable);
    batch.add({ type: "step-start", seq: 4, turn: 1, step: 1 });
    expect(sent(batch).durableThrough).toBe(2);
    durable = 4; // the step was flushed: the next message says so
    batch.add(delta("a"));
    expect(sent(batch).durableThrough).toBe(4);
    const silent = new PublishBatch("42", 2, 3, sealed);
    silent.add(delta("a"));
    expect(sent(silent)).not.toHaveProperty("durableThrough");
  });

  test("a durable position that is no seq (a string, below -1, a fraction) is not taken; the message still is", () => {
    const base = { t: "42", a: 1, m: 1, s: 3, e: [] };
    for (const d of ["4", -2, 4.5, null, 2 ** 53]) {
      const message = decodeMessage(JSON.stringify({ ...base, d }));
      expect(message).toBeDefined();
      expect(message).not.toHaveProperty("durableThrough");
    }
    expect(decodeMessage(JSON.stringify({ ...base, d: -1 }))?.durableThrough).toBe(-1);
  });

  test("a committed event over the inline bound travels as a reference to its seq", () => {
    const batch = new PublishBatch("42", 1, 0, sealed);
    const big = "z".repeat(MAX_INLINE_BYTES + 1);
    batch.add({ type: "user-message", seq: 1, content: [{ type: "text", text: big }], source: "user" });
    batch.add({ type: "step-start", seq: 2, turn: 1, step: 1 });
    expect(sent(batch).items).toEqual([
      { type: "ref", seq: 1 },
      { type: "step-start", seq: 2, turn: 1, step: 1 },
    ]);
  });

  test("over the pending bound a step's deltas are dropped, and its later deltas too; its block events stay", () => {
    const batch = new PublishBatch("42", 1, 0, sealed);
    batch.add({ type: "text-start", turn: 1, step: 1, index: 0, id: "text_1_1_0" });
    batch.add(delta("x".repeat(MAX_PENDING_DELTA_CHARS)));
    batch.add(delta("y"));
    batch.add(delta("later"));
    batch.add(delta("next step", 0, 2));
    expect(sent(batch).items.map((i) => i.type + ((i as { delta?: string }).delta ?? ""))).toEqual([
      "text-start",
      "text-deltanext step",
    ]);
  });
});

test("decodeMessage refuses what is not a message", () => {
  for (const text of [
    "",
    "not json",
    "[]",
    '{"t":1,"a":1,"m":1,"s":0,"e":[]}',
    '{"t":"1","a":"x","m":1,"s":0,"e":[]}',
    '{"t":"1","a":1,"s":0,"e":[]}', // no message number
  ])
    expect(decodeMessage(text)).toBeUndefined();
  expect(decodeMessage('{"t":"1","a":1,"m":3,"s":-1,"e":[7,{"type":"ref","seq":"x"},{"type":"ref","seq":2}]}')).toEqual(
    {
      turnId: "1",
      attempt: 1,
      message: 3,
      afterSeq: -1,
      restart: false,
      items: [{ type: "ref", seq: 2 }],
    },
  );
  expect(decodeMessage('{"t":"1","a":1,"m":4,"s":2,"r":1,"e":[]}')?.restart).toBe(true);
});

test("a restart: what was added before goes as a message of its own; the next message is marked and starts after the given seq; one restart until it is drained", () => {
  const opened: string[] = [];
  const batch = new PublishBatch("9", 1, 4, (text) => {
    opened.push(text);
    return text;
  });
  batch.add({ type: "step-start", seq: 5, turn: 1, step: 1 });
  batch.add(delta("before"));
  expect(batch.restarting).toBe(false);
  batch.restart(3);
  expect(batch.restarting).toBe(true);
  expect(batch.empty).toBe(false); // the message before the restart waits for the sender
  batch.add({ type: "turn-start", seq: 4, turn: 1, trigger: "send" } as TurnEvent);
  batch.add(delta("before and after"));
  const frames = batch.drain();
  expect(batch.restarting).toBe(false);
  expect(batch.empty).toBe(true);
  expect(frames).toHaveLength(2);
  const [first, second] = opened.map((text) => decodeMessage(text)!);
  expect(first).toMatchObject({ message: 1, afterSeq: 4, restart: false });
  expect(first!.items.map((i) => i.type)).toEqual(["step-start", "text-delta"]);
  expect(second).toMatchObject({ message: 2, afterSeq: 3, restart: true });
  expect(second!.items.map((i) => i.type)).toEqual(["turn-start", "text-delta"]);
  batch.add(delta("next"));
  batch.drain();
  expect(decodeMessage(opened[2]!)).toMatchObject({ message: 3, afterSeq: 4, restart: false });
});

test("decodeMessage drops items that do not have their type's shape (a forged NOTIFY crashed send --follow)", () => {
  const good = delta("ok");
  const bad = [
    { ...good, delta: null },
    { ...good, delta: 7 },
    { ...good, delta: { x: 1 } },
    { ...good, index: -1 },
    { ...good, turn: "1" },
    { type: "text-start", turn: 1, step: 1, index: 0 }, // no id
    { type: "tool-call-start", turn: 1, step: 1, index: 0, callId: "c" }, // no name
    { type: "no-such-event", turn: 1, step: 1, index: 0, id: "x" },
    { type: "assistant-message", seq: -3, content: [] },
    { type: "tool-progress", turn: 1, step: 1, callId: "c", progress: "half" },
    { type: "subagent", callId: "c", path: [1], event: { type: "x" } },
    [good],
  ];
  const message = decodeMessage(JSON.stringify({ t: "1", a: 1, m: 1, s: 0, e: [...bad, good] }));
  expect(message?.items).toEqual([good]);
});

test("a session's live channel is a plain identifier, the same for the same id", () => {
  const channel = liveChannel("any text: ünïcode / spaces");
  expect(channel).toMatch(/^[a-z_][a-z0-9_]{0,62}$/);
  expect(liveChannel("any text: ünïcode / spaces")).toBe(channel);
  expect(liveChannel("another")).not.toBe(channel);
});
