// The W2 bench harnesses really run the whole scripted loop: every harness (Keelson and its
// peers on their mocks) completes 5-step turns from a 100-message history, and the script
// catches a loop that stops early or calls the model past its end; the over-the-wire latency's
// turns complete. No timing is asserted.
import { describe, expect, it } from "vitest";
import { firstByteLatency } from "../../bench/w2/first-byte.js";
import { HARNESSES, type HarnessName } from "../../bench/w2/harness.js";
import { LoopScript } from "../../bench/w2/script.js";
import { runWorker } from "../../bench/w2/worker.js";

describe("W2 bench harnesses", () => {
  for (const harness of Object.keys(HARNESSES) as HarnessName[]) {
    it(`${harness} runs every step of the script`, async () => {
      const result = await runWorker({ harness, messages: 100, steps: 5, warmup: 3, firstTurn: 2, repeats: 1 });
      expect(result.historyAtStart).toBe(100 + 2 * 2);
      expect(result.cpuMsPerStepAll).toHaveLength(1);
    });
  }

  it("the over-the-wire latency runs real turns through AnthropicProvider against its local server", async () => {
    const latency = await firstByteLatency(5, 2); // each turn is checked to complete with its first event
    expect(latency.turns).toBe(5);
    expect(Number.isFinite(latency.median) && latency.median >= 0).toBe(true);
  });

  it("the script rejects a loop that stops early or overruns", () => {
    const script = new LoopScript();
    script.arm(3);
    expect(script.next()).toMatchObject({ kind: "tool", n: 1 });
    expect(() => script.done()).toThrow(/stopped after 1 model calls, 2 short/);
    script.next();
    expect(script.next()).toEqual({ kind: "final" });
    expect(script.done()).toBe(3);
    expect(() => script.next()).toThrow(/past the end/);
  });
});
