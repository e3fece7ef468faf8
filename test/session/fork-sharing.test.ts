// A fork (and any session over another session's events) shares the parent's validated,
// deep-frozen event objects instead of copying and re-validating them (docs/decisions/0006).
// These tests pin: identity sharing; no observable difference from a validating load of the
// same events; independence of parent and child afterwards; and that anything not handed out
// by a Session still goes through full validation.
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { reconstructRequests, verifyLog } from "../../src/reconstruct/index.js";
import { forkSession, Session, type SessionEvent, type SessionMeta } from "../../src/session/index.js";
import { fixedClock, LogDriver, newSession, text, toolCall, twoTurnLog } from "../support/builders.js";
import { buildLog, logOpsArb } from "../support/random-log.js";
import { catchSessionError, expectSessionError, logState } from "./log-assertions.js";

type RawEvent = Record<string, unknown>;

const header = (id = "s-copy"): SessionMeta => ({ version: 1, id, createdAt: 1_700_000_000_000, cwd: "/work" });
/** The events as a store reads them back: plain parsed JSON, nothing shared with any session. */
const parsed = (events: readonly SessionEvent[]): RawEvent[] => JSON.parse(JSON.stringify(events)) as RawEvent[];
const turnEnds = (s: Session): number[] => s.events.filter((e) => e.type === "turn/end").map((e) => e.seq);

/** What reconstruction says about a log: its requests, or the error it raises. */
function reconstruction(events: readonly SessionEvent[]): unknown {
  try {
    return reconstructRequests(events);
  } catch (e) {
    return { error: String(e) };
  }
}

/** Everything observable about `shared`, asserted equal to a validating load of the same events. */
function expectSameAsValidatingLoad(shared: Session, events: readonly SessionEvent[]): void {
  const loaded = Session.fromLog(shared.header, parsed(events));
  expect(logState(shared)).toEqual(logState(loaded));
  expect(shared.surfaceSeqs()).toEqual(loaded.surfaceSeqs());
  expect(reconstruction(shared.events)).toEqual(reconstruction(loaded.events));
  expect(verifyLog(shared.events)).toEqual(verifyLog(loaded.events));
}

describe("a fork shares the parent's event objects", () => {
  test("child.events[i] === parent.events[i] for every i below seedLength", () => {
    const parent = twoTurnLog();
    parent.append("turn/start", { turn: 3, trigger: "send" }); // an open tail the fork leaves out
    const child = forkSession(parent, { id: "child" });
    const seedLength = child.header.seedLength!;
    expect(seedLength).toBe(turnEnds(parent).at(-1)! + 1);
    expect(child.header.parentSession).toBe(parent.id);
    expect(child.length).toBe(seedLength);
    for (let i = 0; i < seedLength; i++) expect(child.events[i]).toBe(parent.events[i]);
  });

  test("Session.fromSession shares the first `length` events at any length, open turns included", () => {
    const parent = new LogDriver(twoTurnLog()).openTurn("three", [{ text: "reading" }], [{ name: "read" }]).session;
    for (let length = 0; length <= parent.length; length++) {
      const shared = Session.fromSession(parent, header(), length);
      expect(shared.length).toBe(length);
      for (let i = 0; i < length; i++) expect(shared.events[i]).toBe(parent.events[i]);
    }
  });

  test("Session.fromLog over a Session's own events view shares them; over a copy of it, copies them", () => {
    const parent = twoTurnLog();
    const view = parent.events;
    const shared = Session.fromLog(header(), view);
    view.forEach((event, i) => {
      expect(shared.events[i]).toBe(event);
    });
    const copied = Session.fromLog(header(), [...view]);
    expect(copied.events).toEqual(view);
    view.forEach((event, i) => {
      expect(copied.events[i]).not.toBe(event);
    });
  });
});

describe("a shared session is indistinguishable from a validating load of the same events", () => {
  test("at every length of random logs with replaces, pruning and an open tail", () => {
    fc.assert(
      fc.property(logOpsArb, fc.boolean(), (ops, openTail) => {
        const parent = buildLog(ops);
        if (openTail) new LogDriver(parent).openTurn("crashed", [{ text: "half" }], [{ name: "read" }]);
        for (let length = 0; length <= parent.length; length++) {
          expectSameAsValidatingLoad(Session.fromSession(parent, header(), length), parent.events.slice(0, length));
        }
      }),
      { numRuns: 40 },
    );
  }, 60_000); // 40 random logs × every length: seconds on a busy machine

  test("a fork at every turn/end continues exactly like a validating load when both get the same turns", () => {
    fc.assert(
      fc.property(logOpsArb, logOpsArb, (ops, more) => {
        const parent = buildLog(ops);
        for (const end of turnEnds(parent)) {
          const options = { clock: fixedClock(1_800_000_000_000) };
          const child = forkSession(parent, { atSeq: end, id: "fork", createdAt: 1, ...options });
          const loaded = Session.fromLog(child.header, parsed(parent.events.slice(0, end + 1)), {
            clock: fixedClock(1_800_000_000_000),
          });
          buildLog(more, child);
          buildLog(more, loaded);
          expect(logState(child)).toEqual(logState(loaded));
          expect(verifyLog(child.events).issues).toEqual([]);
        }
      }),
      { numRuns: 25 },
    );
  });

  test("a call id logged before the boundary is still taken in the fork; one the parent logged after it is free", () => {
    const parent = twoTurnLog(); // turn 1 logs one tool call
    const firstEnd = turnEnds(parent)[0]!;
    const before = (parent.events.find((e) => e.type === "tool/call")!.data as { callId: string }).callId;
    // The parent goes on past the boundary and logs another call id.
    new LogDriver(parent).turn({ prompt: "more", steps: [{ text: "again", toolCalls: [{ name: "read" }] }] });
    const after = (parent.events.findLast((e) => e.type === "tool/call")!.data as { callId: string }).callId;
    expect(after).not.toBe(before);

    const child = forkSession(parent, { atSeq: firstEnd, createdAt: 1, clock: fixedClock(1_800_000_000_000) });
    const loaded = Session.fromLog(child.header, parsed(parent.events.slice(0, firstEnd + 1)), {
      clock: fixedClock(1_800_000_000_000),
    });
    for (const session of [child, loaded]) {
      session.append("turn/start", { turn: 2, trigger: "send" });
      session.append("step/start", { turn: 2, step: 1 });
      const reuse = () => session.append("assistant/message", { turn: 2, step: 1, content: [toolCall(before)] });
      expect(catchSessionError(reuse).message).toContain(`duplicate tool call id ${before}`);
      session.append("assistant/message", { turn: 2, step: 1, content: [toolCall(after)] });
    }
    expect(logState(child)).toEqual(logState(loaded));
  });

  test("forks of forks, many generations deep, still see exactly their ancestors' call ids", () => {
    let session = newSession("gen-0");
    const ids: string[] = [];
    for (let generation = 1; generation <= 12; generation++) {
      const id = `call-gen-${generation}`;
      ids.push(id);
      const turn = session.lastTurn + 1;
      session.append("turn/start", { turn, trigger: "send" });
      session.append("step/start", { turn, step: 1 });
      session.append("assistant/message", { turn, step: 1, content: [toolCall(id)] });
      session.append("tool/call", { turn, step: 1, callId: id, name: "read", arguments: "{}" });
      session.append("tool/result", { turn, step: 1, callId: id, content: [text("ok")], isError: false });
      session.append("step/end", { turn, step: 1 });
      session.append("turn/end", { turn, reason: { kind: "completed" } });
      const parent = session;
      session = forkSession(parent, { id: `gen-${generation}` });
      // The parent moves on after the fork with an id the child must not see.
      parent.append("turn/start", { turn: turn + 1, trigger: "send" });
      parent.append("step/start", { turn: turn + 1, step: 1 });
      parent.append("assistant/message", { turn: turn + 1, step: 1, content: [toolCall(`parent-only-${generation}`)] });
      expectSameAsValidatingLoad(session, session.events);
    }
    const turn = session.lastTurn + 1;
    session.append("turn/start", { turn, trigger: "send" });
    session.append("step/start", { turn, step: 1 });
    for (const id of ids) {
      expectSessionError(
        () => session.append("assistant/message", { turn, step: 1, content: [toolCall(id)] }),
        "structure",
      );
    }
    session.append("assistant/message", {
      turn,
      step: 1,
      content: Array.from({ length: 12 }, (_, i) => toolCall(`parent-only-${i + 1}`)),
    });
    expect(session.openTurnClosers().filter((p) => p.type === "tool/call")).toHaveLength(12);
  });
});

describe("parent and child never affect each other after the fork", () => {
  test("child appends and a compaction replace on the child leave the parent exactly as it was", () => {
    const parent = twoTurnLog();
    const before = logState(parent);
    const child = forkSession(parent);
    const turn = child.lastTurn + 1;
    child.append("turn/start", { turn, trigger: "compact" });
    child.append("compact/start", { turn, trigger: "manual" });
    child.append(
      "user/message",
      { content: [text("summary")], source: "compaction" },
      { op: "replace", start: 0, end: 3 },
    );
    child.append("compact/end", { turn });
    child.append("turn/end", { turn, reason: { kind: "completed" } });
    expect(child.surfaceGeneration).toBe(before.surfaceGeneration + 1);
    expect(child.deriveMessages()).toHaveLength(before.messages.length - 3);
    const after = logState(parent);
    expect(after).toEqual(before);
    expect(after.events).toBe(before.events);
  });

  test("parent appends and a replace on the parent after the fork leave the child as a load of its seed", () => {
    const parent = twoTurnLog();
    const child = forkSession(parent, { id: "child" });
    const seed = child.events;
    const turn = parent.lastTurn + 1;
    parent.append("turn/start", { turn, trigger: "compact" });
    parent.append("compact/start", { turn, trigger: "manual" });
    parent.append(
      "user/message",
      { content: [text("summary")], source: "compaction" },
      { op: "replace", start: 0, end: 3 },
    );
    parent.append("compact/end", { turn });
    parent.append("turn/end", { turn, reason: { kind: "completed" } });
    expect(child.events).toBe(seed);
    expectSameAsValidatingLoad(child, seed);
    // A later fork of the parent at the old boundary replays the surface before the replace.
    expectSameAsValidatingLoad(forkSession(parent, { atSeq: seed.length - 1 }), seed);
  });
});

describe("events that no Session handed out still go through full validation", () => {
  test("plain parsed JSON is validated and copied", () => {
    const source = twoTurnLog();
    const raw = parsed(source.events);
    const loaded = Session.fromLog(header(), raw);
    expect(loaded.events).toEqual(source.events);
    expect(loaded.events[1]).not.toBe(raw[1]);
    expect(Object.isFrozen(loaded.events[1]!.data)).toBe(true);
    raw[2]!.seq = 7;
    expectSessionError(() => Session.fromLog(header(), raw), "seq-mismatch");
  });

  test("a copy of a view with one event swapped for a forged one is rejected", () => {
    const source = twoTurnLog();
    const forged = [...source.events];
    const end = turnEnds(source)[0]!;
    forged[end] = Object.freeze({ ...forged[end]!, data: Object.freeze({ turn: 9, reason: { kind: "completed" } }) });
    expectSessionError(() => Session.fromLog(header(), forged), "structure");
  });

  test("a frozen array that is not a view is validated like any other", () => {
    const source = twoTurnLog();
    const copy = Object.freeze(source.events.slice(1)); // frozen, holds session events, but seq 1 first
    expectSessionError(() => Session.fromLog(header(), copy), "seq-mismatch");
  });

  test("a view cannot be changed to smuggle events in", () => {
    const view = twoTurnLog().events as SessionEvent[];
    expect(() => view.push(view[0]!)).toThrow(TypeError);
    expect(() => {
      view[0] = view[1]!;
    }).toThrow(TypeError);
  });

  test("fromSession refuses a parent that is not a Session and a length outside its log", () => {
    const parent = twoTurnLog();
    for (const notSession of [null, 5, {}, parent.events]) {
      expectSessionError(() => Session.fromSession(notSession as unknown as Session, header()), "invalid-event");
    }
    for (const length of [-1, 1.5, Number.NaN, parent.length + 1]) {
      expectSessionError(() => Session.fromSession(parent, header(), length), "seed-out-of-range");
    }
    expectSessionError(() => Session.fromSession(parent, { ...header(), id: "../x" }), "invalid-header");
  });
});

describe("the events view", () => {
  test("is one cached frozen array until the next append, which leaves the old one as it was", () => {
    const session = twoTurnLog();
    const first = session.events;
    expect(session.events).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    session.append("turn/start", { turn: 3, trigger: "send" });
    const second = session.events;
    expect(second).not.toBe(first);
    expect(second).toHaveLength(first.length + 1);
    expect(first.at(-1)!.type).toBe("turn/end");
    expect(Object.isFrozen(second)).toBe(true);
  });
});
