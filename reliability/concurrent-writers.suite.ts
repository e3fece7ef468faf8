// concurrent-writers: three writer processes (fixtures/concurrent-writers-child.ts) contend for
// one session per trial. While one holds it mid-turn, the other two processes and this one are
// refused with StoreError `locked` naming the holder's pid and change nothing; after the holder
// finishes nothing it wrote is lost; then the other two race to open at the same moment (resume,
// resume over a killed holder's stale lock, or create one id) and exactly one wins. Trial logic:
// concurrent-writers-trial.ts. The processes serve every trial (roles rotate), so the suite pays
// for three child start-ups plus one per killed holder that a later trial needs.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { mulberry32 } from "../src/emulator/index.js";
import { type RaceVariant, writersTrial } from "./concurrent-writers-trial.js";
import { compiledScript } from "./fixtures/compiled-script.js";
import { WriterChild } from "./fixtures/writer-child.js";
import { OutcomeCounter, type ReliabilitySuite, type SuiteResult } from "./suite.js";

const childScript = fileURLToPath(new URL("./fixtures/concurrent-writers-child.ts", import.meta.url));
const VARIANTS: readonly RaceVariant[] = ["resume", "stale", "create"];

async function stop(writer: WriterChild): Promise<void> {
  writer.endInput();
  const exit = await Promise.race([
    writer.exited,
    new Promise<undefined>((resolve) => setTimeout(resolve, 5_000, undefined)),
  ]);
  if (exit === undefined) await writer.kill(); // did not leave on stdin close: do not hang the suite
}

const suite: ReliabilitySuite = {
  name: "concurrent-writers",
  checks:
    "a held session refuses other writers (typed 'locked', no change); nothing lost; racing opens: exactly one wins",
  fullTrials: 50,
  fastTrials: 5,
  async run({ trials, seed, log }): Promise<SuiteResult> {
    const started = performance.now();
    const counts = new OutcomeCounter();
    const failures: string[] = [];
    const random = mulberry32(seed);
    const compiled = await compiledScript(childScript);
    const spawnWriter = (): WriterChild => new WriterChild(compiled, []);
    // A killed holder's slot is refilled at once, unless no trial is left to need it.
    const pool: (WriterChild | undefined)[] = [spawnWriter(), spawnWriter(), spawnWriter()];
    const writerAt = (slot: number): WriterChild => {
      const writer = pool[slot] ?? spawnWriter();
      pool[slot] = writer;
      return writer;
    };
    try {
      for (let trial = 0; trial < trials; trial++) {
        const variant = VARIANTS[trial % VARIANTS.length]!;
        const firstRacer = random() < 0.5 ? 0 : 1;
        const slot = trial % pool.length;
        const writers = {
          holder: writerAt(slot),
          racers: [writerAt((slot + 1) % pool.length), writerAt((slot + 2) % pool.length)] as const,
          holderKilled: () => {
            pool[slot] = trial + 1 < trials ? spawnWriter() : undefined; // starts while this trial goes on
          },
        };
        const root = await mkdtemp(join(tmpdir(), "keelson-writers-"));
        try {
          for (const kind of await writersTrial(root, trial, variant, writers, firstRacer)) counts.add(kind);
        } catch (error) {
          failures.push(
            `trial ${trial} (seed ${seed}, ${variant}, first racer ${firstRacer}): ${error instanceof Error ? error.message : String(error)}`,
          );
          // The writers may be stuck mid-protocol: start over with fresh ones.
          await Promise.all(pool.map((writer) => writer?.kill()));
          pool.fill(undefined);
        } finally {
          await rm(root, { recursive: true, force: true });
        }
        if ((trial + 1) % 10 === 0 || trial + 1 === trials)
          log?.(`${trial + 1}/${trials} trials, ${trial + 1 - failures.length} passed`);
      }
    } finally {
      await Promise.all(pool.map((writer) => (writer === undefined ? undefined : stop(writer))));
    }
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
