// W4 reconstruction: reconstructRequests over logs of 500, 1k and 2k steps, next to a raw
// JSON.parse of the same log's JSONL text. Two figures per size:
//   - reconstructRequests — every step's request indexed (header fold + history boundary), the
//     requests' messages materialized lazily: this must be linear in the log;
//   - + materialize all — reading every step's `request.messages`: the output itself grows as
//     steps² (each request carries the whole history so far), so per materialized message.
// The linearity check prints µs/step at 2k ÷ µs/step at 500 (linear ⇒ about 1). Every timed run
// does the same amount of work — 2000 steps' worth: the 500-step log 4 times back to back, the
// 1k-step log twice — so all sizes see the same GC regime (a lone 500-step run fits in V8's young
// generation and never scavenges, which made it look 2–4× cheaper per step than the others).
import { reconstructRequests } from "../src/reconstruct/index.js";
import { buildLog } from "./logs.js";
import { bestOf, rawParse, type Timing } from "./measure.js";
import { num, ratio } from "./table.js";
import type { WorkloadResult } from "./workload.js";

const STEPS = [500, 1000, 2000];
/** Best of this many: the runs are milliseconds long, so a busy box's noise needs many tries. */
const REPEATS = 15;

interface Row {
  readonly steps: number;
  readonly events: number;
  readonly raw: Timing;
  readonly reconstruct: Timing;
  readonly materialize: Timing;
  readonly materializedMessages: number;
}

export async function runW4(): Promise<WorkloadResult> {
  const logs = STEPS.map((steps) => {
    const s = buildLog({ steps }, `w4-${steps}`);
    return { steps, events: s.events, text: `${s.events.map((e) => JSON.stringify(e)).join("\n")}\n` };
  });
  // Warm up every path on the largest log first, so the 500-step figure is not a cold JIT's.
  const largest = logs.at(-1)!;
  for (let i = 0; i < 3; i++) {
    rawParse(largest.text);
    for (const r of reconstructRequests(largest.events)) void r.request.messages.length;
  }
  const rows: Row[] = [];
  const maxSteps = Math.max(...STEPS);
  for (const { steps, events, text } of logs) {
    const found = reconstructRequests(events).length;
    if (found !== steps) throw new Error(`reconstructed ${found} requests from a ${steps}-step log`);
    const batch = maxSteps / steps;
    /** Best of REPEATS timed runs of `batch` calls back to back, per call. */
    const perCall = async <T>(fn: () => T): Promise<Timing & { value: T }> => {
      const t = await bestOf(() => {
        let value!: T;
        for (let i = 0; i < batch; i++) value = fn();
        return value;
      }, REPEATS);
      return { ms: t.ms / batch, cpuMs: t.cpuMs / batch, value: t.value };
    };
    const raw = await perCall(() => rawParse(text));
    const recon = await perCall(() => reconstructRequests(events).length);
    const materialize = await perCall(() => {
      let n = 0;
      for (const r of reconstructRequests(events)) n += r.request.messages.length;
      return n;
    });
    rows.push({
      steps,
      events: events.length,
      raw,
      reconstruct: recon,
      materialize,
      materializedMessages: materialize.value,
    });
  }
  const first = rows[0]!;
  const last = rows.at(-1)!;
  const perStep = (r: Row): number => (r.reconstruct.cpuMs / r.steps) * 1000;
  const perStepWall = (r: Row): number => (r.reconstruct.ms / r.steps) * 1000;
  const perMessage = (r: Row): number => (r.materialize.cpuMs / r.materializedMessages) * 1e6;
  return {
    id: "W4",
    table: {
      title: "W4 reconstruction — reconstructRequests over the log vs raw JSON.parse of its JSONL text",
      columns: [
        "steps",
        "events",
        "raw parse CPU ms",
        "reconstruct CPU ms",
        "× raw",
        "µs/step",
        "wall ms",
        "× raw",
        "+ materialize all CPU ms",
        "ns/message",
      ],
      rows: rows.map((r) => [
        String(r.steps),
        String(r.events),
        r.raw.cpuMs,
        r.reconstruct.cpuMs,
        ratio(r.reconstruct.cpuMs, r.raw.cpuMs),
        perStep(r),
        r.reconstruct.ms,
        ratio(r.reconstruct.ms, r.raw.ms),
        r.materialize.cpuMs,
        perMessage(r),
      ]),
      notes: [
        `linearity: CPU µs/step at ${last.steps} steps ÷ at ${first.steps} steps = ${num(perStep(last) / perStep(first))} (wall: ${num(perStepWall(last) / perStepWall(first))}; linear ⇒ ≈ 1)`,
        `materializing every request reads ${last.materializedMessages} messages at ${last.steps} steps (quadratic output); ns/message ${last.steps} ÷ ${first.steps} = ${num(perMessage(last) / perMessage(first))}`,
        `per call; each timed run makes ${Math.max(...STEPS)} steps' worth of calls back to back (same GC regime for every size); best of ${REPEATS}, after a warm-up pass over the largest log`,
      ],
    },
    data: rows,
  };
}
