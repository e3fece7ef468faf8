// What every workload module returns to bench/run.ts: its table (printed by table.ts) and the
// raw figures that go into the run's JSON result file.
import type { Table } from "./table.js";

export interface WorkloadResult {
  readonly id: "W1" | "W2" | "W2S" | "W3" | "W4" | "W5";
  readonly table: Table;
  readonly data: unknown;
}
