// The hostile-logs reliability suite: random valid logs, written through the real
// JsonlSessionStore, then corrupted (cuts at any byte, flipped bytes, invalid UTF-8, duplicated /
// missing / reordered / forged seqs, wrong types, `__proto__`-style keys, MiB strings, deep
// nesting, forged header events and session headers, out-of-grammar types, empty, header-only
// and foreign files) and loaded again. Each case must be exactly one of identical / repaired /
// prefix / rewritten / rejected as hostile-logs-oracle.ts defines them, with no untyped error,
// no polluted prototype and no silently different load. Counts are kind × outcome.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PrototypeCanary } from "./hostile-logs-canaries.js";
import { CORRUPTION_KINDS, CORRUPTIONS_PER_ORIGINAL, type CorruptionSpec, sampleGroups } from "./hostile-logs-cases.js";
import { corrupt } from "./hostile-logs-corruptions.js";
import {
  describeError as describe,
  judge,
  type Outcome,
  type TrialFiles,
  type Verdict,
} from "./hostile-logs-oracle.js";
import { originalsStore, storeOriginal } from "./hostile-logs-originals.js";
import type { OriginalLog } from "./hostile-logs-reference.js";
import { OutcomeCounter, type ReliabilitySuite, type SuiteOptions, type SuiteResult } from "./suite.js";

const COLUMNS: readonly (Outcome | "failed")[] = ["identical", "repaired", "prefix", "rewritten", "rejected", "failed"];

/** Outcomes by kind: the flat counts for SuiteResult and a table for the log. */
class Tally {
  readonly counts = new OutcomeCounter();
  readonly #rows = new Map<string, Map<string, number>>();
  #longestMessage = 0;

  add(kind: string, verdict: Verdict, failed: boolean): void {
    const outcome = failed ? "failed" : (verdict.outcome ?? "failed");
    this.counts.add(`${kind}/${outcome}${verdict.stage === "reconstruct" ? "@reconstruct" : ""}`);
    this.counts.add(outcome);
    const row = this.#rows.get(kind) ?? new Map<string, number>();
    row.set(outcome, (row.get(outcome) ?? 0) + 1);
    this.#rows.set(kind, row);
    this.#longestMessage = Math.max(this.#longestMessage, verdict.errorChars ?? 0);
  }

  table(): string[] {
    const cell = (s: string | number): string => String(s).padStart(10);
    const lines = [`${"kind".padEnd(22)}${COLUMNS.map(cell).join("")}`];
    for (const kind of CORRUPTION_KINDS) {
      const row = this.#rows.get(kind);
      if (row !== undefined) lines.push(`${kind.padEnd(22)}${COLUMNS.map((o) => cell(row.get(o) ?? 0)).join("")}`);
    }
    return [...lines, `longest rejection message: ${this.#longestMessage} chars`];
  }

  result(): Readonly<Record<string, number>> {
    this.counts.add("longest rejection message (chars)", this.#longestMessage);
    return this.counts.toJSON();
  }
}

/** One trial: corrupt the original's bytes, judge the load, and collect every problem. */
async function trial(
  files: TrialFiles,
  original: OriginalLog,
  spec: CorruptionSpec,
): Promise<{ verdict: Verdict; variant: string; problems: string[] }> {
  const canary = new PrototypeCanary();
  let variant = "(not corrupted)";
  let verdict: Verdict;
  try {
    const corrupted = corrupt(original.bytes, spec);
    variant = corrupted.variant;
    verdict = await judge(files, original, corrupted.bytes);
  } catch (e) {
    verdict = { outcome: undefined, failures: [`the trial crashed: ${describe(e)}`] };
  }
  const problems = [...verdict.failures, ...canary.changes().map((c) => `prototype pollution: ${c}`)];
  if (verdict.outcome === undefined && problems.length === 0) problems.push("no outcome");
  return { verdict, variant, problems };
}

async function run({ trials, seed, log }: SuiteOptions): Promise<SuiteResult> {
  const started = performance.now();
  const root = await mkdtemp(join(tmpdir(), "keelson-hostile-logs-"));
  const groups = sampleGroups(seed, trials);
  const tally = new Tally();
  const failures: string[] = [];
  let passed = 0;
  const stray: unknown[] = [];
  const onStray = (reason: unknown): void => {
    stray.push(reason);
  };
  process.on("unhandledRejection", onStray);
  const creator = originalsStore(root);
  try {
    for (let g = 0; g * CORRUPTIONS_PER_ORIGINAL < trials; g++) {
      const group = groups[g]!;
      const id = `hl-${g}`;
      const files: TrialFiles = { root, id, file: join(root, `${id}.jsonl`), lock: join(root, `${id}.lock`) };
      const original = await storeOriginal(creator, group.original, files);
      for (let m = 0; m < CORRUPTIONS_PER_ORIGINAL && g * CORRUPTIONS_PER_ORIGINAL + m < trials; m++) {
        const i = g * CORRUPTIONS_PER_ORIGINAL + m;
        const spec = group.corruptions[m]!;
        const { verdict, variant, problems } = await trial(files, original, spec);
        problems.push(...stray.splice(0).map((r) => `unhandled rejection: ${describe(r)}`));
        tally.add(spec.kind, verdict, problems.length > 0);
        if (problems.length === 0) passed++;
        else
          failures.push(
            `trial ${i} (seed ${seed}; fc.sample(hostileGroupArb, { seed: ${seed}, path: "${g}", numRuns: 1 })[0].corruptions[${m}]) ${spec.kind} — ${variant}: ${problems.join("; ")}`,
          );
        if ((i + 1) % 1000 === 0) log?.(`${i + 1}/${trials} trials, ${failures.length} failed`);
      }
      await rm(files.file, { force: true });
    }
  } finally {
    process.off("unhandledRejection", onStray);
    await creator.close();
    await rm(root, { recursive: true, force: true });
  }
  for (const line of tally.table()) log?.(line);
  return { suite: suite.name, trials, passed, failures, counts: tally.result(), ms: performance.now() - started };
}

const suite: ReliabilitySuite = {
  name: "hostile-logs",
  checks:
    "corrupted JSONL logs load identically, repaired with a notice, as a clean prefix or a faithful rewrite, or are refused with a typed error; never polluted",
  fullTrials: 10_000,
  fastTrials: 500,
  run,
};

export default suite;
