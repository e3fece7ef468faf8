// The approvals suite's kill trials: one child (fixtures/approvals-child.ts) brings a batch of
// approval sessions to their kill points — asked, paused, decided, in-tool, done — and is
// SIGKILLed; then each session is resumed in this process (the writable load crash-repairs it),
// every call still pending is decided, the turn completes, and the final log is checked against
// the effects file (approvals-checks.ts).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { mulberry32 } from "../src/emulator/index.js";
import { resumeAgent } from "../src/loop/index.js";
import { JsonlSessionStore } from "../src/store/index.js";
import { checkApprovalLog } from "./approvals-checks.js";
import { approvalsAgentOptions, approvalsScript, approvalsTools, effectCounts } from "./fixtures/approvals-session.js";
import { compiledScript } from "./fixtures/compiled-script.js";
import { WriterChild } from "./fixtures/writer-child.js";
import type { TrialOutcome } from "./suite.js";
import { check } from "./violation.js";

const childScript = fileURLToPath(new URL("./fixtures/approvals-child.ts", import.meta.url));

export const KILL_MODES = ["asked", "paused", "decided", "in-tool", "done"] as const;
export type KillMode = (typeof KILL_MODES)[number];

export interface KillTrial {
  readonly index: number;
  readonly seed: number;
  readonly mode: KillMode;
}

const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** Runs a batch of kill trials in one child; one outcome per trial. */
export async function runKillBatch(trials: readonly KillTrial[]): Promise<TrialOutcome[]> {
  const roots = await Promise.all(trials.map(() => mkdtemp(join(tmpdir(), "keelson-approvals-"))));
  const effectsDir = await mkdtemp(join(tmpdir(), "keelson-approvals-effects-"));
  const effectsFile = join(effectsDir, "effects");
  try {
    const child = new WriterChild(
      await compiledScript(childScript),
      trials.map((t, i) => `${t.seed}:${roots[i]}:${t.mode}`),
      { ...process.env, KEELSON_APPROVALS_EFFECTS: effectsFile },
    );
    try {
      await child.waitFor((line) => line === "ready", '"ready"');
      const reached = new Set<number>();
      while (reached.size < trials.length) {
        const line = await child.waitFor(
          () => true,
          `every session at its kill point (${reached.size} of ${trials.length})`,
        );
        const at = /^at (\d+)$/.exec(line);
        if (at !== null) reached.add(Number(at[1]));
      }
      const exit = await child.kill();
      check(exit.signal === "SIGKILL", `the approvals child exited on its own; stderr:\n${child.stderr}`);
    } finally {
      await child.kill();
    }
    const outcomes: TrialOutcome[] = [];
    for (const [i, t] of trials.entries()) {
      try {
        outcomes.push({ kinds: [`killed-${t.mode}`, ...(await resumeAndCheck(t, roots[i]!, effectsFile))] });
      } catch (error) {
        outcomes.push({ failure: `trial ${t.index} (seed ${t.seed}, killed ${t.mode}): ${describe(error)}` });
      }
    }
    return outcomes;
  } catch (error) {
    return trials.map((t) => ({ failure: `trial ${t.index} (seed ${t.seed}, ${t.mode}): ${describe(error)}` }));
  } finally {
    await Promise.all([...roots, effectsDir].map((dir) => rm(dir, { recursive: true, force: true })));
  }
}

/** Resumes the killed session, decides what is still pending (seeded), completes it, checks the log. */
async function resumeAndCheck(trial: KillTrial, root: string, effectsFile: string): Promise<string[]> {
  const script = approvalsScript(trial.seed);
  const random = mulberry32(trial.seed ^ 0x5eed);
  const store = new JsonlSessionStore({ root });
  try {
    const agent = await resumeAgent(
      store,
      script.sessionId,
      approvalsAgentOptions(script, approvalsTools(effectsFile)),
    );
    const kinds: string[] = [];
    for (let pending = agent.pendingApprovals(); pending.length > 0; pending = agent.pendingApprovals()) {
      const approve = random() < 0.75;
      const outcome = await agent.decide(pending[0]!.callId, { approve, by: "resumed" });
      check(
        outcome.reason.kind === "completed" || outcome.reason.kind === "awaiting-approval",
        `the continued turn ended ${outcome.reason.kind}`,
      );
      kinds.push("decided-after-restart");
    }
    await agent.dispose();
    const { session } = await store.load(script.sessionId, { readOnly: true });
    return [...kinds, ...checkApprovalLog(session.events, script.sessionId, effectCounts(effectsFile))];
  } finally {
    await store.close();
  }
}
