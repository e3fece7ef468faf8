import fc from "fast-check";
import { describe, expect, test } from "vitest";
import type { Message } from "../../src/messages/index.js";
import { deriveEventMessage, type Session, type SessionEvent } from "../../src/session/index.js";
import { baseHeader, LogDriver, newSession, text, twoTurnLog } from "../support/builders.js";
import { buildLog, logOpsArb } from "../support/random-log.js";
import { naiveSurface } from "./log-assertions.js";

const PREFIX_MARK = "<system-reminder>";

/** Every string inside a JSON-ish value, for "does this text appear anywhere" checks. */
function strings(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (value === null || typeof value !== "object") return [];
  return Object.values(value).flatMap(strings);
}

/** Replays `events` into a fresh session one append at a time, calling `after` after each. */
function replay(
  events: readonly SessionEvent[],
  after: (s: Session, appended: SessionEvent, index: number) => void,
): Session {
  const s = newSession();
  events.forEach((e, i) => {
    const appended = s.append(e.type, e.data as never, e.surfaceOp);
    after(s, appended, i);
  });
  return s;
}

function isDeepFrozen(value: unknown): boolean {
  if (value === null || typeof value !== "object") return true;
  return Object.isFrozen(value) && Object.values(value).every(isDeepFrozen);
}

describe("deriveMessages projects only the surface (P7)", () => {
  test("a log whose header snapshots carry a messagePrefix never shows prefix messages in deriveMessages()", () => {
    const prefix: Message[] = [{ role: "user", content: [text(`${PREFIX_MARK}skills catalog</system-reminder>`)] }];
    const driver = new LogDriver(newSession(), baseHeader({ messagePrefix: prefix }));
    driver.turn({ prompt: "hello", steps: [{ text: "hi" }] }).turn({ prompt: "again", steps: [{ text: "sure" }] });
    const s = driver.session;
    const headers = s.events.filter((e) => e.type === "request/header");
    expect(headers.length).toBeGreaterThan(0);
    expect(strings(headers.map((h) => h.data))).toContain(`${PREFIX_MARK}skills catalog</system-reminder>`);
    expect(strings(s.deriveMessages()).some((t) => t.includes(PREFIX_MARK))).toBe(false);
    expect(s.deriveMessages().map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
  });

  test("on random logs with prefix changes, derived history holds no prefix text and one message per surface node", () => {
    fc.assert(
      fc.property(logOpsArb, (ops) => {
        const s = buildLog(ops);
        const messages = s.deriveMessages();
        expect(strings(messages).some((t) => t.includes(PREFIX_MARK))).toBe(false);
        const surfaceEvents = s.surfaceSeqs().map((seq) => s.events[seq]!);
        expect(surfaceEvents.every((e) => e.surfaceOp !== undefined)).toBe(true);
        expect(messages).toEqual(surfaceEvents.map((e) => deriveEventMessage(e)));
      }),
      { numRuns: 150 },
    );
  });
});

describe("deriveMessages hands out shared, frozen messages in fresh arrays", () => {
  test("each call returns a fresh array whose elements are the same frozen message objects", () => {
    const s = twoTurnLog();
    const a = s.deriveMessages();
    const b = s.deriveMessages();
    expect(a).not.toBe(b);
    expect(a).toHaveLength(b.length);
    a.forEach((m, i) => {
      expect(b[i]).toBe(m);
      expect(isDeepFrozen(m)).toBe(true);
    });
  });

  test("mutating a returned array does not affect the next call", () => {
    const s = twoTurnLog();
    const a = s.deriveMessages();
    const n = a.length;
    a.pop();
    a.push({ role: "user", content: [text("injected")] });
    a.reverse();
    const b = s.deriveMessages();
    expect(b).toHaveLength(n);
    expect(b).toEqual(twoTurnLog().deriveMessages());
  });

  test("a derived message cannot be mutated", () => {
    const s = twoTurnLog();
    const [first] = s.deriveMessages();
    expect(() => {
      (first as { role: string }).role = "assistant";
    }).toThrow(TypeError);
    expect(() => {
      (first!.content as unknown[]).push(text("more"));
    }).toThrow(TypeError);
  });

  test("messages survive later appends and replaces by identity where their node survives", () => {
    const s = twoTurnLog();
    const before = s.deriveMessages();
    s.append("turn/start", { turn: 3, trigger: "compact" });
    s.append("user/message", { content: [text("more")], source: "user" });
    const afterAppend = s.deriveMessages();
    before.forEach((m, i) => {
      expect(afterAppend[i]).toBe(m);
    });
    s.append("user/message", { content: [text("summary")], source: "compaction" }, { op: "replace", start: 3, end: 4 });
    const afterReplace = s.deriveMessages();
    expect(afterReplace.slice(0, 3)).toEqual(before.slice(0, 3));
    for (let i = 0; i < 3; i++) expect(afterReplace[i]).toBe(before[i]);
    expect(afterReplace[4]).toBe(before[5]);
  });

  test("a message shares its event's frozen content array (no copy)", () => {
    const s = twoTurnLog();
    const seqs = s.surfaceSeqs();
    s.deriveMessages().forEach((m, i) => {
      const event = s.events[seqs[i]!]!;
      if (m.role === "tool") expect(m.content[0].content).toBe((event.data as { content: unknown }).content);
      else expect(m.content).toBe((event.data as { content: unknown }).content);
    });
  });
});

describe("historySnapshot fixes the history now and copies it only when read", () => {
  test("the snapshot keeps the history of its moment through later appends and a replace, frozen, one array", () => {
    const s = twoTurnLog();
    const expected = s.deriveMessages();
    const early = s.historySnapshot(); // read only after the log moved on
    const read = s.historySnapshot();
    expect(read()).toEqual(expected);
    s.append("turn/start", { turn: 3, trigger: "compact" });
    s.append("user/message", { content: [text("more")], source: "user" });
    const grown = s.historySnapshot();
    s.append("user/message", { content: [text("summary")], source: "compaction" }, { op: "replace", start: 0, end: 4 });
    expect(early()).toEqual(expected);
    expect(read()).toBe(read()); // the same frozen array on every read
    expect(Object.isFrozen(early())).toBe(true);
    expect(grown()).toEqual([...expected, { role: "user", content: [text("more")] }]);
    expect(s.historySnapshot()()).toEqual(s.deriveMessages()); // after the replace: the new history
    expect(s.deriveMessages()).not.toEqual(grown());
  });
});

describe("deriveEventMessage", () => {
  test("maps user, context and steering messages to user messages, and assistant to assistant", () => {
    const s = newSession();
    s.append("turn/start", { turn: 1, trigger: "send" });
    const events = [
      s.append("user/message", { content: [text("u")], source: "user" }),
      s.append("context/message", { content: [text("c")], source: "inject" }),
      s.append("steering/message", { turn: 1, content: [text("s")], source: "user" }),
    ];
    expect(events.map((e) => deriveEventMessage(e))).toEqual([
      { role: "user", content: [text("u")] },
      { role: "user", content: [text("c")] },
      { role: "user", content: [text("s")] },
    ]);
  });

  test("maps a tool/result to one tool-result block without its error text or meta", () => {
    const s = twoTurnLog();
    const result = s.events.find((e) => e.type === "tool/result")!;
    const m = deriveEventMessage(result);
    expect(m).toEqual({
      role: "tool",
      content: [
        {
          type: "tool-result",
          callId: (result.data as { callId: string }).callId,
          content: [text("buy milk")],
          isError: false,
        },
      ],
    });
    expect(isDeepFrozen(m)).toBe(true);
  });

  test("returns undefined for every event that is not surface-eligible", () => {
    const s = twoTurnLog();
    for (const e of s.events) {
      expect(deriveEventMessage(e) === undefined).toBe(e.surfaceOp === undefined);
    }
  });
});

describe("the deriveMessages cache is equivalent to a naive re-fold", () => {
  test("after every single append of a random log, deriveMessages() deep-equals a re-fold of the events", () => {
    fc.assert(
      fc.property(logOpsArb, (ops) => {
        const original = buildLog(ops);
        const replayed = replay(original.events, (s) => {
          const naive = naiveSurface(s.events);
          expect(s.deriveMessages()).toEqual(naive.messages);
          expect(s.surfaceSeqs()).toEqual(naive.seqs);
        });
        expect(replayed.events).toEqual(original.events);
        expect(replayed.surfaceGeneration).toBe(original.surfaceGeneration);
      }),
      { numRuns: 100 },
    );
  });

  test("with deriveMessages() called only now and then, the cache still catches up to the re-fold", () => {
    fc.assert(
      fc.property(logOpsArb, fc.array(fc.boolean(), { minLength: 1, maxLength: 13 }), (ops, probes) => {
        const original = buildLog(ops);
        const replayed = replay(original.events, (s, _e, i) => {
          if (probes[i % probes.length]) expect(s.deriveMessages()).toEqual(naiveSurface(s.events).messages);
        });
        expect(replayed.deriveMessages()).toEqual(naiveSurface(replayed.events).messages);
        expect(replayed.deriveMessages()).toEqual(original.deriveMessages());
      }),
      { numRuns: 100 },
    );
  });

  test("the replayed events carry the same replace provenance as the original log", () => {
    fc.assert(
      fc.property(logOpsArb, (ops) => {
        const original = buildLog(ops);
        replay(original.events, (_s, appended, i) => {
          expect(appended.sourceEventSeqs).toEqual(original.events[i]!.sourceEventSeqs);
        });
      }),
      { numRuns: 100 },
    );
  });
});
