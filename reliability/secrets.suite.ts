// secrets: with fake provider keys in the environment (CLI) or passed to the adapters (library),
// sessions run against the emulator on 127.0.0.1 — tool rounds, resume, a retried 500, a 401, a
// refused connection, bad inputs — and nothing the harness writes or prints may contain a key or
// a distinctive piece of one (secrets-keys.ts): session files and their header line and
// request/header events, `run`/`resume --json` stdout, stderr error lines (with --debug stacks),
// `show`/`requests`/`cache`/`verify`/`sessions` output, thrown and reported errors down their
// `cause` chains, reconstructed requests, the cache report and the emulator's request records.
// Trial t uses the t-th provider in turn (Anthropic, OpenAI, DeepSeek) with fresh keys.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { mulberry32, startEmulator } from "../src/emulator/index.js";
import { cliScenario } from "./secrets-cli.js";
import { SecretsModel } from "./secrets-emulator.js";
import { fakeKeys, type KeyProvider, LeakScanner } from "./secrets-keys.js";
import { libraryScenario } from "./secrets-library.js";
import { OutcomeCounter, type ReliabilitySuite, type SuiteResult } from "./suite.js";
import { runTrials } from "./trial-pool.js";
import { check } from "./violation.js";

const PROVIDERS: readonly KeyProvider[] = ["anthropic", "openai", "deepseek"];
const NOTES = "Release notes: the harness logs every request.\n";
/** Trials in flight: each is mostly one CLI process at a time, so two keep both cores busy. */
const CONCURRENCY = 2;

const trialSeed = (seed: number, trial: number): number => (seed ^ Math.imul(trial + 1, 0x9e3779b1)) >>> 0;

async function tempDirWithNotes(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  await writeFile(join(dir, "notes.txt"), NOTES);
  return dir;
}

async function secretsTrial(trial: number, seed: number, counts: OutcomeCounter): Promise<void> {
  const keys = fakeKeys(mulberry32(seed));
  const provider = PROVIDERS[trial % PROVIDERS.length]!;
  const key = keys.find((k) => k.provider === provider)!;
  const scanner = new LeakScanner(keys);
  check(
    scanner.scan([{ where: "self-test", text: `…${key.key.slice(14, 28)}…` }]).length === 1,
    "the scanner misses a 14-character piece of a key",
  );
  const emulator = await startEmulator({ model: new SecretsModel() });
  const dirs = await Promise.all([
    tempDirWithNotes("keelson-secrets-home-"),
    tempDirWithNotes("keelson-secrets-ws-"),
    mkdtemp(join(tmpdir(), "keelson-secrets-store-")),
  ]);
  const [home, workspace, root] = dirs;
  try {
    const cli = await cliScenario({ variant: trial, home, emulator, keys, provider });
    const library = await libraryScenario({ root, workspace, emulator, key });
    const unauthenticated = emulator.requests.filter((r) => r.auth === "none").length;
    check(
      emulator.requests.length > 0 && unauthenticated === 0,
      `${unauthenticated} of ${emulator.requests.length} emulator requests carried no key`,
    );
    const exposures = [...cli.exposures, ...library.exposures];
    const leaks = scanner.scan(exposures);
    check(
      leaks.length === 0,
      `key material leaked: ${leaks.map((l) => `${l.provider} ${l.form} in ${l.where}`).join("; ")}`,
    );
    counts.add(`provider:${provider}`);
    counts.add("cli-commands", cli.commands);
    counts.add("files", cli.files);
    counts.add("errors", library.errors);
    counts.add("requests", emulator.requests.length);
    counts.add("scanned-kB", Math.round(exposures.reduce((n, e) => n + e.text.length, 0) / 1024));
  } finally {
    await emulator.close();
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  }
}

const suite: ReliabilitySuite = {
  name: "secrets",
  checks: "fake keys never reach logs, headers, --json/stderr/show/requests/cache output or error cause chains",
  fullTrials: 20,
  fastTrials: 3,
  async run({ trials, seed, log }): Promise<SuiteResult> {
    const started = performance.now();
    const counts = new OutcomeCounter();
    let done = 0;
    const outcomes = await runTrials(trials, CONCURRENCY, async (trial) => {
      const s = trialSeed(seed, trial);
      let failure: string | undefined;
      try {
        await secretsTrial(trial, s, counts);
      } catch (error) {
        failure = `trial ${trial} (seed ${s}, ${PROVIDERS[trial % PROVIDERS.length]}): ${error instanceof Error ? error.message : String(error)}`;
      }
      if (++done % 5 === 0 || done === trials) log?.(`${done}/${trials} trials checked`);
      return failure;
    });
    const failures = outcomes.filter((f): f is string => f !== undefined);
    return {
      suite: suite.name,
      trials,
      passed: trials - failures.length,
      failures,
      counts: counts.toJSON(),
      ms: performance.now() - started,
    };
  },
};

export default suite;
