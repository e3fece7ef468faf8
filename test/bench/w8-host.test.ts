// The W8 bench rows really run: every runner (bare agents in memory and over JSONL, the host over
// JSONL and PostgreSQL) streams every session's turns to the end — the worker throws on a turn
// that does not complete — and reports two steps a turn. No timing is asserted.
import { describe, expect, it } from "vitest";
import type { W8RunnerName } from "../../bench/w8/runners.js";
import { runW8Worker } from "../../bench/w8/worker.js";
import { usePgDatabase } from "../store/postgres-harness.js";

const database = usePgDatabase();

describe("W8 bench runners", () => {
  const runners: W8RunnerName[] = ["agents, in memory", "agents + JSONL", "host + JSONL", "host + PostgreSQL"];
  for (const runner of runners) {
    it(`${runner} streams 5 sessions × 2 timed turns to the end, two steps a turn`, async () => {
      const url = runner === "host + PostgreSQL" ? { url: database().url } : {};
      const result = await runW8Worker({ runner, durability: "step", sessions: 5, turns: 2, latencyMs: 0, ...url });
      expect(result.measuredTurns).toBe(10);
      expect(result.steps).toBe(20);
      expect(result.latencySamples).toBeGreaterThan(0);
      expect(result.turnEndMs99).toBeGreaterThanOrEqual(0);
    });
  }
});
