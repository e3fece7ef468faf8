import fc from "fast-check";
import { describe, expect, test } from "vitest";
import type { ToolCallBlock } from "../../src/messages/index.js";
import { isPairingBalanced, type ReplaceOp, type Session, SessionError } from "../../src/session/index.js";
import { sessionWithOpen, text, twoTurnLog } from "../support/builders.js";
import { buildLog, logOpsArb } from "../support/random-log.js";
import { expectRejectedUnchanged, naiveSurface } from "./log-assertions.js";

const replace = (start: number, end: number): ReplaceOp => ({ op: "replace", start, end });
const summary = (label: string) => ({ content: [text(label)], source: "compaction" });

/**
 * twoTurnLog's surface, with turn 3 open so replaces may be logged:
 *   0 user · 1 assistant(text + call) · 2 tool(result) · 3 assistant · 4 user · 5 assistant
 */
function compactable(): { s: Session; callId: string } {
  const s = twoTurnLog();
  s.append("turn/start", { turn: 3, trigger: "compact" });
  const call = s.deriveMessages()[1]!.content.find((b) => b.type === "tool-call") as ToolCallBlock;
  return { s, callId: call.callId };
}

const pruned = (callId: string, label = "[pruned]") => ({
  turn: 1,
  step: 1,
  callId,
  content: [text(label)],
  isError: false,
});

describe("a replace must name nodes on the surface", () => {
  test.each([
    ["start below 0", -1, 0],
    ["end before start", 3, 2],
    ["end past the last node", 4, 6],
    ["start past the last node", 6, 6],
  ])("%s is rejected with replace-out-of-range and the log is unchanged", (_name, start, end) => {
    const { s } = compactable();
    expectRejectedUnchanged(
      s,
      () => s.append("user/message", summary("x"), replace(start, end)),
      "replace-out-of-range",
    );
  });

  test("any replace on an empty surface is out of range", () => {
    const s = sessionWithOpen("turn");
    expectRejectedUnchanged(s, () => s.append("user/message", summary("x"), replace(0, 0)), "replace-out-of-range");
  });
});

describe("a replace never separates a tool call from its result", () => {
  test.each([
    ["the call without its result", 1, 1],
    ["the result without its call", 2, 2],
    ["the prompt and the call, leaving the result behind", 0, 1],
    ["the result and what follows, leaving the call behind", 2, 5],
  ])("a region holding %s is rejected with replace-splits-tool-pair", (_name, start, end) => {
    const { s } = compactable();
    expectRejectedUnchanged(
      s,
      () => s.append("user/message", summary("x"), replace(start, end)),
      "replace-splits-tool-pair",
    );
  });

  test.each([
    ["the call and its result", 1, 2],
    ["the whole first turn", 0, 3],
    ["everything", 0, 5],
    ["a region with no tool messages", 3, 4],
  ])("a region holding %s is accepted", (_name, start, end) => {
    const { s } = compactable();
    expect(s.append("user/message", summary("x"), replace(start, end)).surfaceOp).toEqual(replace(start, end));
  });
});

describe("a valid replace", () => {
  test("carries sourceEventSeqs equal to exactly the seqs of the shadowed nodes, in surface order", () => {
    const { s } = compactable();
    const before = s.surfaceSeqs();
    const e = s.append("user/message", summary("summary of 0..3"), replace(0, 3));
    expect(e.sourceEventSeqs).toEqual(before.slice(0, 4));
    expect(Object.isFrozen(e.sourceEventSeqs)).toBe(true);
  });

  test("puts the replacing event in the shadowed region's place on the surface", () => {
    const { s } = compactable();
    const before = s.surfaceSeqs();
    const e = s.append("user/message", summary("summary"), replace(1, 3));
    expect(s.surfaceSeqs()).toEqual([before[0], e.seq, before[4], before[5]]);
    expect(s.deriveMessages()[1]).toEqual({ role: "user", content: [text("summary")] });
    expect(s.deriveMessages()).toHaveLength(4);
  });

  test("bumps surfaceGeneration by one; an append leaves it unchanged", () => {
    const { s } = compactable();
    const g = s.surfaceGeneration;
    s.append("user/message", summary("appended"));
    expect(s.surfaceGeneration).toBe(g);
    s.append("user/message", summary("replacing"), replace(0, 0));
    expect(s.surfaceGeneration).toBe(g + 1);
  });

  test("deletes nothing from the log: the shadowed events are still there, unchanged", () => {
    const { s } = compactable();
    const events = s.events;
    s.append("user/message", summary("x"), replace(0, 5));
    expect(s.events.slice(0, events.length)).toEqual(events);
    for (let i = 0; i < events.length; i++) expect(s.events[i]).toBe(events[i]);
  });

  test("a rejected replace does not bump surfaceGeneration", () => {
    const { s } = compactable();
    const g = s.surfaceGeneration;
    expect(() => s.append("user/message", summary("x"), replace(1, 1))).toThrow(SessionError);
    expect(s.surfaceGeneration).toBe(g);
  });
});

describe("a tool/result replace (pruning)", () => {
  test("may replace the single result of the same call", () => {
    const { s, callId } = compactable();
    const resultSeq = s.surfaceSeqs()[2]!;
    const e = s.append("tool/result", pruned(callId), replace(2, 2));
    expect(e.sourceEventSeqs).toEqual([resultSeq]);
    expect(s.deriveMessages()[2]).toEqual({
      role: "tool",
      content: [{ type: "tool-result", callId, content: [text("[pruned]")], isError: false }],
    });
  });

  test("may prune an already-pruned result again", () => {
    const { s, callId } = compactable();
    const first = s.append("tool/result", pruned(callId, "[pruned once]"), replace(2, 2));
    const second = s.append("tool/result", pruned(callId, "[pruned twice]"), replace(2, 2));
    expect(second.sourceEventSeqs).toEqual([first.seq]);
  });

  test("may not replace the result of another call", () => {
    const { s } = compactable();
    expectRejectedUnchanged(
      s,
      () => s.append("tool/result", pruned("some-other-call"), replace(2, 2)),
      "replace-splits-tool-pair",
    );
  });

  test("the refusal names a megabyte call id cut short: its message stays under 2,000 characters (reliability seed 64093)", () => {
    const { s } = compactable();
    let message = "";
    try {
      s.append("tool/result", pruned("日本語🚢é".repeat(100_000)), replace(2, 2));
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/may only replace the single result of call "日本語/);
    expect(message.length).toBeLessThan(2000);
  });

  test("may not replace a node that is not a tool result", () => {
    const { s, callId } = compactable();
    expectRejectedUnchanged(
      s,
      () => s.append("tool/result", pruned(callId), replace(3, 3)),
      "replace-splits-tool-pair",
    );
  });

  test("may not replace more than the one result", () => {
    const { s, callId } = compactable();
    expectRejectedUnchanged(
      s,
      () => s.append("tool/result", pruned(callId), replace(1, 2)),
      "replace-splits-tool-pair",
    );
    expectRejectedUnchanged(
      s,
      () => s.append("tool/result", pruned(callId), replace(2, 3)),
      "replace-splits-tool-pair",
    );
  });

  test("an appended tool/result is not accepted outside the step of its call", () => {
    const { s, callId } = compactable();
    expectRejectedUnchanged(s, () => s.append("tool/result", pruned(callId)), "structure");
  });
});

describe("surface folding agrees with a naive re-fold", () => {
  type Op = { readonly kind: "append" } | { readonly kind: "replace"; readonly a: number; readonly b: number };
  const opArb: fc.Arbitrary<Op> = fc.oneof(
    { weight: 3, arbitrary: fc.constant({ kind: "append" as const }) },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant("replace" as const),
        a: fc.integer({ min: -2, max: 14 }),
        b: fc.integer({ min: -2, max: 14 }),
      }),
    },
  );

  test("random appends and replaces (valid or not) keep surfaceSeqs, deriveMessages and provenance equal to the fold", () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 40 }), (ops) => {
        const s = sessionWithOpen("turn");
        let generation = 0;
        ops.forEach((op, i) => {
          if (op.kind === "append") {
            s.append("user/message", summary(`m${i}`));
            return;
          }
          const size = s.surfaceSeqs().length;
          const valid = op.a >= 0 && op.b >= op.a && op.b < size;
          if (!valid) {
            expectRejectedUnchanged(
              s,
              () => s.append("user/message", summary(`r${i}`), replace(op.a, op.b)),
              "replace-out-of-range",
            );
            return;
          }
          const shadowed = s.surfaceSeqs().slice(op.a, op.b + 1);
          const e = s.append("user/message", summary(`r${i}`), replace(op.a, op.b));
          generation++;
          expect(e.sourceEventSeqs).toEqual(shadowed);
        });
        const naive = naiveSurface(s.events);
        expect(s.surfaceSeqs()).toEqual(naive.seqs);
        expect(s.deriveMessages()).toEqual(naive.messages);
        expect(s.surfaceGeneration).toBe(generation);
      }),
      { numRuns: 300 },
    );
  });

  test("on random logs, a summary replace is accepted iff its region is on the surface and pairing-balanced", () => {
    const region = fc.tuple(fc.integer({ min: -1, max: 60 }), fc.integer({ min: -1, max: 60 }));
    fc.assert(
      fc.property(logOpsArb, fc.array(region, { minLength: 1, maxLength: 5 }), (ops, regions) => {
        const s = buildLog(ops);
        s.append("turn/start", { turn: s.lastTurn + 1, trigger: "compact" });
        for (const [a, b] of regions) {
          const messages = s.deriveMessages();
          const inRange = a >= 0 && b >= a && b < messages.length;
          const append = () => s.append("user/message", summary(`summary ${a}..${b}`), replace(a, b));
          if (!inRange) expectRejectedUnchanged(s, append, "replace-out-of-range");
          else if (!isPairingBalanced(messages.slice(a, b + 1)))
            expectRejectedUnchanged(s, append, "replace-splits-tool-pair");
          else {
            const shadowed = s.surfaceSeqs().slice(a, b + 1);
            expect(append().sourceEventSeqs).toEqual(shadowed);
          }
        }
        expect(isPairingBalanced(s.deriveMessages())).toBe(true);
      }),
      { numRuns: 150 },
    );
  });
});
