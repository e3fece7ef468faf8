// `keelson send`'s word on a turn nobody can run: a turn still queued once the workers'
// `--dead-after-ms` has passed since the enqueue, with no worker holding its liveness lock, gets
// one line on stderr — the command goes on waiting (a worker that starts claims it), but does not
// wait in silence (found from outside: 90 s without a word when no worker was running).
import type { FleetClient } from "../fleet/index.js";
import { terminalLine } from "./terminal-text.js";

/** Starts the watch; the returned function stops it (call it when the command is done waiting). */
export function watchQueuedTurn(
  client: FleetClient,
  turnId: string,
  afterMs: number,
  write: (text: string) => void = (text) => process.stderr.write(text),
): () => void {
  let stopped = false;
  const timer = setTimeout(async () => {
    const still = await client.turn(turnId).then(
      (record) => record.status === "queued",
      () => false,
    );
    const alive = still ? await client.liveWorkers().catch(() => undefined) : undefined;
    if (stopped || alive !== 0) return;
    write(
      `keelson send: ${terminalLine(`turn ${turnId} waits in the queue: no worker is alive to run it (start one: keelson worker --store … --profiles …)`)}\n`,
    );
  }, afterMs);
  timer.unref();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
