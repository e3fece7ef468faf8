import { describe, expect, test } from "vitest";
import { verifyLog } from "../../src/reconstruct/index.js";
import { forkSeed, forkSession, type Session } from "../../src/session/index.js";
import { LogDriver, newSession, sessionWithOpen, text, twoTurnLog } from "../support/builders.js";
import { expectSessionError } from "./log-assertions.js";

const turnEnds = (s: Session): number[] => s.events.filter((e) => e.type === "turn/end").map((e) => e.seq);

/** Two complete turns, then turn 3 left open (a step with an unanswered call). */
function parentWithOpenTail(): Session {
  return new LogDriver()
    .turn({ prompt: "one", steps: [{ text: "reading", toolCalls: [{ name: "read" }] }, { text: "done" }] })
    .turn({ prompt: "two", steps: [{ text: "ok" }] })
    .openTurn("three", [], [{ name: "read" }]).session;
}

describe("forkSeed", () => {
  test("defaults to the last turn/end, inclusive", () => {
    const s = parentWithOpenTail();
    const last = turnEnds(s).at(-1)!;
    const seed = forkSeed(s.events);
    expect(seed).toHaveLength(last + 1);
    expect(seed.at(-1)!.type).toBe("turn/end");
    expect(seed).toEqual(s.events.slice(0, last + 1));
  });

  test("an explicit atSeq at a turn/end copies events 0..atSeq", () => {
    const s = twoTurnLog();
    const first = turnEnds(s)[0]!;
    expect(forkSeed(s.events, first)).toEqual(s.events.slice(0, first + 1));
  });

  test("an atSeq that is not a turn/end is rejected with fork-boundary-not-turn-end", () => {
    const s = twoTurnLog();
    const first = turnEnds(s)[0]!;
    for (const at of [0, 1, first - 1, first + 1]) {
      expect(expectSessionError(() => forkSeed(s.events, at), "fork-boundary-not-turn-end").seq).toBe(at);
    }
  });

  test.each([
    ["negative", -1],
    ["one past the end", "length"],
    ["fractional", 1.5],
    ["NaN", Number.NaN],
  ] as const)("an atSeq that is %s is rejected with fork-boundary-out-of-range", (_name, at) => {
    const s = twoTurnLog();
    const seq = at === "length" ? s.length : at;
    expectSessionError(() => forkSeed(s.events, seq), "fork-boundary-out-of-range");
  });

  test("a log with no turn/end is rejected with fork-no-completed-turn", () => {
    expectSessionError(() => forkSeed([]), "fork-no-completed-turn");
    const open = sessionWithOpen("step");
    expectSessionError(() => forkSeed(open.events), "fork-no-completed-turn");
  });
});

describe("forkSession", () => {
  test("copies the parent's log up to the last turn/end, with parentSession and seedLength", () => {
    const parent = parentWithOpenTail();
    const child = forkSession(parent, { id: "child-1", createdAt: 5 });
    const seedLength = turnEnds(parent).at(-1)! + 1;
    expect(child.header).toEqual({
      version: 1,
      id: "child-1",
      createdAt: 5,
      cwd: "/work",
      parentSession: parent.id,
      seedLength,
    });
    expect(child.events).toEqual(parent.events.slice(0, seedLength));
    expect(child.openTurn).toBeNull();
    expect(child.lastTurn).toBe(2);
  });

  test("an explicit atSeq forks at that turn/end", () => {
    const parent = twoTurnLog();
    const first = turnEnds(parent)[0]!;
    const child = forkSession(parent, { atSeq: first, id: "child-2" });
    expect(child.header.seedLength).toBe(first + 1);
    expect(child.header.parentSession).toBe(parent.id);
    expect(child.events).toEqual(parent.events.slice(0, first + 1));
    expect(child.lastTurn).toBe(1);
  });

  test("the child's derived history is the parent's history at the boundary", () => {
    const parent = twoTurnLog();
    const first = turnEnds(parent)[0]!;
    const atBoundary = twoTurnLog().deriveMessages().slice(0, 4); // turn 1: user, assistant+call, tool, assistant
    expect(forkSession(parent, { atSeq: first }).deriveMessages()).toEqual(atBoundary);
  });

  test("propagates boundary errors and creates nothing", () => {
    const parent = twoTurnLog();
    expectSessionError(() => forkSession(parent, { atSeq: 1 }), "fork-boundary-not-turn-end");
    expectSessionError(() => forkSession(newSession()), "fork-no-completed-turn");
  });

  test("leaves the parent unchanged", () => {
    const parent = parentWithOpenTail();
    const events = parent.events;
    const messages = parent.deriveMessages();
    const child = forkSession(parent);
    child.append("turn/start", { turn: 3, trigger: "send" });
    child.append("user/message", { content: [text("child only")], source: "user" });
    expect(parent.events).toBe(events);
    expect(parent.deriveMessages()).toEqual(messages);
    expect(parent.openTurn).toBe(3);
  });

  test("the child can continue with the next turn, and its log verifies", () => {
    const parent = twoTurnLog();
    const child = forkSession(parent, { atSeq: turnEnds(parent)[0]! });
    new LogDriver(child).turn({
      prompt: "a different second turn",
      steps: [{ text: "ok", toolCalls: [{ name: "read" }] }],
    });
    expect(child.lastTurn).toBe(2);
    child.events.forEach((e, i) => {
      expect(e.seq).toBe(i);
    });
    expect(verifyLog(child.events).issues).toEqual([]);
  });

  test("the child's events are the child's own: appending to the parent does not reach the child", () => {
    const parent = twoTurnLog();
    const child = forkSession(parent);
    const before = child.events;
    parent.append("turn/start", { turn: 3, trigger: "send" });
    expect(child.events).toBe(before);
    expect(child.length).toBe(parent.length - 1);
  });

  test("a fork inherits the parent's cwd unless one is given", () => {
    const parent = twoTurnLog();
    expect(forkSession(parent).header.cwd).toBe("/work");
    expect(forkSession(parent, { cwd: "/elsewhere" }).header.cwd).toBe("/elsewhere");
  });

  test("each fork gets its own id", () => {
    const parent = twoTurnLog();
    const a = forkSession(parent);
    const b = forkSession(parent);
    expect(a.id).not.toBe(b.id);
    expect(a.id).not.toBe(parent.id);
  });
});
