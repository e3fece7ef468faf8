// tools: the built-in workspace tools (read, ls, glob, grep, write, edit) against a hostile
// workspace (tools-workspace.ts), driven through executeToolCall in a child process
// (tools-child.ts) whose every call is bounded and watched (tools-runner.ts). A trial is one
// call: first the catalogue (tools-cases.ts) — FIFOs, a listening socket, /dev/zero, /dev/null,
// directories, binary and Latin-1 files, a sparse 2 GiB file, hard links and symlinks to outside
// files, catastrophic regexes and globs — then swap races (tools-race.ts): read, write and edit
// while a worker swaps the path (or its directory) between inside and outside targets (symlinks,
// then a hard link).
// Every call must answer within CALL_TIMEOUT_MS without needing the timeout, keep the event
// loop ticking, stay within the memory and output bounds, never show outside content and never
// change the outside tree (tools-checks.ts); each case adds what must hold of its files.
import { mulberry32 } from "../src/emulator/index.js";
import { OutcomeCounter, type ReliabilitySuite, type SuiteResult } from "./suite.js";
import { TOOL_CASES, type ToolCase } from "./tools-cases.js";
import { checkAnswered, checkExpected, checkNothingEscaped } from "./tools-checks.js";
import type { ToolAnswer } from "./tools-protocol.js";
import { type RaceMode, raceCall, Swapper } from "./tools-race.js";
import { type CallResult, ToolRunner } from "./tools-runner.js";
import { buildHostileWorkspace, type HostileWorkspace, PATHS } from "./tools-workspace.js";

/** Swap races at the full count (symlink swaps, then hard-link swaps); the fast count runs a few. */
const FULL_RACES = { symlink: 400, hardlink: 100 };
const FAST_RACES = { symlink: 24, hardlink: 6 };
const SYMLINK_SHARE = FULL_RACES.symlink / (FULL_RACES.symlink + FULL_RACES.hardlink);

const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** The measurements kept for the summary: worst case over every call. */
class Worst {
  loopGapMs = 0;
  rssGrowthMb = 0;
  callMs = 0;
  add(answer: ToolAnswer): void {
    this.loopGapMs = Math.max(this.loopGapMs, answer.maxGapMs);
    this.rssGrowthMb = Math.max(this.rssGrowthMb, answer.rssGrowthMb);
    this.callMs = Math.max(this.callMs, answer.elapsedMs);
  }
}

interface Call {
  readonly tool: string;
  readonly args: Readonly<Record<string, unknown>>;
  readonly grepDeadlineMs?: number;
  readonly expect: ToolCase["expect"];
  readonly check?: ToolCase["check"];
}

/** Runs one call and every check on it; returns the answer, throws a Violation. */
async function checkedCall(runner: ToolRunner, ws: HostileWorkspace, call: Call, worst: Worst): Promise<ToolAnswer> {
  // Taken per call, so a trial that changed the outside tree is the only one blamed for it.
  const outside = await ws.snapshotOutside();
  let result: CallResult;
  try {
    result = await runner.call(call.tool, call.args, call.grepDeadlineMs);
  } finally {
    // A reader a broken tool left blocked on the FIFO holds a thread-pool thread: free it.
    if (JSON.stringify(call.args).includes(PATHS.fifo)) await ws.unblockFifo();
  }
  if (result.kind === "answer") worst.add(result.answer);
  const answer = checkAnswered(result);
  checkExpected(answer, call.expect);
  await checkNothingEscaped(answer, ws, outside);
  await call.check?.(answer, ws);
  return answer;
}

const outcomeOf = (answer: ToolAnswer): string =>
  !answer.isError ? "answered" : answer.error === "threw" ? "threw" : "refused";

const suite: ReliabilitySuite = {
  name: "tools",
  checks:
    "built-in tools in a hostile workspace: special files, encodings, 2 GiB files, links, swap races, catastrophic patterns — bounded, nothing escapes or corrupts",
  fullTrials: TOOL_CASES.length + FULL_RACES.symlink + FULL_RACES.hardlink,
  fastTrials: TOOL_CASES.length + FAST_RACES.symlink + FAST_RACES.hardlink,
  async run({ trials, seed, log }): Promise<SuiteResult> {
    const started = performance.now();
    const counts = new OutcomeCounter();
    const failures: string[] = [];
    const worst = new Worst();
    const random = mulberry32(seed ^ 0x70015);
    const ws = await buildHostileWorkspace(random);
    const runner = new ToolRunner(ws.root, ws.allow);
    const failed = new Set<number>();
    const fail = (trial: number, what: string, error: unknown): void => {
      failed.add(trial);
      failures.push(`trial ${trial} (seed ${seed}) ${what}: ${describe(error)}`);
    };
    try {
      const cases = TOOL_CASES.slice(0, trials);
      for (const [trial, c] of cases.entries()) {
        try {
          await c.before?.(ws);
          const answer = await checkedCall(runner, ws, c, worst);
          counts.add(`${c.group} ${outcomeOf(answer)}`);
        } catch (error) {
          counts.add(`${c.group} failed`);
          fail(trial, c.name, error);
        }
      }
      log?.(`${cases.length} hostile calls checked, ${failures.length} failed`);
      const races = Math.max(0, trials - cases.length);
      const symlinkRaces = Math.round(races * SYMLINK_SHARE);
      let swapper: { mode: RaceMode; swapper: Swapper } | undefined;
      const stopSwapper = async (): Promise<void> => {
        if (swapper === undefined) return;
        const { mode } = swapper;
        const stopping = swapper.swapper;
        swapper = undefined;
        try {
          counts.add(`race ${mode} swaps`, await stopping.stop());
        } catch (error) {
          fail(trials - 1, `the ${mode} swapper (its races prove nothing)`, error);
        }
      };
      try {
        for (let i = 0; i < races; i++) {
          const trial = cases.length + i;
          const call = raceCall(i, symlinkRaces, random);
          if (swapper?.mode !== call.mode) {
            await stopSwapper();
            swapper = { mode: call.mode, swapper: await Swapper.start(ws, call.mode) };
          }
          const swapsBefore = swapper.swapper.swaps;
          try {
            const answer = await checkedCall(runner, ws, { ...call, expect: "any" }, worst);
            counts.add(`race ${call.mode} ${call.tool} ${answer.isError ? "refused" : "done"}`);
            // A call no swap overlapped raced nothing (counted, so a vacuous run shows).
            if (swapper.swapper.swaps === swapsBefore) counts.add(`race ${call.mode} without a swap`);
          } catch (error) {
            counts.add(`race ${call.mode} failed`);
            fail(trial, `${call.tool} during a ${call.mode} swap`, error);
          }
          if ((i + 1) % 100 === 0) log?.(`${i + 1}/${races} swap races checked`);
        }
      } finally {
        await stopSwapper();
      }
    } finally {
      await runner.close();
      await ws.close();
    }
    counts.add("children started", runner.started);
    counts.add("worst event-loop gap (ms)", Math.round(worst.loopGapMs));
    counts.add("worst memory growth (MB)", Math.round(worst.rssGrowthMb));
    counts.add("slowest call (ms)", Math.round(worst.callMs));
    return {
      suite: suite.name,
      trials,
      passed: trials - failed.size,
      failures,
      counts: counts.toJSON(),
      ms: performance.now() - started,
    };
  },
};

export default suite;
