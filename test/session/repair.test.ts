import fc from "fast-check";
import { describe, expect, test } from "vitest";
import type { ToolCallBlock } from "../../src/messages/index.js";
import { verifyLog } from "../../src/reconstruct/index.js";
import {
  crashRepairClosers,
  isPairingBalanced,
  LogStructure,
  type PendingEvent,
  Session,
} from "../../src/session/index.js";
import { LogDriver, sessionWithOpen, text, toolCall, twoTurnLog } from "../support/builders.js";
import { buildLog, logOpsArb } from "../support/random-log.js";

/** The tool-call blocks of the last assistant message, in model order. */
function lastCalls(s: Session): ToolCallBlock[] {
  const assistant = s.events.findLast((e) => e.type === "assistant/message")!;
  return (assistant.data as { content: readonly { type: string }[] }).content.filter(
    (b): b is ToolCallBlock => b.type === "tool-call",
  );
}

const errorResult = (turn: number, step: number, callId: string): PendingEvent => ({
  type: "tool/result",
  data: {
    turn,
    step,
    callId,
    content: [text("interrupted: the session ended before this tool call returned")],
    isError: true,
    error: "interrupted",
  },
  surfaceOp: "append",
});

/** A crashed session: one complete turn, then turn 2 with step 1 done and step 2 open, its calls partly logged. */
function crashed(calls: readonly string[] = ["read", "write", "grep"]): Session {
  return new LogDriver().turn({ prompt: "first", steps: [{ text: "ok" }] }).openTurn(
    "second",
    [{ text: "looking", toolCalls: [{ name: "read" }] }],
    calls.map((name) => ({ name, args: `{"tool":"${name}"}` })),
  ).session;
}

describe("crash repair of an open final turn", () => {
  test("closes it with tool/call for unlogged blocks, an error result per call in model order, step/end, turn/end{interrupted}", () => {
    const s = crashed();
    const [a, b, c] = lastCalls(s);
    expect(s.openStep).toBe(2);
    expect(s.openTurnClosers()).toEqual([
      {
        type: "tool/call",
        data: { turn: 2, step: 2, callId: b!.callId, name: "write", arguments: '{"tool":"write"}' },
      },
      { type: "tool/call", data: { turn: 2, step: 2, callId: c!.callId, name: "grep", arguments: '{"tool":"grep"}' } },
      errorResult(2, 2, a!.callId),
      errorResult(2, 2, b!.callId),
      errorResult(2, 2, c!.callId),
      { type: "step/end", data: { turn: 2, step: 2 } },
      { type: "turn/end", data: { turn: 2, reason: { kind: "interrupted" } } },
    ]);
  });

  test("openTurnClosers only reports: the log is unchanged until repair()", () => {
    const s = crashed();
    const events = s.events;
    s.openTurnClosers();
    s.openTurnClosers();
    expect(s.events).toBe(events);
    expect(s.openTurn).toBe(2);
  });

  test("repair appends exactly the closers, durably, and returns the appended events", () => {
    const s = crashed();
    const closers = s.openTurnClosers();
    const before = s.length;
    const appended = s.repair();
    expect(
      appended.map((e) => ({
        type: e.type,
        data: e.data,
        ...(e.surfaceOp === undefined ? {} : { surfaceOp: e.surfaceOp }),
      })),
    ).toEqual(closers);
    expect(s.events.slice(before)).toEqual(appended);
    expect(appended.map((e) => e.seq)).toEqual(closers.map((_, i) => before + i));
    expect(s.openTurn).toBeNull();
    expect(s.openStep).toBeNull();
  });

  test("after repair the log verifies with no issues and its history pairs every call with a result", () => {
    const s = crashed();
    expect(verifyLog(s.events).issues.map((i) => i.code)).toEqual(["open-turn"]);
    s.repair();
    const report = verifyLog(s.events);
    expect(report.issues).toEqual([]);
    expect(report.ok).toBe(true);
    expect(isPairingBalanced(s.deriveMessages())).toBe(true);
  });

  test("a repaired log loads back unchanged, and has nothing left to close", () => {
    const s = crashed();
    s.repair();
    const loaded = Session.fromLog(s.header, JSON.parse(JSON.stringify(s.events)) as unknown[]);
    expect(loaded.events).toEqual(s.events);
    expect(loaded.openTurnClosers()).toEqual([]);
    expect(s.repair()).toEqual([]);
  });

  test("a loaded crashed log gets the same closers as the live session", () => {
    const s = crashed();
    const loaded = Session.fromLog(s.header, JSON.parse(JSON.stringify(s.events)) as unknown[]);
    expect(loaded.openTurnClosers()).toEqual(s.openTurnClosers());
  });

  test("answered calls get no closer; logged-but-unanswered calls each get one error result", () => {
    const s = sessionWithOpen("step");
    s.append("assistant/message", { turn: 1, step: 1, content: [toolCall("c1"), toolCall("c2"), toolCall("c3")] });
    for (const id of ["c1", "c2", "c3"])
      s.append("tool/call", { turn: 1, step: 1, callId: id, name: "read", arguments: "{}" });
    s.append("tool/result", { turn: 1, step: 1, callId: "c1", content: [text("ok")], isError: false });
    expect(s.openTurnClosers()).toEqual([
      errorResult(1, 1, "c2"),
      errorResult(1, 1, "c3"),
      { type: "step/end", data: { turn: 1, step: 1 } },
      { type: "turn/end", data: { turn: 1, reason: { kind: "interrupted" } } },
    ]);
  });

  test("error results follow the model's order even when the tool/calls were logged out of order", () => {
    const s = sessionWithOpen("step");
    s.append("assistant/message", { turn: 1, step: 1, content: [toolCall("c1"), toolCall("c2"), toolCall("c3")] });
    s.append("tool/call", { turn: 1, step: 1, callId: "c2", name: "read", arguments: "{}" });
    const results = s.openTurnClosers().filter((p) => p.type === "tool/result");
    expect(results.map((p) => (p.data as { callId: string }).callId)).toEqual(["c1", "c2", "c3"]);
  });

  test("an open step without tool calls gets step/end then turn/end", () => {
    const s = sessionWithOpen("step");
    s.append("assistant/message", { turn: 1, step: 1, content: [text("partial")] });
    expect(s.openTurnClosers()).toEqual([
      { type: "step/end", data: { turn: 1, step: 1 } },
      { type: "turn/end", data: { turn: 1, reason: { kind: "interrupted" } } },
    ]);
  });

  test("an open turn between steps gets only turn/end{interrupted}", () => {
    const s = sessionWithOpen("turn");
    s.append("user/message", { content: [text("hello")], source: "user" });
    expect(s.openTurnClosers()).toEqual([{ type: "turn/end", data: { turn: 1, reason: { kind: "interrupted" } } }]);
    s.repair();
    expect(verifyLog(s.events).issues).toEqual([]);
  });

  test("an open compaction gets compact/end before turn/end", () => {
    const s = twoTurnLog();
    s.append("turn/start", { turn: 3, trigger: "compact" });
    s.append("compact/start", { turn: 3, trigger: "auto" });
    const closers = s.openTurnClosers();
    expect(closers.map((p) => p.type)).toEqual(["compact/end", "turn/end"]);
    expect(closers[0]).toMatchObject({ type: "compact/end", data: { turn: 3 } });
    s.repair();
    expect(verifyLog(s.events).issues).toEqual([]);
  });

  test("a closed log gets no closers, and repair appends nothing", () => {
    const s = twoTurnLog();
    const events = s.events;
    expect(s.openTurnClosers()).toEqual([]);
    expect(s.repair()).toEqual([]);
    expect(s.events).toBe(events);
    expect(crashRepairClosers(new LogStructure())).toEqual([]);
  });

  test("crashRepairClosers over a LogStructure fed the log agrees with the session", () => {
    const s = crashed();
    const structure = new LogStructure();
    for (const e of s.events) structure.accept(e);
    expect(crashRepairClosers(structure)).toEqual(s.openTurnClosers());
  });
});

describe("crash repair on random logs", () => {
  const crashArb = fc.record({
    ops: logOpsArb,
    doneSteps: fc.nat(2),
    calls: fc.array(fc.constantFrom("read", "write", "grep"), { maxLength: 4 }),
  });

  test("any random log with a crashed final turn repairs to a log that verifies, with one error result per owed call in model order", () => {
    fc.assert(
      fc.property(crashArb, ({ ops, doneSteps, calls }) => {
        const s = buildLog(ops);
        const steps = Array.from({ length: doneSteps }, (_, i) => ({
          text: `step ${i}`,
          toolCalls: [{ name: "read" }],
        }));
        const start = s.length;
        new LogDriver(s).openTurn(
          "crash here",
          steps,
          calls.map((name) => ({ name })),
        );
        const owed = calls.length === 0 ? [] : lastCalls(s).map((b) => b.callId);
        const appended = s.repair();
        const results = appended.filter((e) => e.type === "tool/result");
        expect(results.map((e) => (e.data as { callId: string }).callId)).toEqual(owed);
        expect(results.every((e) => (e.data as { isError: boolean }).isError)).toBe(true);
        expect(appended.at(-1)).toMatchObject({ type: "turn/end", data: { reason: { kind: "interrupted" } } });
        expect(verifyLog(s.events).issues).toEqual([]);
        expect(s.events.slice(start).every((e) => e.seq >= start)).toBe(true);
      }),
      { numRuns: 100 },
    );
  });
});
