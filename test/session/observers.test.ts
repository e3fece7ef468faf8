import { describe, expect, test } from "vitest";
import { type SessionEvent, SessionError } from "../../src/session/index.js";
import { newSession, sessionWithOpen, text } from "../support/builders.js";

describe("Session observers", () => {
  test("are called once per append, after the commit, with the frozen event and the session", () => {
    const s = sessionWithOpen("turn");
    const seen: { event: SessionEvent; length: number; logged: SessionEvent | undefined; frozen: boolean }[] = [];
    s.observe((event, session) => {
      expect(session).toBe(s);
      seen.push({ event, length: session.length, logged: session.events[event.seq], frozen: Object.isFrozen(event) });
    });
    const e = s.append("user/message", { content: [text("hi")], source: "user" });
    expect(seen).toHaveLength(1);
    expect(seen[0]!.event).toBe(e);
    expect(seen[0]!.length).toBe(e.seq + 1);
    expect(seen[0]!.logged).toBe(e);
    expect(seen[0]!.frozen).toBe(true);
  });

  test("are called in registration order", () => {
    const s = newSession();
    const order: string[] = [];
    s.observe(() => order.push("a"));
    s.observe(() => order.push("b"));
    s.append("turn/start", { turn: 1, trigger: "send" });
    expect(order).toEqual(["a", "b"]);
  });

  test("are not called for a rejected append", () => {
    const s = newSession();
    let calls = 0;
    s.observe(() => calls++);
    expect(() => s.append("user/message", { content: [text("outside a turn")], source: "user" })).toThrow(SessionError);
    expect(calls).toBe(0);
  });

  test("a throwing observer is contained: append returns, later observers still run, onObserverError receives the error", () => {
    const reported: { error: unknown; event: SessionEvent }[] = [];
    const s = newSession("s-obs", { onObserverError: (error, event) => reported.push({ error, event }) });
    const boom = new Error("observer failed");
    let laterCalls = 0;
    s.observe(() => {
      throw boom;
    });
    s.observe(() => laterCalls++);
    const e = s.append("turn/start", { turn: 1, trigger: "send" });
    expect(s.length).toBe(1);
    expect(laterCalls).toBe(1);
    expect(reported).toEqual([{ error: boom, event: e }]);
  });

  test("an observer that appends gets reentrant-append and the log holds only the original event", () => {
    const reported: unknown[] = [];
    const s = newSession("s-reentrant", { onObserverError: (error) => reported.push(error) });
    let inner: unknown;
    s.observe((event, session) => {
      if (event.type !== "turn/start") return;
      try {
        session.append("user/message", { content: [text("sneaky")], source: "observer" });
      } catch (e) {
        inner = e;
        throw e;
      }
    });
    s.append("turn/start", { turn: 1, trigger: "send" });
    expect(inner).toBeInstanceOf(SessionError);
    expect((inner as SessionError).code).toBe("reentrant-append");
    expect(reported).toEqual([inner]);
    expect(s.events.map((e) => e.type)).toEqual(["turn/start"]);
  });

  test("appending works again once notification has finished", () => {
    const s = newSession("s-after", { onObserverError: () => {} });
    s.observe((_e, session) => {
      session.append("turn/end", { turn: 1, reason: { kind: "completed" } });
    });
    s.append("turn/start", { turn: 1, trigger: "send" });
    expect(s.openTurn).toBe(1);
    expect(s.append("turn/end", { turn: 1, reason: { kind: "completed" } }).seq).toBe(1);
  });

  test("the disposer unregisters the observer; disposing twice is harmless", () => {
    const s = newSession();
    let calls = 0;
    const dispose = s.observe(() => calls++);
    s.append("turn/start", { turn: 1, trigger: "send" });
    dispose();
    dispose();
    s.append("turn/end", { turn: 1, reason: { kind: "completed" } });
    expect(calls).toBe(1);
  });

  test("an observer disposed by an earlier observer during notification still sees the current event", () => {
    const s = newSession();
    let secondCalls = 0;
    let disposeSecond = (): void => {};
    s.observe(() => disposeSecond());
    disposeSecond = s.observe(() => secondCalls++);
    s.append("turn/start", { turn: 1, trigger: "send" });
    s.append("turn/end", { turn: 1, reason: { kind: "completed" } });
    expect(secondCalls).toBe(1);
  });

  // A throw out of append means "not committed" to a caller; a failing error hook must not turn a
  // committed append into an apparent failure (the caller would retry and log it twice).
  test("an onObserverError that itself throws does not make a committed append throw", () => {
    const s = newSession("s-hook", {
      onObserverError: () => {
        throw new Error("hook failed");
      },
    });
    s.observe(() => {
      throw new Error("observer failed");
    });
    let threw = false;
    try {
      s.append("turn/start", { turn: 1, trigger: "send" });
    } catch {
      threw = true;
    }
    expect({ threw, length: s.length }).toEqual({ threw: false, length: 1 });
  });
});
