// The crash suite's kill: one child process (fixtures/crash-child.ts) runs a batch of seeded
// sessions side by side, each in its own temp root. The parent grants each session a random
// number of model calls, waits (on the child's lines, never on time) until every session is
// inside its last granted call — or blocked at its first — then waits a random short delay and
// SIGKILLs the child: the kill lands while that call's reply, tools, flushes and turn end are in
// flight. Returns, per session, the longest prefix the child claimed durable before it died.
import { fileURLToPath } from "node:url";
import { WriterChild } from "./fixtures/writer-child.js";
import { check } from "./violation.js";

const childScript = fileURLToPath(new URL("./fixtures/crash-child.ts", import.meta.url));

export interface BatchSession {
  readonly seed: number;
  readonly root: string;
  /** Model calls the session may make before the kill (0: it blocks at its first). */
  readonly calls: number;
}

export interface DurableClaim {
  /** Events after the header line that the child said were fsynced. */
  readonly events: number;
  /** sha256 of the header line plus those event lines, as the child encoded them. */
  readonly sha: string;
}

export interface KillReport {
  /** The longest prefix the child said was durable (undefined: it never said so). */
  readonly claim: DurableClaim | undefined;
  /** The session completed (and was disposed) before the kill. */
  readonly finished: boolean;
}

/** Runs the batch in one child, kills it `delayMs` after every session reached its grant; throws a Violation if the child died on its own. */
export async function killBatch(sessions: readonly BatchSession[], delayMs: number): Promise<KillReport[]> {
  const child = new WriterChild(
    childScript,
    sessions.map((s) => `${s.seed}:${s.root}`),
  );
  // Session k has reached its kill window once its last granted call runs (or its first waits).
  const windowLine = sessions.map((s, k) => (s.calls === 0 ? `wait ${k} 1` : `call ${k} ${s.calls}`));
  const claims: (DurableClaim | undefined)[] = sessions.map(() => undefined);
  const finished = sessions.map(() => false);
  const take = (line: string): void => {
    const durable = /^durable (\d+) (\d+) ([0-9a-f]{64})$/.exec(line);
    if (durable !== null) {
      const k = Number(durable[1]);
      const events = Number(durable[2]);
      if ((claims[k]?.events ?? -1) <= events) claims[k] = { events, sha: durable[3]! };
    }
    const done = /^done (\d+)$/.exec(line);
    if (done !== null) finished[Number(done[1])] = true;
  };
  try {
    await child.waitFor((line) => line === "ready", '"ready"');
    for (const [k, s] of sessions.entries()) child.send(`grant ${k} ${s.calls}`);
    const pending = new Set(windowLine);
    while (pending.size > 0) {
      const line = await child.waitFor(
        () => true,
        `every session reached its kill window (missing: ${[...pending].join(", ")})`,
      );
      take(line);
      pending.delete(line);
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
  return sessions.map((_, k) => ({ claim: claims[k], finished: finished[k]! }));
}
