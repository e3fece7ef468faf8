// Following across processes (decision 0016): real `keelson worker` processes on the run's
// PostgreSQL, SIGKILLed mid-turn while a client in this process follows the turn — the follower
// always ends: with the log's `turn-end` (interrupted, written by crash repair) when another
// worker recovers the turn, with the re-run's end when nothing of the first attempt was saved,
// and with FleetError('worker-lost') when no worker is left to recover it. And `keelson send
// --follow` in its own process, printing what streams, escaped for the terminal.
import { expect, test } from "vitest";
import { FleetError } from "../../src/fleet/index.js";
import { committedTurnEvent, type TurnEvent } from "../../src/loop/index.js";
import type { SessionEvent } from "../../src/session/index.js";
import { useFleetDatabase } from "./fleet-harness.js";
import { follow } from "./follow-support.js";
import { runCli, useProcesses, type WorkerProcess } from "./worker-process.js";
import { until } from "../support/until.js";

const database = useFleetDatabase();
const LEASE_MS = 1000;
const processes = useProcesses(() => database().url, LEASE_MS);
const startWorker = processes.worker;
/** A `keelson` command, killed after the test if it is still running. */
const cli = (args: readonly string[]): WorkerProcess => processes.track(runCli(args));

/** A second worker, serving (idle) before the first is killed: it recovers the session once the lease lapses. */
async function survivor(): Promise<WorkerProcess> {
  const worker = startWorker();
  await until(async () => worker.stderr().includes(": serving "), "the second worker to serve");
  return worker;
}

/** Polls a fact until it holds (no duration is asserted). */

/** Whether a follower has marked queued turn `turnId` followed (its worker will publish it from its start). */
const followed = (turnId: string) => async (): Promise<boolean> => {
  const [row] = await database().query<{ watched: boolean }>(
    "SELECT coalesce(followed_until > now(), false) AS watched FROM keelson_turns WHERE id = $1",
    [turnId],
  );
  return row?.watched === true;
};

const logged = (sessionId: string) => async (): Promise<boolean> => {
  const [row] = await database().query<{ n: string }>(
    "SELECT next_seq::text AS n FROM keelson_sessions WHERE id = $1",
    [sessionId],
  );
  return Number(row?.n ?? 0) > 0;
};

async function storedEvents(sessionId: string): Promise<readonly SessionEvent[]> {
  const { session } = await database().store().load(sessionId, { readOnly: true });
  return session.events;
}

/** The last delivery of each seq, in seq order: what a client keeps when a seq delivered again replaces it. */
function kept(events: readonly TurnEvent[]): TurnEvent[] {
  const bySeq = new Map<number, TurnEvent>();
  for (const event of events) if ("seq" in event) bySeq.set(event.seq, event);
  return [...bySeq.entries()].sort(([a], [b]) => a - b).map(([, e]) => e);
}

test("a worker killed mid-turn: another worker recovers the turn and the follower ends with the log's interrupted turn-end", async () => {
  const client = await database().client();
  const id = await client.enqueueTurn({ sessionId: "fk-repair", prompt: "wait here [park]", profile: "echo" });
  const follower = follow(client.stream(id));
  await until(followed(id), "the follower to mark the turn followed");
  const doomed = startWorker();
  await until(async () => follower.seen.some((e) => e.type === "tool-call-ready"), "the parked tool call");
  await until(logged("fk-repair"), "the prompt and the call to be committed");
  await survivor();
  doomed.signal("SIGKILL");
  await doomed.exited;
  await follower.ended;
  expect(follower.seen.at(-1)).toMatchObject({ type: "turn-end", reason: { kind: "interrupted" } });
  const log = await storedEvents("fk-repair");
  expect(kept(follower.seen)).toEqual(log.map(committedTurnEvent));
  expect((await client.awaitTurn(id, { timeoutMs: 30_000 })).status).toBe("interrupted");
}, 60_000);

test("a worker killed before anything was saved: the turn runs again elsewhere and the follower streams it to its end", async () => {
  const client = await database().client();
  const id = await client.enqueueTurn({ sessionId: "fk-rerun", prompt: "say it once", profile: "echo" });
  const follower = follow(client.stream(id));
  await until(followed(id), "the follower to mark the turn followed");
  const doomed = startWorker({ KEELSON_FLEET_HANG: "1" }); // its model never answers
  await until(async () => follower.seen.some((e) => e.type === "step-start"), "the first attempt's step, live");
  expect(await logged("fk-rerun")()).toBe(false); // streamed live, nothing of it saved
  await survivor();
  doomed.signal("SIGKILL");
  await doomed.exited;
  await follower.ended;
  expect(follower.seen.at(-1)).toMatchObject({ type: "turn-end", reason: { kind: "completed" } });
  const log = await storedEvents("fk-rerun");
  expect(kept(follower.seen)).toEqual(log.map(committedTurnEvent));
  expect(await client.awaitTurn(id, { timeoutMs: 30_000 })).toMatchObject({ status: "done", attempts: 2 });
}, 60_000);

test("a worker killed mid-turn with no worker left: the follower ends with FleetError worker-lost, not a hang", async () => {
  const client = await database().client();
  const id = await client.enqueueTurn({ sessionId: "fk-alone", prompt: "nobody comes [park]", profile: "echo" });
  const follower = follow(client.stream(id));
  await until(followed(id), "the follower to mark the turn followed");
  const doomed = startWorker();
  await until(async () => follower.seen.some((e) => e.type === "tool-call-ready"), "the parked tool call");
  await until(logged("fk-alone"), "the prompt and the call to be committed"); // never run again
  doomed.signal("SIGKILL");
  await doomed.exited;
  const error = await follower.ended.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(FleetError);
  expect(error).toMatchObject({ code: "worker-lost" });
  expect((error as Error).message).toMatch(new RegExp(`turn ${id} .*no worker has recovered it`));
  expect((await client.turn(id)).status).toBe("running"); // left for the next worker to close
}, 60_000);

test("keelson send --follow prints the streamed answer, escaped for the terminal, and exits with the turn's status", async () => {
  startWorker();
  const sent = cli([
    "send",
    "--store",
    database().url,
    "fk-cli",
    "red \u001b[31malert\u001b[0m done",
    "--profile",
    "echo",
    "--follow",
    "--timeout-ms",
    "30000",
  ]);
  const { code } = await sent.exited;
  expect(code, `stdout:\n${sent.lines.join("\n")}\nstderr:\n${sent.stderr()}`).toBe(0);
  expect(sent.lines.join("\n")).toBe("echo: red \\x1b[31malert\\x1b[0m done");
  expect(sent.stderr()).toMatch(/^turn \d+: done \(turn 1, completed\)\n$/);
  const failed = cli(["send", "--store", database().url, "fk-cli", "then [fail]", "--profile", "echo", "--follow"]);
  expect((await failed.exited).code).toBe(1);
  expect(failed.stderr()).toMatch(/: failed \(turn 2, error\): .*asked this request to fail/);
}, 60_000);
