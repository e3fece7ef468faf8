// The crash suite's kill: one child process (fixtures/crash-child.ts) runs a batch of seeded
// sessions side by side, each in its own temp root. Each session has a kill window, reached
// (the parent waits on the child's lines, never on time) at one of two kinds of point:
//   - a model call: the parent grants the session a random number of model calls; the window
//     opens when its last granted call runs (or its first waits), and the kill lands while that
//     call's reply, tools, flushes and turn end are in flight (after a random short delay);
//   - a tool: the session's n-th side-effect tool (fixtures/crash-session.ts) prints that it
//     started and never returns, so the kill lands while a tool with side effects is executing.
// Once every session is in its window, the parent SIGKILLs the child. Returns, per session, the
// longest prefix the child claimed durable, the steps it reported ended before its window
// opened, and the tool it was executing (tool windows).
import { fileURLToPath } from "node:url";
import { compiledScript } from "./fixtures/compiled-script.js";
import { WriterChild } from "./fixtures/writer-child.js";
import { check } from "./violation.js";

const childScript = fileURLToPath(new URL("./fixtures/crash-child.ts", import.meta.url));

export interface BatchSession {
  readonly seed: number;
  readonly sessionId: string;
  readonly root: string;
  /** Model calls the session may make before the kill (0: it blocks at its first). */
  readonly calls: number;
  /** Kill inside the session's `block`-th side-effect tool instead (every model call granted). */
  readonly block?: number;
}

export interface DurableClaim {
  /** Events after the header line that the child said were fsynced. */
  readonly events: number;
  /** sha256 of the header line plus those event lines, as the child encoded them. */
  readonly sha: string;
}

export interface StepRef {
  readonly turn: number;
  readonly step: number;
}

export interface InFlightTool {
  readonly callId: string;
  readonly name: string;
}

export interface KillReport {
  /** The longest prefix the child said was durable (undefined: it never said so). */
  readonly claim: DurableClaim | undefined;
  /** The session completed (and was disposed) before the kill. */
  readonly finished: boolean;
  /** Steps whose step/end the child reported before the session's kill window opened. */
  readonly stepsBeforeWindow: readonly StepRef[];
  /** Tool windows: the side-effect tool that was executing when the child died. */
  readonly inFlight: InFlightTool | undefined;
}

/**
 * Runs the batch in one child (its tools' side effects go to `sideDir`), kills it `delayMs`
 * after every session reached its window; throws a Violation if the child died on its own.
 */
export async function killBatch(
  sessions: readonly BatchSession[],
  delayMs: number,
  sideDir: string,
): Promise<KillReport[]> {
  const blocks = sessions.flatMap((s) => (s.block === undefined ? [] : [`${s.sessionId}:${s.block}`]));
  const child = new WriterChild(
    await compiledScript(childScript),
    sessions.map((s) => `${s.seed}:${s.root}`),
    { ...process.env, KEELSON_CRASH_SIDE_DIR: sideDir, KEELSON_CRASH_BLOCK: blocks.join(",") },
  );
  const index = new Map(sessions.map((s, k) => [s.sessionId, k]));
  // A model-call window opens when the last granted call runs (or the first waits).
  const callWindow = sessions.map((s, k) =>
    s.block !== undefined ? undefined : s.calls === 0 ? `wait ${k} 1` : `call ${k} ${s.calls}`,
  );
  const reached = sessions.map(() => false);
  const claims: (DurableClaim | undefined)[] = sessions.map(() => undefined);
  const finished = sessions.map(() => false);
  const steps: StepRef[][] = sessions.map(() => []);
  const inFlight: (InFlightTool | undefined)[] = sessions.map(() => undefined);
  const take = (line: string): void => {
    const durable = /^durable (\d+) (\d+) ([0-9a-f]{64})$/.exec(line);
    if (durable !== null) {
      const k = Number(durable[1]);
      const events = Number(durable[2]);
      if ((claims[k]?.events ?? -1) <= events) claims[k] = { events, sha: durable[3]! };
    }
    const done = /^done (\d+)$/.exec(line);
    if (done !== null) finished[Number(done[1])] = true;
    const k = callWindow.indexOf(line);
    if (k !== -1) reached[k] = true;
    const step = /^step (\S+) (\d+) (\d+)$/.exec(line);
    const s = step === null ? undefined : index.get(step[1]!);
    if (step !== null && s !== undefined && !reached[s])
      steps[s]!.push({ turn: Number(step[2]), step: Number(step[3]) });
    const tool = /^tool (\S+) (\d+) (\S+) (\S+)$/.exec(line);
    const t = tool === null ? undefined : index.get(tool[1]!);
    if (tool !== null && t !== undefined && sessions[t]!.block === Number(tool[2])) {
      inFlight[t] = { callId: tool[3]!, name: tool[4]! };
      reached[t] = true;
    }
  };
  try {
    await child.waitFor((line) => line === "ready", '"ready"');
    for (const [k, s] of sessions.entries()) child.send(`grant ${k} ${s.calls}`);
    while (reached.includes(false)) {
      const missing = sessions.flatMap((s, k) =>
        reached[k] ? [] : [callWindow[k] ?? `tool ${s.sessionId} ${s.block} …`],
      );
      take(await child.waitFor(() => true, `every session reached its kill window (missing: ${missing.join(", ")})`));
    }
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    const exit = await child.kill();
    // Claims printed before the kill landed are claims too.
    for (let line = await child.next(); line !== undefined; line = await child.next()) take(line);
    check(
      exit.signal === "SIGKILL",
      `the crash child exited on its own (${JSON.stringify(exit)}); stderr:\n${child.stderr}`,
    );
  } finally {
    await child.kill();
  }
  return sessions.map((_, k) => ({
    claim: claims[k],
    finished: finished[k]!,
    stepsBeforeWindow: steps[k]!,
    inFlight: inFlight[k],
  }));
}
