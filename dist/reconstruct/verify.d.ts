import { type LogReport } from "./types.js";
/**
 * Checks: seq equals index (contiguity), every envelope and payload, every event inside a turn,
 * turn/step numbering and nesting, one `turn/end` per `turn/start` (an open final turn is
 * reported as `open-turn`), tool results paired with calls in their step, replace provenance,
 * header fold totality (no delta before a snapshot, every delta applies), and every step having
 * a header at dispatch. Structural checking stops at the first structural error.
 */
export declare function verifyLog(events: readonly unknown[]): LogReport;
