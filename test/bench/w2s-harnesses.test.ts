// The W2S bench runners really obtain an agent over a prepared session and run the whole scripted
// turn: every runner, over both history shapes, completes one 20-step turn from a 20-message
// history (the worker checks the model calls and the history length after the turn). The
// prepared histories hold exactly H messages in every runner's format. No timing is asserted.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RUNNERS, type RunnerName } from "../../bench/w2s/harness.js";
import { aiSdkHistory, keelsonHistory, piHistory, SHAPES } from "../../bench/w2s/history.js";
import { median, runW2sWorker } from "../../bench/w2s/worker.js";

describe("W2S bench runners", () => {
  for (const runner of Object.keys(RUNNERS) as RunnerName[]) {
    for (const shape of SHAPES) {
      it(`${runner} completes a 20-step turn over a prepared ${shape} session of 20 messages`, async () => {
        const result = await runW2sWorker({ runner, shape, messages: 20, steps: 20, warmup: 0, timed: 1 });
        expect(result.cpuMsPerStepAll).toHaveLength(1);
        expect(result.peakRssMb).toBeGreaterThan(0);
      });
    }
  }

  it("every runner's prepared history holds exactly H messages, 80% of them tool messages when tool-heavy", () => {
    for (const shape of SHAPES) {
      expect(piHistory(shape, 100)).toHaveLength(100);
      expect(aiSdkHistory(shape, 100)).toHaveLength(100);
      expect(keelsonHistory(shape, 100, `h-${shape}`).deriveMessages()).toHaveLength(100);
    }
    const tools = aiSdkHistory("tools", 100);
    const toolMessages = tools.filter(
      (m) => m.role === "tool" || (m.role === "assistant" && JSON.stringify(m.content).includes("tool-call")),
    );
    expect(toolMessages).toHaveLength(80);
  });

  it("with cpuProfile, writes a CPU profile of the timed turns", async () => {
    const dir = await mkdtemp(join(tmpdir(), "w2s-profile-"));
    try {
      const file = join(dir, "turns.cpuprofile");
      await runW2sWorker({
        runner: "keelson in memory",
        shape: "text",
        messages: 20,
        steps: 20,
        warmup: 1,
        timed: 1,
        cpuProfile: file,
      });
      const profile = JSON.parse(await readFile(file, "utf8")) as { nodes: unknown[]; samples: unknown[] };
      expect(profile.nodes.length).toBeGreaterThan(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("refuses a history size that is not a whole number of turns", () => {
    expect(() => piHistory("tools", 25)).toThrow(/10 messages per turn; 25/);
  });

  it("the median of an even count is the mean of the middle two", () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });
});
