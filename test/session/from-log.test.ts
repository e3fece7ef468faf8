import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { Session } from "../../src/session/index.js";
import { LogDriver, newSession, text, twoTurnLog } from "../support/builders.js";
import { buildLog, logOpsArb } from "../support/random-log.js";
import { catchSessionError, expectSessionError } from "./log-assertions.js";

type RawEvent = Record<string, unknown>;

/** The log as a store would read it back: plain parsed JSON, nothing shared with the session. */
const parsed = (s: Session): RawEvent[] => JSON.parse(JSON.stringify(s.events)) as RawEvent[];
const parsedHeader = (s: Session): RawEvent => JSON.parse(JSON.stringify(s.header)) as RawEvent;

/** A parsed log (twoTurnLog plus a compaction replace) with `edit` applied to it. */
function corrupted(edit: (events: RawEvent[]) => void): { header: RawEvent; events: RawEvent[] } {
  const s = twoTurnLog();
  s.append("turn/start", { turn: 3, trigger: "compact" });
  s.append("user/message", { content: [text("summary")], source: "compaction" }, { op: "replace", start: 0, end: 3 });
  s.append("turn/end", { turn: 3, reason: { kind: "completed" } });
  const events = parsed(s);
  edit(events);
  return { header: parsedHeader(s), events };
}

const indexOf = (events: RawEvent[], pred: (e: RawEvent) => boolean): number => {
  const i = events.findIndex(pred);
  expect(i).toBeGreaterThanOrEqual(0);
  return i;
};
type Edit = (events: RawEvent[]) => void;
const set =
  (i: number, key: string, value: unknown): Edit =>
  (es) => {
    es[i]![key] = value;
  };
const unset =
  (i: number, key: string): Edit =>
  (es) => {
    delete es[i]![key];
  };
const replaceIndex = (events: RawEvent[]): number => indexOf(events, (e) => typeof e.surfaceOp === "object");

describe("Session.fromLog accepts a valid log", () => {
  test("a parsed copy of a session's log loads into an equal session", () => {
    const original = twoTurnLog();
    const loaded = Session.fromLog(parsedHeader(original), parsed(original));
    expect(loaded.header).toEqual(original.header);
    expect(loaded.events).toEqual(original.events);
    expect(loaded.deriveMessages()).toEqual(original.deriveMessages());
    expect(loaded.lastTurn).toBe(2);
    expect(loaded.openTurn).toBeNull();
  });

  test("random logs with replaces and pruning round-trip through JSON and fromLog", () => {
    fc.assert(
      fc.property(logOpsArb, (ops) => {
        const original = buildLog(ops);
        const loaded = Session.fromLog(parsedHeader(original), parsed(original));
        expect(loaded.events).toEqual(original.events);
        expect(loaded.surfaceSeqs()).toEqual(original.surfaceSeqs());
        expect(loaded.surfaceGeneration).toBe(original.surfaceGeneration);
        expect(loaded.deriveMessages()).toEqual(original.deriveMessages());
      }),
      { numRuns: 100 },
    );
  });

  test("the loaded events are deep-frozen copies: mutating the input afterwards changes nothing", () => {
    const original = twoTurnLog();
    const raw = parsed(original);
    const loaded = Session.fromLog(parsedHeader(original), raw);
    expect(Object.isFrozen(raw[0])).toBe(false);
    (raw[1]!.data as { content: unknown[] }).content.push(text("tampered"));
    raw.pop();
    expect(loaded.events).toEqual(original.events);
    expect(Object.isFrozen(loaded.events[1]!.data)).toBe(true);
  });

  test("an open final turn is allowed, and the loaded session continues it", () => {
    const s = newSession();
    new LogDriver(s).turn({ prompt: "one", steps: [{ text: "ok" }] }).openTurn("two");
    const loaded = Session.fromLog(parsedHeader(s), parsed(s));
    expect(loaded.openTurn).toBe(2);
    expect(loaded.append("turn/end", { turn: 2, reason: { kind: "completed" } }).seq).toBe(s.length);
  });

  test("a loaded session appends the next turn with the next seq", () => {
    const original = twoTurnLog();
    const loaded = Session.fromLog(parsedHeader(original), parsed(original));
    const e = loaded.append("turn/start", { turn: 3, trigger: "send" });
    expect(e.seq).toBe(original.length);
  });

  test("an empty log loads", () => {
    const loaded = Session.fromLog({ version: 1, id: "empty", createdAt: 0 }, []);
    expect(loaded.length).toBe(0);
    expect(loaded.deriveMessages()).toEqual([]);
  });
});

describe("Session.fromLog rejects a bad log, naming the first bad event", () => {
  test.each([
    [
      "a seq gap",
      (es: RawEvent[]) => {
        es.splice(3, 1);
      },
      3,
    ],
    [
      "a duplicated seq",
      (es: RawEvent[]) => {
        es.splice(3, 0, es[2]!);
      },
      3,
    ],
    ["a seq that is a string", set(2, "seq", "2"), 2],
    [
      "a log that does not start at 0",
      (es: RawEvent[]) => {
        es.shift();
      },
      0,
    ],
  ])("%s is rejected with seq-mismatch", (_name, edit: Edit, at) => {
    const { header, events } = corrupted(edit);
    const error = expectSessionError(() => Session.fromLog(header, events), "seq-mismatch");
    expect(error.seq).toBe(at);
  });

  test.each([
    ["an unknown envelope key", set(1, "extra", 1), 1],
    ["an unknown event type", set(1, "type", "user/shout"), 1],
    ["a surface event without surfaceOp", unset(1, "surfaceOp"), 1],
    ["a surfaceOp on a non-surface event", set(0, "surfaceOp", "append"), 0],
    ["sourceEventSeqs on an append", set(1, "sourceEventSeqs", []), 1],
    ["a negative time", set(2, "time", -1), 2],
    ["a missing time", unset(2, "time"), 2],
    [
      "an event that is not an object",
      (es: RawEvent[]) => {
        (es as unknown[])[1] = "user/message";
      },
      1,
    ],
  ])("%s is rejected with invalid-event", (_name, edit: Edit, at) => {
    const { header, events } = corrupted(edit);
    expect(expectSessionError(() => Session.fromLog(header, events), "invalid-event").seq).toBe(at);
  });

  test("a megabyte-long event type or envelope key is named in a bounded message", () => {
    const huge = "x".repeat(2_000_000);
    for (const edit of [set(1, "type", huge), set(1, huge, 1)]) {
      const { header, events } = corrupted(edit);
      const error = expectSessionError(() => Session.fromLog(header, events), "invalid-event");
      expect(error.message.length).toBeLessThan(200);
      expect(error.message).toContain("xxx...");
    }
  });

  test.each([["a malformed surfaceOp", set(1, "surfaceOp", { op: "replace", start: "0", end: 1 })]])(
    "%s is rejected with invalid-surface-op",
    (_name, edit) => {
      const { header, events } = corrupted(edit);
      expectSessionError(() => Session.fromLog(header, events), "invalid-surface-op");
    },
  );

  test("a replace whose sourceEventSeqs are not the shadowed nodes is rejected with replace-provenance-mismatch", () => {
    const { header, events } = corrupted((es) => {
      const r = es[replaceIndex(es)]!;
      r.sourceEventSeqs = (r.sourceEventSeqs as number[]).slice(1);
    });
    const at = replaceIndex(events);
    expect(expectSessionError(() => Session.fromLog(header, events), "replace-provenance-mismatch").seq).toBe(at);
  });

  test("a replace without sourceEventSeqs is rejected with replace-provenance-mismatch", () => {
    const { header, events } = corrupted((es) => unset(replaceIndex(es), "sourceEventSeqs")(es));
    expectSessionError(() => Session.fromLog(header, events), "replace-provenance-mismatch");
  });

  test("a replace whose region is out of range is rejected with replace-out-of-range", () => {
    const { header, events } = corrupted((es) => {
      es[replaceIndex(es)]!.surfaceOp = { op: "replace", start: 0, end: 99 };
    });
    expectSessionError(() => Session.fromLog(header, events), "replace-out-of-range");
  });

  test("-0 in data (as JSON.parse reads the literal -0) is rejected with invalid-data", () => {
    const { header, events } = corrupted((es) => {
      (es[0]!.data as RawEvent).weight = JSON.parse("-0");
    });
    const error = expectSessionError(() => Session.fromLog(header, events), "invalid-data");
    expect(error.seq).toBe(0);
  });

  test("a payload that does not fit its type is rejected with invalid-data", () => {
    const { header, events } = corrupted((es) => {
      delete (es[1]!.data as RawEvent).source;
    });
    expect(expectSessionError(() => Session.fromLog(header, events), "invalid-data").seq).toBe(1);
  });

  test("a structural break (turn 2 starting while turn 1 is still open) is rejected with structure", () => {
    const { header, events } = corrupted((es) => {
      es.splice(
        indexOf(es, (e) => e.type === "turn/end"),
        1,
      );
      es.forEach((e, i) => {
        e.seq = i;
      });
    });
    const error = expectSessionError(() => Session.fromLog(header, events), "structure");
    expect(events[error.seq!]).toMatchObject({ type: "turn/start", data: { turn: 2 } });
  });
});

describe("Session.fromLog validates the session header", () => {
  const ok = { version: 1, id: "s-1", createdAt: 1_700_000_000_000 };
  test.each([
    ["not an object", null],
    ["an array", [ok]],
    ["version 2", { ...ok, version: 2 }],
    ["no version", { id: "s-1", createdAt: 0 }],
    ["an unsafe id", { ...ok, id: "../x" }],
    ["a numeric id", { ...ok, id: 7 }],
    ["a string createdAt", { ...ok, createdAt: "yesterday" }],
    ["a non-string cwd", { ...ok, cwd: 1 }],
    ["an unsafe parentSession", { ...ok, parentSession: "a/b" }],
    ["a negative seedLength", { ...ok, seedLength: -1 }],
    ["a fractional seedLength", { ...ok, seedLength: 1.5 }],
  ])("a header with %s is rejected with invalid-header", (_name, header) => {
    expectSessionError(() => Session.fromLog(header, []), "invalid-header");
  });

  test.each([
    ["fromLog", Session.fromLog],
    ["fromParsedLog", Session.fromParsedLog],
  ])(
    "%s rejects a header that is not lossless JSON (createdAt -0, as parsed from a file) with invalid-header",
    (_name, load) => {
      const header = JSON.parse('{"version":1,"id":"s-1","createdAt":-0}') as unknown;
      expect(catchSessionError(() => load(header, [])).code).toBe("invalid-header");
    },
  );

  test("a valid header with optional fields is kept as given", () => {
    const header = { ...ok, cwd: "/w", parentSession: "p-1", seedLength: 0 };
    expect(Session.fromLog(header, []).header).toEqual(header);
  });
});

describe("Session.fromParsedLog (the store's load path)", () => {
  test("loads exactly what fromLog loads, for random logs", () => {
    fc.assert(
      fc.property(logOpsArb, (ops) => {
        const original = buildLog(ops);
        const viaCopy = Session.fromLog(parsedHeader(original), parsed(original));
        const adopted = Session.fromParsedLog(parsedHeader(original), parsed(original));
        expect(adopted.events).toEqual(viaCopy.events);
        expect(adopted.surfaceSeqs()).toEqual(viaCopy.surfaceSeqs());
        expect(adopted.deriveMessages()).toEqual(viaCopy.deriveMessages());
      }),
      { numRuns: 50 },
    );
  });

  test("takes ownership of the parsed events: they are the logged events, frozen in place", () => {
    const raw = parsed(twoTurnLog());
    const loaded = Session.fromParsedLog(parsedHeader(twoTurnLog()), raw);
    expect(loaded.events[1]).toBe(raw[1]);
    expect(Object.isFrozen(raw[1]!.data)).toBe(true);
  });

  test("rejects the same corruptions with the same codes and seqs as fromLog", () => {
    const edits: Edit[] = [
      (es) => {
        es.splice(3, 1);
      },
      set(1, "extra", 1),
      unset(1, "surfaceOp"),
      (es) => {
        (es[0]!.data as RawEvent).weight = JSON.parse("-0");
      },
      (es) => unset(replaceIndex(es), "sourceEventSeqs")(es),
    ];
    for (const edit of edits) {
      const a = corrupted(edit);
      const b = corrupted(edit);
      const viaCopy = catchSessionError(() => Session.fromLog(a.header, a.events));
      const adopted = catchSessionError(() => Session.fromParsedLog(b.header, b.events));
      expect({ code: adopted.code, seq: adopted.seq }).toEqual({ code: viaCopy.code, seq: viaCopy.seq });
    }
  });
});
