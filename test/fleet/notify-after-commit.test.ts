// Decision 0036: no statement or transaction that writes rows also notifies; the notification
// follows its commit as a notify-only statement. PostgreSQL takes its notify lock (one for the
// whole cluster) at a notifying transaction's pre-commit and holds it until the commit has
// finished, WAL flush included; a writer that notified in its own transaction committed only
// when no other notifying transaction was committing.
//
// A blocker holds that lock for as long as a test likes: a transaction that wrote a row and
// notified, committing with synchronous_commit = on on a cluster (this file's own) whose
// synchronous standby never connects — it waits in SyncRep after its pre-commit took the lock.
// Every other connection commits locally (the cluster's default). Each operation must commit —
// its change seen by another connection — while the blocker still waits; its notification, which
// needs the lock, is heard once the blocker is let go. The old statements waited on the lock
// (Lock:object) with their change uncommitted, so each check here timed out on them.
import pg from "pg";
import { afterAll, afterEach, beforeAll, expect, test } from "vitest";
import { EmulatorProvider } from "../../src/emulator/index.js";
import { claimTurn } from "../../src/fleet/claim-turn.js";
import { type FleetClient, migrateFleet, openFleetClient, startWorker, type Worker } from "../../src/fleet/index.js";
import type { SessionEvent } from "../../src/session/index.js";
import { PostgresSessionStore } from "../../src/store/postgres/index.js";
import { LogDriver, newSession } from "../support/builders.js";
import { type Cluster, freshDatabase, startCluster } from "../support/postgres.js";
import { guardCluster } from "../support/postgres-orphan-guard.js";
import { until } from "../support/until.js";

/** How long a change may take to be seen committed while the blocker waits (a bound on a hang, not a speed). */
const COMMITTED_MS = 15_000;

let cluster: Cluster | undefined;
let unguard: (() => void) | undefined;
let url = "";
let observer: pg.Client;
let listener: pg.Client;
const heard: string[] = [];
const opened: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  cluster = await startCluster({
    settings: { synchronous_standby_names: "keelson_never", synchronous_commit: "local" },
  });
  unguard = guardCluster(cluster.dir);
  url = (await freshDatabase(cluster.adminUrl)).url;
  await migrateFleet({ url });
  observer = new pg.Client({ connectionString: url });
  observer.on("error", () => undefined);
  await observer.connect();
  await observer.query("CREATE TABLE blocker_rows (x int)");
  listener = new pg.Client({ connectionString: url });
  listener.on("error", () => undefined);
  await listener.connect();
  listener.on("notification", (m) => heard.push(`${m.channel}: ${m.payload}`));
  await listener.query("LISTEN keelson_turns; LISTEN keelson_queue; LISTEN keelson_events");
});

afterEach(async () => {
  for (const o of opened.splice(0).reverse()) await o.close().catch(() => undefined);
  heard.length = 0;
});

afterAll(async () => {
  await listener?.end().catch(() => undefined);
  await observer?.end().catch(() => undefined);
  unguard?.();
  await cluster?.stop();
});

async function one<R>(text: string, values: unknown[] = []): Promise<R | undefined> {
  return (await observer.query(text, values)).rows[0] as R | undefined;
}

/** Holds PostgreSQL's notify lock until `release` (see the top of the file). */
async function holdNotifyLock(): Promise<{ release(): Promise<void> }> {
  const blocker = new pg.Client({ connectionString: url });
  blocker.on("error", () => undefined);
  await blocker.connect();
  const { pid } = (await blocker.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!;
  await blocker.query("SET synchronous_commit = on");
  await blocker.query("BEGIN");
  await blocker.query("INSERT INTO blocker_rows VALUES (1)");
  await blocker.query("SELECT pg_notify('keelson_test_blocker', 'holding')");
  const committing = blocker.query("COMMIT").catch(() => undefined);
  await until(
    async () =>
      (await one("SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND wait_event = 'SyncRep'", [pid])) !== undefined,
    "the blocker to wait for its standby",
  );
  const lock = await one(
    `SELECT mode FROM pg_locks WHERE locktype = 'object' AND classid = 'pg_database'::regclass AND objid = 0
       AND granted AND pid = $1`,
    [pid],
  );
  expect(lock).toEqual({ mode: "AccessExclusiveLock" });
  let released = false;
  return {
    async release() {
      if (released) return;
      released = true;
      // Cancelling a wait for a synchronous standby ends it: the commit is kept locally, the lock let go.
      await observer.query("SELECT pg_cancel_backend($1)", [pid]);
      await committing;
      await blocker.end().catch(() => undefined);
    },
  };
}

/** Runs `body` while the notify lock is held; the lock is let go afterwards whatever happens. */
async function whileBlocked(body: () => Promise<void>): Promise<void> {
  const blocker = await holdNotifyLock();
  try {
    await body();
  } finally {
    await blocker.release();
  }
}

async function client(): Promise<FleetClient> {
  const c = await openFleetClient(url);
  opened.push(c);
  return c;
}

const statusOf = async (id: string): Promise<string | undefined> =>
  (await one<{ status: string }>("SELECT status FROM keelson_turns WHERE id = $1", [id]))?.status;

test("an enqueue commits while another transaction holds the notify lock; its notification follows", async () => {
  const fleet = await client();
  await fleet.createSession({ id: "enq" });
  let enqueued: Promise<string> | undefined;
  await whileBlocked(async () => {
    enqueued = fleet.enqueueTurn({ sessionId: "enq", prompt: "hello", profile: "echo" });
    enqueued.catch(() => undefined);
    await until(
      async () => (await one("SELECT 1 FROM keelson_turns WHERE session_id = 'enq'")) !== undefined,
      "the enqueue to commit while the notify lock is held",
      COMMITTED_MS,
    );
  });
  const id = await enqueued!;
  await until(() => heard.length >= 2, "the queued notifications");
  expect(heard.sort()).toEqual([`keelson_queue: ${id} queued echo`, `keelson_turns: ${id} queued echo`]);
});

test("a claim commits while the notify lock is held — in one statement, and through the full claim", async () => {
  const fleet = await client();
  // A profile of this test's own: the other tests' turns are not claimed here.
  const head = await fleet.enqueueTurn({ sessionId: "claim-1", prompt: "p", profile: "claimer" });
  const spent = await fleet.enqueueTurn({ sessionId: "claim-2", prompt: "spent", profile: "claimer" });
  const next = await fleet.enqueueTurn({ sessionId: "claim-2", prompt: "next", profile: "claimer" });
  await observer.query("UPDATE keelson_turns SET attempts = 3 WHERE id = $1", [spent]); // out of attempts: the full claim
  await until(() => heard.length >= 6, "the enqueues' notifications");
  heard.length = 0;
  const options = { owner: "w-blocked", leaseMs: 30_000, profiles: ["claimer"], maxAttempts: 3 };
  const claims: Promise<unknown>[] = [];
  await whileBlocked(async () => {
    claims.push(claimTurn(fleet.pool, options));
    await until(async () => (await statusOf(head)) === "running", "the claim (CLAIM_HEAD) to commit", COMMITTED_MS);
    claims.push(claimTurn(fleet.pool, options));
    await until(
      async () => (await statusOf(spent)) === "failed" && (await statusOf(next)) === "running",
      "the full claim (its transaction) to commit",
      COMMITTED_MS,
    );
    for (const c of claims) c.catch(() => undefined);
  });
  const [first, second] = (await Promise.all(claims)) as Awaited<ReturnType<typeof claimTurn>>[];
  expect(first!.claimed?.id).toBe(head);
  expect(second!.claimed?.id).toBe(next);
  expect(second!.recovered).toEqual([{ id: spent, sessionId: "claim-2", status: "failed" }]);
  await until(() => heard.length >= 5, "the claims' notifications");
  expect(heard.sort()).toEqual(
    [
      `keelson_queue: ${head} running w-blocked`,
      `keelson_turns: ${head} running w-blocked`,
      `keelson_queue: ${next} running w-blocked`,
      `keelson_turns: ${next} running w-blocked`,
      `keelson_turns: ${spent} failed`,
    ].sort(),
  );
});

test("a turn's end is recorded while the notify lock is held; a waiting client hears it", async () => {
  let open: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const started: string[] = [];
  const worker: Worker = await startWorker({
    store: url,
    pollMs: 50,
    profiles: {
      gated: {
        provider: () =>
          new EmulatorProvider({
            model: async () => {
              await gate;
              return { text: "through" };
            },
          }),
        model: "emulator:gated",
      },
    },
    onTurn: (e) => {
      if (e.kind === "started") started.push(e.turnId);
    },
  });
  opened.push({ close: () => worker.stop({ mode: "cancel" }) });
  const fleet = await client();
  const id = await fleet.enqueueTurn({ sessionId: "finish", prompt: "wait for the gate", profile: "gated" });
  await until(() => started.includes(id), "the turn to start");
  const waiting = fleet.awaitTurn(id, { pollMs: 600_000, timeoutMs: 60_000 }); // a notification ends this wait, not a poll
  waiting.catch(() => undefined);
  // The claim's notifications reach this listener asynchronously (on a loaded box, after `started`):
  // its last one (keelson_queue, sent after keelson_turns) is heard before the slate is wiped.
  await until(() => heard.some((h) => h.startsWith(`keelson_queue: ${id} running `)), "the claim's notifications");
  heard.length = 0;
  await whileBlocked(async () => {
    open();
    await until(async () => (await statusOf(id)) === "done", "the turn's end to commit", COMMITTED_MS);
  });
  expect(await waiting).toMatchObject({ id, status: "done" });
  await until(() => heard.includes(`keelson_turns: ${id} done`), "the end's notification");
  expect(heard.filter((h) => h.includes(` ${id} `))).toEqual([`keelson_turns: ${id} done`]);
});

test("an append to a watched session commits while the notify lock is held; the watcher gets it after", async () => {
  const writer = new PostgresSessionStore({ url });
  const reader = new PostgresSessionStore({ url });
  opened.push(writer, reader);
  const session = newSession("watched");
  await writer.create(session.header);
  const persistence = writer.attach(session);
  new LogDriver(session).turn({ prompt: "before", steps: [{ text: "old" }] });
  await persistence.flush();
  const seen: SessionEvent[] = [];
  const watch = await reader.watch(session.id, (events) => seen.push(...events));
  opened.push(watch);
  const before = session.length;
  new LogDriver(session).turn({ prompt: "during", steps: [{ text: "new" }] });
  let flushed: Promise<void> | undefined;
  await whileBlocked(async () => {
    flushed = persistence.flush();
    flushed.catch(() => undefined);
    await until(
      async () =>
        Number((await one<{ n: string }>("SELECT next_seq AS n FROM keelson_sessions WHERE id = 'watched'"))?.n) ===
        session.length,
      "the watched append to commit",
      COMMITTED_MS,
    );
  });
  await flushed;
  await until(() => seen.length >= session.length - before, "the watcher to get the new events");
  expect(seen).toEqual(session.events.slice(before));
  // The watch listens on a connection of its own: this test's listener may hear the same
  // notification a moment after the watcher acted on it (a fresh clone's CI run checked too early).
  await until(() => heard.includes(`keelson_events: watched ${session.length}`), "the append's notification");
});
