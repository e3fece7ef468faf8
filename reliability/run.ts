// `npm run reliability`: runs every suite (reliability/*.suite.ts, each default-exporting a
// ReliabilitySuite) with its full trial count and prints one summary table. Options:
//   --fast            use each suite's fast count (what npm test runs)
//   --only NAME[,..]  run only the named suites
//   --seed N          base seed (default: 20261202); failures print the seed to replay
// Exit code 1 when any trial failed. Writes bench/results/reliability-<date>.json.
import { mkdir, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import freshBuild from "../test/support/fresh-build.js";
import type { ReliabilitySuite, SuiteResult } from "./suite.js";

const args = process.argv.slice(2);
const flag = (name: string): string | undefined => {
  const i = args.indexOf(name);
  return i === -1 ? undefined : args[i + 1];
};
const fast = args.includes("--fast");
const only = flag("--only")?.split(",");
const seed = Number(flag("--seed") ?? 20261202);

// The suites' child processes and the fleet's workers run the compiled library in dist/.
freshBuild();

const here = import.meta.dirname;
const files = (await readdir(here)).filter((f) => f.endsWith(".suite.ts")).sort();
const suites: ReliabilitySuite[] = [];
for (const f of files) {
  const mod = (await import(pathToFileURL(join(here, f)).href)) as { default: ReliabilitySuite };
  if (only === undefined || only.includes(mod.default.name)) suites.push(mod.default);
}

const results: SuiteResult[] = [];
for (const suite of suites) {
  const trials = fast ? suite.fastTrials : suite.fullTrials;
  console.log(`\n▶ ${suite.name}: ${trials} trials — ${suite.checks}`);
  const result = await suite.run({ trials, seed, log: (line) => console.log(`  ${line}`) });
  results.push(result);
  for (const f of result.failures.slice(0, 20)) console.log(`  ✗ ${f}`);
  if (result.failures.length > 20) console.log(`  … ${result.failures.length - 20} more failures`);
}

const countsOf = (r: SuiteResult): string =>
  Object.entries(r.counts)
    .map(([k, v]) => `${k} ${v}`)
    .join(", ");
console.log(`\nKeelson reliability (Node ${process.version}, seed ${seed}${fast ? ", fast counts" : ""})`);
console.log(
  "suite".padEnd(22),
  "trials".padStart(7),
  "passed".padStart(7),
  "failed".padStart(7),
  "s".padStart(7),
  "  outcomes",
);
for (const r of results) {
  console.log(
    r.suite.padEnd(22),
    String(r.trials).padStart(7),
    String(r.passed).padStart(7),
    String(r.trials - r.passed).padStart(7),
    (r.ms / 1000).toFixed(1).padStart(7),
    ` ${countsOf(r)}`,
  );
}
const resultsDir = join(here, "..", "bench", "results");
await mkdir(resultsDir, { recursive: true });
const out = join(resultsDir, `reliability-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
await writeFile(
  out,
  JSON.stringify({ node: process.version, date: new Date().toISOString(), seed, fast, results }, null, 2),
);
console.log(`\nresults: ${out}`);
process.exitCode = results.some((r) => r.passed !== r.trials) ? 1 : 0;
