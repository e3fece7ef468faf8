import fc from "fast-check";
import { describe, expect, test } from "vitest";
import type { Message } from "../../src/messages/index.js";
import { isPairingBalanced, toolPairingBalance } from "../../src/session/index.js";
import { text, toolCall, twoTurnLog } from "../support/builders.js";
import { buildLog, logOpsArb } from "../support/random-log.js";

const assistant = (...callIds: string[]): Message => ({
  role: "assistant",
  content: [text("thinking"), ...callIds.map((id) => toolCall(id))],
});
const result = (callId: string): Message => ({
  role: "tool",
  content: [{ type: "tool-result", callId, content: [text("r")], isError: false }],
});
const user = (t: string): Message => ({ role: "user", content: [text(t)] });

describe("toolPairingBalance", () => {
  test("an empty or tool-free history is balanced", () => {
    expect(toolPairingBalance([])).toEqual({ unansweredCalls: [], orphanResults: [] });
    expect(isPairingBalanced([user("a"), { role: "assistant", content: [text("b")] }])).toBe(true);
  });

  test("reports calls without results and results without calls, by call id", () => {
    const messages = [user("go"), assistant("c1", "c2"), result("c1"), result("c9")];
    expect(toolPairingBalance(messages)).toEqual({ unansweredCalls: ["c2"], orphanResults: ["c9"] });
    expect(isPairingBalanced(messages)).toBe(false);
  });

  test("every call answered and every result called is balanced, whatever the order", () => {
    expect(isPairingBalanced([assistant("c1", "c2"), result("c2"), result("c1")])).toBe(true);
    expect(isPairingBalanced([result("c1"), assistant("c1")])).toBe(true); // pairing, not ordering
  });

  test("a call alone or a result alone is unbalanced", () => {
    expect(toolPairingBalance([assistant("c1")])).toEqual({ unansweredCalls: ["c1"], orphanResults: [] });
    expect(toolPairingBalance([result("c1")])).toEqual({ unansweredCalls: [], orphanResults: ["c1"] });
  });

  test("the derived history of a complete log is balanced, and cutting a call from its result unbalances it", () => {
    const messages = twoTurnLog().deriveMessages();
    expect(isPairingBalanced(messages)).toBe(true);
    const withCall = messages.findIndex((m) => m.role === "assistant" && m.content.some((b) => b.type === "tool-call"));
    expect(isPairingBalanced(messages.slice(0, withCall + 1))).toBe(false);
    expect(isPairingBalanced(messages.slice(withCall + 1))).toBe(false);
  });

  test("the derived history of every random complete log is balanced", () => {
    fc.assert(
      fc.property(logOpsArb, (ops) => {
        expect(toolPairingBalance(buildLog(ops).deriveMessages())).toEqual({ unansweredCalls: [], orphanResults: [] });
      }),
      { numRuns: 100 },
    );
  });

  test("a concatenation of balanced histories is balanced", () => {
    const balancedArb = fc.array(fc.uuid(), { maxLength: 4 }).map((ids) => [assistant(...ids), ...ids.map(result)]);
    fc.assert(
      fc.property(fc.array(balancedArb, { maxLength: 4 }), (chunks) => {
        expect(isPairingBalanced(chunks.flat())).toBe(true);
      }),
    );
  });
});
