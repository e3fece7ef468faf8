// Exactly-once across a worker killed with SIGKILL mid-turn (real `keelson worker` processes on
// the run's PostgreSQL): its lease expires, a second worker takes the session over (crash repair
// closes the open turn), the killed turn is not run again when its prompt was logged — and is,
// once, when nothing of it was committed — later turns run, and the log verifies clean with each
// prompt once.
import { expect, test } from "vitest";
import type { TurnRecord } from "../../src/fleet/index.js";
import { verifyLog } from "../../src/reconstruct/index.js";
import type { SessionEvent } from "../../src/session/index.js";
import { useFleetDatabase } from "./fleet-harness.js";
import { useProcesses } from "./worker-process.js";
import { until } from "../support/until.js";

const database = useFleetDatabase();
const LEASE_MS = 1000;
const { worker: startWorker } = useProcesses(() => database().url, LEASE_MS);

const promptsOf = (events: readonly SessionEvent[]): string[] =>
  events
    .filter((e) => e.type === "user/message")
    .map((e) => (e.data as { content: { text: string }[] }).content.map((b) => b.text).join(""));

async function nextSeq(sessionId: string): Promise<number> {
  const [row] = await database().query<{ next_seq: string }>(
    "SELECT next_seq::text FROM keelson_sessions WHERE id = $1",
    [sessionId],
  );
  return Number(row!.next_seq);
}

test("killed after its prompt was logged: the turn is recorded interrupted and not rerun; later turns run; the log is clean", async () => {
  const client = await database().client();
  const parked = await client.enqueueTurn({ sessionId: "kill-logged", prompt: "first [park]", profile: "echo" });
  const later = await client.enqueueTurn({ sessionId: "kill-logged", prompt: "second", profile: "echo" });
  const doomed = startWorker();
  await doomed.line((l) => l === `started ${parked} kill-logged running`);
  // Parked in a side-effect tool: the prompt and the tool call are committed.
  await until(async () => (await nextSeq("kill-logged")) > 0, "the turn's first events to be committed");
  doomed.signal("SIGKILL");
  expect((await doomed.exited).signal).toBe("SIGKILL");
  const killedAt = performance.now();

  startWorker();
  const done: TurnRecord = await client.awaitTurn(later, { timeoutMs: 30_000 });
  const takeoverMs = performance.now() - killedAt;
  expect(done).toMatchObject({ status: "done", attempts: 1, outcome: { turn: 2, reason: "completed" } });
  const interrupted = await client.turn(parked);
  expect(interrupted).toMatchObject({ status: "interrupted", attempts: 1, startSeq: 0 });
  const { session } = await database().store().load("kill-logged", { readOnly: true });
  expect(verifyLog(session.events).issues).toEqual([]);
  expect(promptsOf(session.events)).toEqual(["first [park]", "second"]); // each once: the parked turn never ran again
  const ends = session.events
    .filter((e) => e.type === "turn/end")
    .map((e) => (e.data as { reason: { kind: string } }).reason.kind);
  expect(ends).toEqual(["interrupted", "completed"]); // crash repair closed turn 1, once
  expect(takeoverMs).toBeLessThan(LEASE_MS + 20_000); // bounded by the lease (plus a worker's start-up)
  console.log(
    `fleet: the killed worker's session ran its next turn ${Math.round(takeoverMs)} ms after the kill (lease ${LEASE_MS} ms)`,
  );
}, 60_000);

test("killed mid-turn in a session's last turn: the next worker still closes it in the log and records it interrupted", async () => {
  const client = await database().client();
  const parked = await client.enqueueTurn({ sessionId: "kill-last", prompt: "the last [park]", profile: "echo" });
  const doomed = startWorker();
  await doomed.line((l) => l === `started ${parked} kill-last running`);
  await until(async () => (await nextSeq("kill-last")) > 0, "the turn's first events to be committed");
  doomed.signal("SIGKILL");
  await doomed.exited;

  const next = startWorker();
  await next.line((l) => l === `recovered ${parked} kill-last interrupted`);
  const record = await client.awaitTurn(parked, { timeoutMs: 30_000 });
  expect(record).toMatchObject({
    status: "interrupted",
    attempts: 1,
    outcome: { turn: 1, reason: "interrupted", saved: true },
  });
  const { session } = await database().store().load("kill-last", { readOnly: true });
  expect(verifyLog(session.events).issues).toEqual([]); // no open turn left behind
  expect(session.events.at(-1)).toMatchObject({ type: "turn/end", data: { reason: { kind: "interrupted" } } });
  expect(promptsOf(session.events)).toEqual(["the last [park]"]);
}, 60_000);

test("killed before anything of its turn was committed: the turn is queued again and runs once on the next worker", async () => {
  const client = await database().client();
  const hung = await client.enqueueTurn({ sessionId: "kill-unlogged", prompt: "only once", profile: "echo" });
  const doomed = startWorker({ KEELSON_FLEET_HANG: "1" }); // its model never answers
  await doomed.line((l) => l === `started ${hung} kill-unlogged running`);
  expect(await nextSeq("kill-unlogged")).toBe(0);
  doomed.signal("SIGKILL");
  await doomed.exited;

  const next = startWorker();
  const record = await client.awaitTurn(hung, { timeoutMs: 30_000 });
  expect(record).toMatchObject({ status: "done", attempts: 2, startSeq: 0, outcome: { turn: 1, reason: "completed" } });
  await next.line((l) => l.startsWith(`recovered ${hung} kill-unlogged queued`));
  const { session } = await database().store().load("kill-unlogged", { readOnly: true });
  expect(verifyLog(session.events).issues).toEqual([]);
  expect(promptsOf(session.events)).toEqual(["only once"]);
}, 60_000);

test("a worker paused past its lease (SIGSTOP) is fenced: after SIGCONT it gives the turn up and appends nothing", async () => {
  const client = await database().client();
  const parked = await client.enqueueTurn({ sessionId: "paused", prompt: "wait [park]", profile: "echo" });
  const later = await client.enqueueTurn({ sessionId: "paused", prompt: "after the pause", profile: "echo" });
  const paused = startWorker();
  await paused.line((l) => l === `started ${parked} paused running`);
  await until(async () => (await nextSeq("paused")) > 0, "the turn's first events to be committed");
  paused.signal("SIGSTOP");
  startWorker();
  expect((await client.awaitTurn(later, { timeoutMs: 30_000 })).status).toBe("done");
  const before = await nextSeq("paused");
  paused.signal("SIGCONT");
  await paused.line((l) => l === `abandoned ${parked} paused running`);
  expect(await nextSeq("paused")).toBe(before);
  expect(await client.turn(parked)).toMatchObject({ status: "interrupted" });
  const { session } = await database().store().load("paused", { readOnly: true });
  expect(verifyLog(session.events).issues).toEqual([]);
  expect(promptsOf(session.events)).toEqual(["wait [park]", "after the pause"]);
}, 60_000);
