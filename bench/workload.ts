// What every workload module returns to bench/run.ts: its table (printed by table.ts) and the
// raw figures that go into the run's JSON result file.
import type { Table } from "./table.js";

export interface WorkloadResult {
  readonly id: "W1" | "W2" | "W2S" | "W3" | "W4" | "W5" | "W6" | "W6F" | "W7" | "W8" | "W9" | "W10";
  readonly table: Table;
  readonly data: unknown;
}

/**
 * The node flags of a benchmark worker process: tsx for the benchmark's own TypeScript, and
 * Keelson loaded from the built package in dist/ (keelson-from-dist.mjs).
 */
export const KEELSON_FROM_DIST: readonly string[] = ["--import", "tsx", "--import", "./bench/keelson-from-dist.mjs"];
