// The reliability suites' shared contract. Each suite attacks one property (crash durability,
// provider faults, cancellation, hostile logs, concurrent writers, secrets, built-in tools) with a configurable
// number of trials from a seed. `npm run reliability` runs every suite with its full count and
// prints a summary table (reliability/run.ts); `npm test` runs each with its fast count
// (test/reliability/*.test.ts), so the same code is exercised in both.

export interface SuiteOptions {
  /** How many trials (cases, runs) to attempt. */
  readonly trials: number;
  /** Seed for every random choice, so a failing trial can be replayed. */
  readonly seed: number;
  /** Progress lines (the runner prints them; tests drop them). */
  readonly log?: (line: string) => void;
}

export interface SuiteResult {
  readonly suite: string;
  readonly trials: number;
  /** Trials in which every checked property held. */
  readonly passed: number;
  /** One line per failed trial: trial index, seed and what broke (empty when all passed). */
  readonly failures: readonly string[];
  /** Suite-specific counts for the summary table (e.g. outcomes by kind). */
  readonly counts: Readonly<Record<string, number>>;
  readonly ms: number;
}

export interface ReliabilitySuite {
  readonly name: string;
  /** What the suite checks, one line for the summary table. */
  readonly checks: string;
  readonly fullTrials: number;
  readonly fastTrials: number;
  run(options: SuiteOptions): Promise<SuiteResult>;
}

/** A trial's outcome: the kinds of what happened (counted), or why it failed. */
export type TrialOutcome = { readonly kinds: readonly string[] } | { readonly failure: string };

/** The result of `outcomes` (one per trial), the run having started at `started` (performance.now()). */
export function resultOf(suite: string, outcomes: readonly TrialOutcome[], started: number): SuiteResult {
  const counts = new OutcomeCounter();
  const failures: string[] = [];
  for (const outcome of outcomes) {
    if ("failure" in outcome) failures.push(outcome.failure);
    else for (const kind of outcome.kinds) counts.add(kind);
  }
  return {
    suite,
    trials: outcomes.length,
    passed: outcomes.length - failures.length,
    failures,
    counts: counts.toJSON(),
    ms: performance.now() - started,
  };
}

/** Counts outcomes by kind for `SuiteResult.counts`. */
export class OutcomeCounter {
  readonly #counts: Record<string, number> = {};
  add(kind: string, n = 1): void {
    this.#counts[kind] = (this.#counts[kind] ?? 0) + n;
  }
  toJSON(): Readonly<Record<string, number>> {
    return { ...this.#counts };
  }
}
