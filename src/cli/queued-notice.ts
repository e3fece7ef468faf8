// `keelson send`'s word on a turn nobody can run: a turn still queued once the workers'
// `--dead-after-ms` has passed since the enqueue, with no worker holding its liveness lock — or
// none of those that do serving the turn's profile (a typo in `--profile` waited for ever) — gets
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
    const profile = await client.turn(turnId).then(
      (record) => (record.status === "queued" ? record.profile : undefined),
      () => undefined,
    );
    if (profile === undefined) return;
    const alive = await client.liveWorkers().catch(() => undefined);
    const serving = alive ? await client.liveWorkers({ profile }).catch(() => undefined) : undefined;
    if (stopped) return;
    if (alive === 0)
      write(
        `keelson send: ${terminalLine(`turn ${turnId} waits in the queue: no worker is alive to run it (start one: keelson worker --store … --profiles …)`)}\n`,
      );
    else if (serving === 0)
      write(
        `keelson send: ${terminalLine(`turn ${turnId} waits in the queue: no live worker serves its profile ${JSON.stringify(profile)} (${alive} alive serve others; start one whose --profiles has it)`)}\n`,
      );
  }, afterMs);
  timer.unref();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
