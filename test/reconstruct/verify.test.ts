// verifyLog: a clean log reports ok; each kind of corruption yields its own issue code.
// Corrupted logs are built by editing a JSON copy of a real log, as a damaged file would be.
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { type LogReport, verifyLog } from "../../src/reconstruct/index.js";
import type { Session } from "../../src/session/index.js";
import { compactedLog, sessionWithOpen, text, twoTurnLog } from "../support/builders.js";
import { buildLog, logOpsArb } from "../support/random-log.js";

interface RawEvent {
  type: string;
  seq: number;
  time: number;
  data: Record<string, unknown>;
  surfaceOp?: unknown;
  sourceEventSeqs?: number[];
}

const rawEvents = (session: Session): RawEvent[] => JSON.parse(JSON.stringify(session.events)) as RawEvent[];

/** Sets every event's seq to its index, so only the intended corruption remains. */
function resequenced(events: RawEvent[]): RawEvent[] {
  return events.map((e, i) => ({ ...e, seq: i }));
}

const indexOf = (events: readonly RawEvent[], type: string, nth = 0): number =>
  events.map((e, i) => (e.type === type ? i : -1)).filter((i) => i >= 0)[nth]!;

function expectSingleIssue(report: LogReport, code: string, seq?: number): void {
  expect(report.ok).toBe(false);
  expect(report.issues.map((i) => i.code)).toEqual([code]);
  if (seq !== undefined) expect(report.issues[0]!.seq).toBe(seq);
  expect(report.issues[0]!.message.length).toBeGreaterThan(0);
}

describe("verifyLog on clean logs", () => {
  test("the two-turn log is ok: 18 events, 2 turns, 3 requests, no issues", () => {
    expect(verifyLog(twoTurnLog().events)).toStrictEqual({ ok: true, events: 18, turns: 2, requests: 3, issues: [] });
  });

  test("an empty log is ok", () => {
    expect(verifyLog([])).toStrictEqual({ ok: true, events: 0, turns: 0, requests: 0, issues: [] });
  });

  test("random logs are ok, with one request per step/start", () => {
    fc.assert(
      fc.property(logOpsArb, (ops) => {
        const session = buildLog(ops);
        const report = verifyLog(session.events);
        expect(report.issues).toEqual([]);
        expect(report.ok).toBe(true);
        expect(report.events).toBe(session.length);
        expect(report.turns).toBe(session.lastTurn);
        expect(report.requests).toBe(session.events.filter((e) => e.type === "step/start").length);
      }),
      { numRuns: 150 },
    );
  });

  test("a stored (JSON round-tripped) clean log is ok", () => {
    expect(verifyLog(rawEvents(compactedLog())).ok).toBe(true);
  });
});

describe("verifyLog names each corruption", () => {
  test("a gap in seq is seq-mismatch at the first misnumbered event", () => {
    const events = rawEvents(twoTurnLog());
    events.splice(5, 1);
    expectSingleIssue(verifyLog(events), "seq-mismatch", 5);
  });

  test("a duplicated seq is seq-mismatch", () => {
    const events = rawEvents(twoTurnLog());
    events[4]!.seq = 3;
    expectSingleIssue(verifyLog(events), "seq-mismatch", 4);
  });

  test("an event outside any turn is a structure issue", () => {
    const events = rawEvents(twoTurnLog());
    events.push({
      type: "context/message",
      seq: events.length,
      time: 1,
      data: { content: [{ type: "text", text: "late" }], source: "inject" },
      surfaceOp: "append",
    });
    expectSingleIssue(verifyLog(events), "structure", events.length - 1);
  });

  test("a tool result without its call is a structure issue", () => {
    const events = rawEvents(twoTurnLog());
    const call = indexOf(events, "tool/call");
    events.splice(call, 1);
    expectSingleIssue(verifyLog(resequenced(events)), "structure", call);
  });

  test("a tool result answering an unknown call id is a structure issue", () => {
    const events = rawEvents(twoTurnLog());
    const result = indexOf(events, "tool/result");
    events[result]!.data.callId = "call_nobody";
    expectSingleIssue(verifyLog(events), "structure", result);
  });

  test("a missing final turn/end is open-turn", () => {
    const events = rawEvents(twoTurnLog()).slice(0, -1);
    const report = verifyLog(events);
    expectSingleIssue(report, "open-turn");
    expect(report.issues[0]!.message).toContain("turn 2");
    expect(report.requests).toBe(3);
  });

  test("a replace listing the wrong sourceEventSeqs is replace-provenance-mismatch", () => {
    const events = rawEvents(compactedLog());
    const replace = events.findIndex((e) => typeof e.surfaceOp === "object");
    expect(events[replace]!.sourceEventSeqs).toEqual([1, 4, 6, 9]);
    events[replace]!.sourceEventSeqs = [1, 4, 6];
    expectSingleIssue(verifyLog(events), "replace-provenance-mismatch", replace);
  });

  test("a replace with its provenance removed is replace-provenance-mismatch", () => {
    const events = rawEvents(compactedLog());
    const replace = events.findIndex((e) => typeof e.surfaceOp === "object");
    delete events[replace]!.sourceEventSeqs;
    expectSingleIssue(verifyLog(events), "replace-provenance-mismatch", replace);
  });

  test("a header delta before any snapshot is delta-before-snapshot", () => {
    const events = rawEvents(twoTurnLog());
    const header = indexOf(events, "request/header");
    events[header] = { ...events[header]!, type: "request/header-delta", data: { config: { model: "m" } } };
    expectSingleIssue(verifyLog(events), "delta-before-snapshot", header);
  });

  test("a delta that does not apply to the fold is delta-mismatch", () => {
    const events = rawEvents(twoTurnLog());
    const at = indexOf(events, "request/header") + 1;
    events.splice(at, 0, {
      type: "request/header-delta",
      seq: at,
      time: 1,
      data: { tools: { added: [], removed: ["write"], changed: [] } },
    });
    expectSingleIssue(verifyLog(resequenced(events)), "delta-mismatch", at);
  });

  test("a malformed header snapshot is invalid-data (the session refuses it like any bad payload)", () => {
    const events = rawEvents(twoTurnLog());
    const header = indexOf(events, "request/header");
    (events[header]!.data.header as Record<string, unknown>).tools = "read";
    expectSingleIssue(verifyLog(events), "invalid-data", header);
  });

  test("model output in a step with no header logged is no-header-at-dispatch, naming the output's seq", () => {
    const events = rawEvents(twoTurnLog());
    const header = indexOf(events, "request/header");
    events.splice(header, 1);
    expectSingleIssue(verifyLog(resequenced(events)), "no-header-at-dispatch", header);
  });

  test.each<[string, string, string, unknown]>([
    ["a string step number", "step/start", "step", "1"],
    ["a numeric isError", "tool/result", "isError", 0],
    ["a text block without text", "user/message", "content", [{ type: "text" }]],
    ["a negative token count", "assistant/message", "usage", { inputTokens: -1 }],
  ])("a field of the wrong type (%s) is invalid-data", (_what, type, field, value) => {
    const events = rawEvents(twoTurnLog());
    const at = indexOf(events, type);
    events[at]!.data[field] = value;
    expectSingleIssue(verifyLog(events), "invalid-data", at);
  });

  test("structural checking stops at the first structural error", () => {
    const events = rawEvents(twoTurnLog());
    events[3]!.seq = 99;
    events[10]!.data.step = "x";
    expect(verifyLog(events).issues.map((i) => i.code)).toEqual(["seq-mismatch"]);
  });
});

describe("verifyLog accepts logs the loop legitimately writes", () => {
  // The loop appends step/start (the history boundary) before the agent/request waterfall and
  // the header record (ARCHITECTURE.md §4 steps 5–7), so a step can end before anything was
  // dispatched. Such a step sent no request; it is not a "dispatch with no header".

  test("a crash between the first step boundary and its header record, closed by crash repair, verifies ok", () => {
    const s = sessionWithOpen("turn");
    s.append("user/message", { content: [text("hi")], source: "user" });
    s.append("step/start", { turn: 1, step: 1 });
    s.repair();
    expect(verifyLog(s.events).issues).toEqual([]);
  });

  test("a turn that errored before its first request was dispatched verifies ok", () => {
    const s = sessionWithOpen("turn");
    s.append("user/message", { content: [text("hi")], source: "user" });
    s.append("step/start", { turn: 1, step: 1 });
    s.append("step/end", { turn: 1, step: 1 });
    s.append("turn/end", { turn: 1, reason: { kind: "error", step: 1, message: "an agent/request listener threw" } });
    expect(verifyLog(s.events).issues).toEqual([]);
  });
});

describe("verifyLog never throws", () => {
  const junk = fc.oneof(
    fc.constant(null),
    fc.constant(undefined),
    fc.integer({ min: -2, max: 40 }),
    fc.string({ maxLength: 3 }),
    fc.constant([]),
    fc.constant({}),
    fc.constant({ op: "replace", start: 0, end: 1 }),
  );

  test("whatever single field of a random log is overwritten, the damage is reported, not thrown", () => {
    fc.assert(
      fc.property(logOpsArb, fc.nat(), fc.nat(), junk, (ops, which, field, value) => {
        const events = rawEvents(buildLog(ops)) as unknown as Record<string, unknown>[];
        fc.pre(events.length > 0);
        const event = events[which % events.length]!;
        const target = field % 2 === 0 ? event : (event.data as Record<string, unknown>);
        const keys = Object.keys(target);
        target[keys[field % keys.length]!] = value;
        expect(() => verifyLog(events)).not.toThrow();
      }),
      { numRuns: 300 },
    );
  });

  test.each<[string, unknown[]]>([
    ["a null event", [null]],
    ["a number", [7]],
    ["an empty object", [{}]],
    [
      "an event with unknown envelope keys",
      [{ type: "turn/start", seq: 0, time: 0, data: { turn: 1, trigger: "send" }, extra: true }],
    ],
  ])("%s is reported as an issue", (_what, events) => {
    const report = verifyLog(events);
    expect(report.ok).toBe(false);
    expect(report.issues).toHaveLength(1);
  });
});
