import { describe, expect, test } from "vitest";
import type { TextBlock } from "../../src/messages/index.js";
import { type EventDataMap, type EventType, Session, SessionError, type SurfaceOp } from "../../src/session/index.js";
import { fixedClock, newSession, sessionWithOpen, text, twoTurnLog } from "../support/builders.js";
import { expectRejectedUnchanged, expectSessionError } from "./log-assertions.js";

/** `append` with data the type system would refuse: the runtime is what is under test. */
const appendRaw = (s: Session, type: string, data: unknown, op?: unknown): unknown =>
  s.append(type as EventType, data as EventDataMap[EventType], op as SurfaceOp | undefined);

/** A session with one complete turn and turn 2 open, so rejected appends have history to preserve. */
function busySession(): Session {
  const s = twoTurnLog();
  s.append("turn/start", { turn: 3, trigger: "send" });
  s.append("user/message", { content: [text("third")], source: "user" });
  return s;
}

describe("Session.append commits events", () => {
  test("seq equals the event's index, from 0, contiguously", () => {
    const s = twoTurnLog();
    expect(s.length).toBeGreaterThan(10);
    s.events.forEach((e, i) => {
      expect(e.seq).toBe(i);
    });
  });

  test("returns the committed event, which is the one in the log", () => {
    const s = sessionWithOpen("turn");
    const e = s.append("user/message", { content: [text("hi")], source: "user" });
    expect(s.events[e.seq]).toBe(e);
    expect(e).toEqual({
      type: "user/message",
      seq: 1,
      time: e.time,
      data: { content: [text("hi")], source: "user" },
      surfaceOp: "append",
    });
  });

  test("time comes from the session's clock", () => {
    const s = newSession("s-clock", { clock: fixedClock(42) });
    expect(s.append("turn/start", { turn: 1, trigger: "send" }).time).toBe(42);
    expect(s.append("turn/end", { turn: 1, reason: { kind: "completed" } }).time).toBe(43);
  });

  test("surface events default to surfaceOp 'append'; other events carry none", () => {
    const s = sessionWithOpen("turn");
    expect(s.append("context/message", { content: [text("c")], source: "inject" }).surfaceOp).toBe("append");
    const end = s.append("turn/end", { turn: 1, reason: { kind: "completed" } });
    expect("surfaceOp" in end).toBe(false);
    expect("sourceEventSeqs" in end).toBe(false);
  });

  test("the returned event is deep-frozen: mutating it throws a TypeError", () => {
    const s = sessionWithOpen("turn");
    const e = s.append("user/message", { content: [text("hi")], source: "user" });
    expect(Object.isFrozen(e)).toBe(true);
    expect(() => {
      (e as { seq: number }).seq = 7;
    }).toThrow(TypeError);
    expect(() => {
      (e.data.content as TextBlock[]).push(text("more"));
    }).toThrow(TypeError);
    expect(() => {
      (e.data.content[0] as { text: string }).text = "changed";
    }).toThrow(TypeError);
    expect(s.deriveMessages()).toEqual([{ role: "user", content: [text("hi")] }]);
  });

  test("the events snapshot is frozen and cannot be pushed to or reassigned", () => {
    const s = twoTurnLog();
    const events = s.events;
    expect(Object.isFrozen(events)).toBe(true);
    expect(() => {
      (events as unknown[]).push(events[0]);
    }).toThrow(TypeError);
    expect(() => {
      (events as unknown[])[0] = events[1];
    }).toThrow(TypeError);
    for (const e of events) expect(Object.isFrozen(e) && Object.isFrozen(e.data)).toBe(true);
  });

  test("an events snapshot taken earlier does not change after later appends", () => {
    const s = sessionWithOpen("turn");
    const before = s.events;
    const copy = [...before];
    s.append("user/message", { content: [text("later")], source: "user" });
    expect(before).toEqual(copy);
    expect(before).toHaveLength(1);
    expect(s.events).toHaveLength(2);
    expect(s.events).not.toBe(before);
  });

  test("reading events twice without an append returns the same snapshot", () => {
    const s = twoTurnLog();
    expect(s.events).toBe(s.events);
  });

  test("the data is copied: mutating the caller's object afterwards changes nothing in the log", () => {
    const s = sessionWithOpen("turn");
    const content = [text("original")];
    const data = { content, source: "user" };
    const e = s.append("user/message", data);
    content.push(text("sneaked in"));
    (content[0] as { text: string }).text = "edited";
    data.source = "edited";
    expect(e.data).toEqual({ content: [text("original")], source: "user" });
    expect(s.deriveMessages()).toEqual([{ role: "user", content: [text("original")] }]);
    expect(Object.isFrozen(content)).toBe(false); // the caller's object is not frozen either
  });

  test("unknown extra payload keys are kept (a newer writer may add them)", () => {
    const s = sessionWithOpen("turn");
    const e = appendRaw(s, "user/message", { content: [text("x")], source: "user", extra: { v: 1 } }) as {
      data: unknown;
    };
    expect(e.data).toEqual({ content: [text("x")], source: "user", extra: { v: 1 } });
  });
});

describe("Session.append rejects data that is not lossless JSON and leaves the log unchanged", () => {
  const cyclic = (): unknown => {
    const o: Record<string, unknown> = { source: "user", content: [text("c")] };
    o.self = o;
    return o;
  };
  const holes = (): unknown[] => {
    const a: unknown[] = [text("a")];
    a[2] = text("c");
    return a;
  };
  const cases: readonly (readonly [string, () => unknown])[] = [
    ["an undefined member", () => ({ content: [text("x")], source: "user", note: undefined })],
    ["an undefined array element", () => ({ content: [text("x"), undefined], source: "user" })],
    ["-0", () => ({ content: [text("x")], source: "user", meta: { weight: -0 } })],
    ["NaN", () => ({ content: [text("x")], source: "user", score: Number.NaN })],
    ["Infinity", () => ({ content: [text("x")], source: "user", score: Number.POSITIVE_INFINITY })],
    ["a cycle", cyclic],
    ["a class instance", () => ({ content: [text("x")], source: "user", at: new Date(0) })],
    ["a sparse array", () => ({ content: holes(), source: "user" })],
    ["a function", () => ({ content: [text("x")], source: "user", f: () => 0 })],
    ["a bigint", () => ({ content: [text("x")], source: "user", n: 1n })],
  ];

  test.each(cases)("rejects %s with invalid-data", (_name, make) => {
    const s = busySession();
    const error = expectRejectedUnchanged(s, () => appendRaw(s, "user/message", make()), "invalid-data");
    expect(error.seq).toBe(s.length);
    expect(error.message).toContain("user/message");
  });

  test("the error's cause is the JsonError naming the path inside data", () => {
    const s = busySession();
    const error = expectSessionError(
      () => appendRaw(s, "user/message", { content: [text("x")], source: "user", meta: { w: -0 } }),
      "invalid-data",
    );
    expect(error.cause).toMatchObject({ name: "JsonError", code: "negative-zero", path: "data.meta.w" });
  });

  test("a rejected append does not consume a seq: the next good append gets the next index", () => {
    const s = busySession();
    const n = s.length;
    expect(() => appendRaw(s, "user/message", { content: [undefined], source: "user" })).toThrow(SessionError);
    expect(s.append("user/message", { content: [text("ok")], source: "user" }).seq).toBe(n);
  });
});

describe("Session.append rejects payloads that do not fit the type and leaves the log unchanged", () => {
  const cases: readonly (readonly [string, string, unknown])[] = [
    ["a user message without content", "user/message", { source: "user" }],
    ["a user message without source", "user/message", { content: [text("x")] }],
    ["content that is not an array", "user/message", { content: "hi", source: "user" }],
    [
      "a content block of the wrong kind for the role",
      "user/message",
      { content: [{ type: "tool-call", callId: "c", name: "n", arguments: "{}" }], source: "user" },
    ],
    ["a text block without text", "context/message", { content: [{ type: "text" }], source: "inject" }],
    ["a steering message with a string turn", "steering/message", { turn: "1", content: [text("x")], source: "user" }],
    ["data that is not an object", "user/message", [text("x")]],
    ["data that is null", "user/message", null],
    ["a turn/end with an unknown reason kind", "turn/end", { turn: 3, reason: { kind: "exploded" } }],
    ["an aborted turn/end without a reason string", "turn/end", { turn: 3, reason: { kind: "aborted" } }],
    ["a turn number of 0", "turn/end", { turn: 0, reason: { kind: "completed" } }],
    ["a fractional turn number", "steering/message", { turn: 1.5, content: [text("x")], source: "user" }],
    ["a request/header with an unknown reason", "request/header", { header: {}, reason: "whim" }],
    [
      "a compact/start with a negative token estimate",
      "compact/start",
      { turn: 3, trigger: "auto", estimatedTokens: -1 },
    ],
  ];

  test.each(cases)("rejects %s with invalid-data", (_name, type, data) => {
    const s = busySession();
    expectRejectedUnchanged(s, () => appendRaw(s, type, data), "invalid-data");
  });

  test("rejects an unknown event type with invalid-event", () => {
    const s = busySession();
    const error = expectRejectedUnchanged(
      s,
      () => appendRaw(s, "user/shout", { content: [text("x")], source: "user" }),
      "invalid-event",
    );
    expect(error.message).toContain("user/shout");
  });

  test.each(["toString", "__proto__", "constructor"])("an inherited property name %s is not an event type", (type) => {
    const s = busySession();
    expectRejectedUnchanged(s, () => appendRaw(s, type, {}), "invalid-event");
  });

  test("the error message names the offending field", () => {
    const s = busySession();
    const error = expectSessionError(
      () => appendRaw(s, "turn/end", { turn: 3, reason: { kind: "error", step: 1 } }),
      "invalid-data",
    );
    expect(error.message).toContain("reason.message");
  });
});

describe("Session.append validates surface metadata", () => {
  test("a surfaceOp on a non-surface event is rejected and the log is unchanged", () => {
    const s = busySession();
    expectRejectedUnchanged(
      s,
      () => appendRaw(s, "turn/end", { turn: 3, reason: { kind: "completed" } }, "append"),
      "invalid-surface-op",
    );
    expectRejectedUnchanged(
      s,
      () => appendRaw(s, "turn/end", { turn: 3, reason: { kind: "completed" } }, { op: "replace", start: 0, end: 0 }),
      "invalid-surface-op",
    );
  });

  test.each([
    ["a string that is not 'append'", "replace"],
    ["a replace without end", { op: "replace", start: 0 }],
    ["fractional positions", { op: "replace", start: 0.5, end: 1 }],
    ["an extra key", { op: "replace", start: 0, end: 0, note: "x" }],
    ["an unknown op", { op: "delete", start: 0, end: 0 }],
  ])("a malformed surfaceOp (%s) is rejected with invalid-surface-op", (_name, op) => {
    const s = busySession();
    expectRejectedUnchanged(
      s,
      () => appendRaw(s, "user/message", { content: [text("x")], source: "user" }, op),
      "invalid-surface-op",
    );
  });

  // `append` promises a SessionError for every rejection; a surfaceOp that is not lossless JSON
  // must not leak the json layer's JsonError to the caller.
  test.each([
    ["NaN positions", { op: "replace", start: Number.NaN, end: 0 }],
    ["a -0 position", { op: "replace", start: -0, end: 0 }],
    ["an undefined member", { op: "replace", start: 0, end: 0, note: undefined }],
  ])("a surfaceOp that is not lossless JSON (%s) is rejected with a SessionError", (_name, op) => {
    const s = busySession();
    const before = s.events;
    let thrown: unknown;
    try {
      appendRaw(s, "user/message", { content: [text("x")], source: "user" }, op);
    } catch (e) {
      thrown = e;
    }
    expect(s.events).toBe(before);
    expect(thrown).toBeInstanceOf(SessionError);
  });
});

describe("Session.append keeps the log loadable", () => {
  // `fromLog` rejects a time that is not epoch ms; a log that append produced must load again.
  test("an event time that is not epoch ms is rejected at append, not at the next load", () => {
    const s = Session.create({ id: "s-bad-clock", createdAt: 1 }, { clock: () => Number.NaN });
    let appended = true;
    try {
      s.append("turn/start", { turn: 1, trigger: "send" });
    } catch {
      appended = false;
    }
    if (appended) {
      expect(() => Session.fromLog(s.header, JSON.parse(JSON.stringify(s.events)) as unknown[])).not.toThrow();
    } else {
      expect(s.length).toBe(0);
    }
  });
});

describe("Session.create", () => {
  test("builds a header with version 1, the id, createdAt and cwd", () => {
    const s = Session.create({ id: "abc", createdAt: 5, cwd: "/w" });
    expect(s.header).toEqual({ version: 1, id: "abc", createdAt: 5, cwd: "/w" });
    expect(s.id).toBe("abc");
    expect(Object.isFrozen(s.header)).toBe(true);
    expect(s.length).toBe(0);
    expect(s.lastTurn).toBe(0);
    expect(s.openTurn).toBeNull();
  });

  test("generates a safe id when none is given", () => {
    expect(Session.create().id).toMatch(/^[A-Za-z0-9][A-Za-z0-9._-]*$/);
  });

  test.each([
    ["empty", ""],
    ["a path traversal", "../etc"],
    ["a slash", "a/b"],
    ["a leading space", " a"],
    ["over 128 characters", "x".repeat(129)],
  ])("rejects an unsafe session id (%s) with invalid-header", (_name, id) => {
    expectSessionError(() => Session.create({ id }), "invalid-header");
  });
});
