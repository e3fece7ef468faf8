import fc from "fast-check";
import { describe, expect, test } from "vitest";
import type { AnySessionEvent, Session, SessionEvent } from "../../src/session/index.js";
import { newSession, sessionWithOpen, text, toolCall, twoTurnLog } from "../support/builders.js";
import { buildLog, logOpsArb } from "../support/random-log.js";
import { expectRejectedUnchanged } from "./log-assertions.js";

const completed = { kind: "completed" } as const;

/** Turn 1, step 1 open, with an assistant message calling `ids` (tool-call blocks, not yet logged). */
function stepWithCalls(...ids: string[]): Session {
  const s = sessionWithOpen("step");
  s.append("assistant/message", { turn: 1, step: 1, content: ids.map((id) => toolCall(id)) });
  return s;
}

describe("every event lies inside a turn", () => {
  test.each([
    ["a user message", (s: Session) => s.append("user/message", { content: [text("x")], source: "user" })],
    [
      "a request header",
      (s: Session) => s.append("request/header", { header: { config: { model: "m" } }, reason: "initial" }),
    ],
    ["a step", (s: Session) => s.append("step/start", { turn: 1, step: 1 })],
    ["a turn/end", (s: Session) => s.append("turn/end", { turn: 1, reason: completed })],
  ])("%s before any turn is rejected with structure", (_name, append) => {
    const s = newSession();
    expectRejectedUnchanged(s, () => append(s), "structure");
  });

  test("an event after the last turn/end is rejected with structure", () => {
    const s = twoTurnLog();
    expectRejectedUnchanged(
      s,
      () => s.append("context/message", { content: [text("late")], source: "inject" }),
      "structure",
    );
  });
});

describe("turns and steps are numbered contiguously and nest", () => {
  test("the first turn must be turn 1", () => {
    const s = newSession();
    expectRejectedUnchanged(s, () => s.append("turn/start", { turn: 2, trigger: "send" }), "structure");
  });

  test("a gap in turn numbering is rejected", () => {
    const s = twoTurnLog();
    expectRejectedUnchanged(s, () => s.append("turn/start", { turn: 4, trigger: "send" }), "structure");
    expectRejectedUnchanged(s, () => s.append("turn/start", { turn: 2, trigger: "send" }), "structure");
    expect(s.append("turn/start", { turn: 3, trigger: "send" }).data.turn).toBe(3);
  });

  test("a turn/start while a turn is open is rejected", () => {
    const s = sessionWithOpen("turn");
    expectRejectedUnchanged(s, () => s.append("turn/start", { turn: 2, trigger: "send" }), "structure");
  });

  test("a turn/end naming another turn is rejected", () => {
    const s = sessionWithOpen("turn");
    expectRejectedUnchanged(s, () => s.append("turn/end", { turn: 2, reason: completed }), "structure");
  });

  test("a gap in step numbering is rejected; steps restart at 1 in each turn", () => {
    const s = sessionWithOpen("turn");
    expectRejectedUnchanged(s, () => s.append("step/start", { turn: 1, step: 2 }), "structure");
    s.append("step/start", { turn: 1, step: 1 });
    s.append("step/end", { turn: 1, step: 1 });
    expectRejectedUnchanged(s, () => s.append("step/start", { turn: 1, step: 3 }), "structure");
    expectRejectedUnchanged(s, () => s.append("step/start", { turn: 1, step: 1 }), "structure");
    s.append("step/start", { turn: 1, step: 2 });
    s.append("step/end", { turn: 1, step: 2 });
    s.append("turn/end", { turn: 1, reason: completed });
    s.append("turn/start", { turn: 2, trigger: "send" });
    expect(s.append("step/start", { turn: 2, step: 1 }).data.step).toBe(1);
  });

  test("a step/start while a step is open is rejected", () => {
    const s = sessionWithOpen("step");
    expectRejectedUnchanged(s, () => s.append("step/start", { turn: 1, step: 2 }), "structure");
  });

  test("turn/end while a step is open is rejected", () => {
    const s = sessionWithOpen("step");
    expectRejectedUnchanged(s, () => s.append("turn/end", { turn: 1, reason: completed }), "structure");
  });

  test("step events must name the open turn and step", () => {
    const s = sessionWithOpen("step");
    expectRejectedUnchanged(s, () => s.append("step/end", { turn: 1, step: 2 }), "structure");
    expectRejectedUnchanged(
      s,
      () => s.append("assistant/message", { turn: 2, step: 1, content: [text("x")] }),
      "structure",
    );
    expectRejectedUnchanged(
      s,
      () => s.append("llm/retry", { turn: 1, step: 2, attempt: 1, code: "rate-limit", delayMs: 10 }),
      "structure",
    );
  });

  test("an assistant message outside a step is rejected", () => {
    const s = sessionWithOpen("turn");
    expectRejectedUnchanged(
      s,
      () => s.append("assistant/message", { turn: 1, step: 1, content: [text("x")] }),
      "structure",
    );
  });
});

describe("tool calls pair with results inside their step", () => {
  test("a tool/result without a logged tool/call is rejected", () => {
    const s = stepWithCalls("c1");
    expectRejectedUnchanged(
      s,
      () => s.append("tool/result", { turn: 1, step: 1, callId: "c1", content: [text("r")], isError: false }),
      "structure",
    );
  });

  test("a tool/call for a call id the model did not produce is rejected", () => {
    const s = stepWithCalls("c1");
    expectRejectedUnchanged(
      s,
      () => s.append("tool/call", { turn: 1, step: 1, callId: "c9", name: "read", arguments: "{}" }),
      "structure",
    );
  });

  test("a tool/call whose name differs from the model's block is rejected", () => {
    const s = stepWithCalls("c1");
    expectRejectedUnchanged(
      s,
      () => s.append("tool/call", { turn: 1, step: 1, callId: "c1", name: "write", arguments: "{}" }),
      "structure",
    );
  });

  test("a call is logged once and answered once", () => {
    const s = stepWithCalls("c1");
    s.append("tool/call", { turn: 1, step: 1, callId: "c1", name: "read", arguments: "{}" });
    expectRejectedUnchanged(
      s,
      () => s.append("tool/call", { turn: 1, step: 1, callId: "c1", name: "read", arguments: "{}" }),
      "structure",
    );
    s.append("tool/result", { turn: 1, step: 1, callId: "c1", content: [text("r")], isError: false });
    expectRejectedUnchanged(
      s,
      () => s.append("tool/result", { turn: 1, step: 1, callId: "c1", content: [text("again")], isError: false }),
      "structure",
    );
  });

  test("step/end with an unanswered call is rejected, whether or not its tool/call was logged", () => {
    const s = stepWithCalls("c1", "c2");
    s.append("tool/call", { turn: 1, step: 1, callId: "c1", name: "read", arguments: "{}" });
    const error = expectRejectedUnchanged(s, () => s.append("step/end", { turn: 1, step: 1 }), "structure");
    expect(error.message).toContain("c1");
    expect(error.message).toContain("c2");
    s.append("tool/result", { turn: 1, step: 1, callId: "c1", content: [text("r")], isError: false });
    expectRejectedUnchanged(s, () => s.append("step/end", { turn: 1, step: 1 }), "structure");
    s.append("tool/call", { turn: 1, step: 1, callId: "c2", name: "read", arguments: "{}" });
    s.append("tool/result", { turn: 1, step: 1, callId: "c2", content: [text("r")], isError: false });
    expect(s.append("step/end", { turn: 1, step: 1 }).type).toBe("step/end");
  });

  test("a duplicate tool-call id within one assistant message is rejected", () => {
    const s = sessionWithOpen("step");
    expectRejectedUnchanged(
      s,
      () => s.append("assistant/message", { turn: 1, step: 1, content: [toolCall("c1"), toolCall("c1")] }),
      "structure",
    );
  });

  test("a tool-call id reused in a later turn is rejected", () => {
    const s = stepWithCalls("c1");
    s.append("tool/call", { turn: 1, step: 1, callId: "c1", name: "read", arguments: "{}" });
    s.append("tool/result", { turn: 1, step: 1, callId: "c1", content: [text("r")], isError: false });
    s.append("step/end", { turn: 1, step: 1 });
    s.append("turn/end", { turn: 1, reason: completed });
    s.append("turn/start", { turn: 2, trigger: "send" });
    s.append("step/start", { turn: 2, step: 1 });
    expectRejectedUnchanged(
      s,
      () => s.append("assistant/message", { turn: 2, step: 1, content: [toolCall("c1")] }),
      "structure",
    );
  });

  test("a tool/result from an earlier step cannot answer in a later one", () => {
    const s = stepWithCalls("c1");
    s.append("tool/call", { turn: 1, step: 1, callId: "c1", name: "read", arguments: "{}" });
    expectRejectedUnchanged(
      s,
      () => s.append("tool/result", { turn: 1, step: 2, callId: "c1", content: [text("r")], isError: false }),
      "structure",
    );
  });
});

describe("compactions open and close between steps", () => {
  test("compact/start inside a step, a step or turn/end inside a compaction, and compact/end without a start are rejected", () => {
    const inStep = sessionWithOpen("step");
    expectRejectedUnchanged(inStep, () => inStep.append("compact/start", { turn: 1, trigger: "auto" }), "structure");
    const s = sessionWithOpen("turn");
    expectRejectedUnchanged(s, () => s.append("compact/end", { turn: 1 }), "structure");
    expectRejectedUnchanged(s, () => s.append("compact/summary", { text: "x" }), "structure");
    s.append("compact/start", { turn: 1, trigger: "auto" });
    expectRejectedUnchanged(s, () => s.append("compact/start", { turn: 1, trigger: "auto" }), "structure");
    expectRejectedUnchanged(s, () => s.append("step/start", { turn: 1, step: 1 }), "structure");
    expectRejectedUnchanged(s, () => s.append("turn/end", { turn: 1, reason: completed }), "structure");
    s.append("compact/summary", { text: "x" });
    s.append("compact/end", { turn: 1 });
    expect(s.append("turn/end", { turn: 1, reason: completed }).type).toBe("turn/end");
  });
});

describe("P20 on random logs", () => {
  function turnWindows(events: readonly SessionEvent[]): { inside: boolean[]; starts: number; ends: number } {
    let open = false;
    let starts = 0;
    let ends = 0;
    const inside = events.map((e) => {
      if (e.type === "turn/start") {
        expect(open).toBe(false);
        open = true;
        starts++;
        return true;
      }
      const was = open;
      if (e.type === "turn/end") {
        open = false;
        ends++;
      }
      return was;
    });
    return { inside, starts, ends };
  }

  test("every event lies inside a turn, and each turn/start has exactly one turn/end", () => {
    fc.assert(
      fc.property(logOpsArb, (ops) => {
        const s = buildLog(ops);
        const { inside, starts, ends } = turnWindows(s.events);
        expect(inside.every(Boolean)).toBe(true);
        expect(starts).toBe(ends);
        expect(s.openTurn).toBeNull();
        expect(s.lastTurn).toBe(starts);
      }),
      { numRuns: 150 },
    );
  });

  test("each step/start has exactly one step/end, in the same turn, before the turn ends", () => {
    fc.assert(
      fc.property(logOpsArb, (ops) => {
        const s = buildLog(ops);
        let step: string | null = null;
        for (const e of s.events as readonly AnySessionEvent[]) {
          if (e.type === "step/start") {
            expect(step).toBeNull();
            step = `${e.data.turn}.${e.data.step}`;
          } else if (e.type === "step/end") {
            expect(step).toBe(`${e.data.turn}.${e.data.step}`);
            step = null;
          } else if (e.type === "turn/end") {
            expect(step).toBeNull();
          }
        }
        expect(step).toBeNull();
      }),
      { numRuns: 150 },
    );
  });

  test("every tool/call and tool/result of a random log lies inside the step it names", () => {
    fc.assert(
      fc.property(logOpsArb, (ops) => {
        const s = buildLog(ops);
        let open: string | null = null;
        for (const e of s.events as readonly AnySessionEvent[]) {
          if (e.type === "step/start") open = `${e.data.turn}.${e.data.step}`;
          else if (e.type === "step/end") open = null;
          else if (e.type === "tool/call" || (e.type === "tool/result" && e.surfaceOp === "append")) {
            expect(open).toBe(`${e.data.turn}.${e.data.step}`);
          }
        }
      }),
      { numRuns: 150 },
    );
  });
});

describe("MCP sampling events (decision 0026)", () => {
  const request = { model: "m", maxTokens: 10, messages: [{ role: "user" as const, content: [text("hi")] }] };
  const sample = (s: Session, callId: string) =>
    s.append("mcp/sampling-request", { id: `${callId}#sample-1`, callId, server: "fx", request });

  test("lie inside their call: after its tool/call, before its result", () => {
    const s = stepWithCalls("c1");
    expectRejectedUnchanged(s, () => sample(s, "c1"), "structure"); // not yet called
    s.append("tool/call", { turn: 1, step: 1, callId: "c1", name: "read", arguments: "{}" });
    sample(s, "c1");
    s.append("mcp/sampling-response", { id: "c1#sample-1", callId: "c1", content: [text("ok")] });
    s.append("tool/result", { turn: 1, step: 1, callId: "c1", content: [text("done")], isError: false });
    expectRejectedUnchanged(
      s,
      () => s.append("mcp/sampling-response", { id: "c1#sample-1", callId: "c1", content: [text("late")] }),
      "structure",
    );
    expect(s.deriveMessages().map((m) => m.role)).toEqual(["assistant", "tool"]);
  });

  test("a request that is not a request is invalid data", () => {
    const s = stepWithCalls("c1");
    s.append("tool/call", { turn: 1, step: 1, callId: "c1", name: "read", arguments: "{}" });
    expectRejectedUnchanged(
      s,
      () =>
        s.append("mcp/sampling-request", {
          id: "c1#sample-1",
          callId: "c1",
          server: "fx",
          request: { ...request, maxTokens: 0 },
        }),
      "invalid-data",
    );
  });
});
