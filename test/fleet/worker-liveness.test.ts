// Workers' liveness (decision 0040): a worker holds an advisory lock on a connection of its own;
// a sweep counts one dead only when its lock has been gone for the grace, and then ends its
// leases at once. In-process: the sweep's verdicts on a worker that reconnects, one that cannot,
// one that stopped. With real `keelson worker` processes and a 2-minute lease: a SIGKILLed
// worker's turn is recovered, and its follower ends `interrupted`, long before that lease could
// have lapsed; with no worker left, the follower, `awaitTurn({ untilLost })` and `keelson send`
// (with or without --follow) end worker-lost within seconds, and `keelson send` says when no
// worker at all is alive to run its queued turn; a worker whose
// every connection is terminated takes its lock back and keeps its turn.
import { expect, onTestFinished, test } from "vitest";
import { type FleetClient, FleetError, openFleetClient } from "../../src/fleet/index.js";
import { openPool } from "../../src/fleet/fleet-pool.js";
import { sweepWorkers, WORKER_LOCK_CLASS, WorkerLiveness } from "../../src/fleet/worker-liveness.js";
import type { PgClient, PgPool } from "../../src/store/postgres/index.js";
import { until } from "../support/until.js";
import { useFleetDatabase } from "./fleet-harness.js";
import { follow } from "./follow-support.js";
import { runCli, useProcesses } from "./worker-process.js";

const database = useFleetDatabase();
/** Far longer than a test: whatever ends a lease here is the liveness sweep, not the lease's end. */
const LEASE_MS = 120_000;
const DEAD_AFTER_MS = "500";
const processes = useProcesses(() => database().url, LEASE_MS);
const startWorker = (env: Record<string, string> = {}) => processes.worker(env, ["--dead-after-ms", DEAD_AFTER_MS]);

interface WorkerRow {
  lock_key: number;
  locked_at: Date;
  missing_since: Date | null;
}

async function workerRow(owner: string): Promise<WorkerRow | undefined> {
  const [row] = await database().query<WorkerRow>(
    "SELECT lock_key, locked_at, missing_since FROM keelson_workers WHERE owner = $1",
    [owner],
  );
  return row;
}

async function lease(sessionId: string): Promise<{ owner: string | null; live: boolean; endsAt: Date | null }> {
  const [row] = await database().query<{ lease_owner: string | null; live: boolean; lease_expires_at: Date | null }>(
    "SELECT lease_owner, coalesce(lease_expires_at > now(), false) AS live, lease_expires_at FROM keelson_sessions WHERE id = $1",
    [sessionId],
  );
  return { owner: row!.lease_owner, live: row!.live, endsAt: row!.lease_expires_at };
}

/** Terminates the connection that holds liveness lock `key`. */
async function terminateLockHolder(key: number): Promise<void> {
  const rows = await database().query<{ ok: boolean }>(
    `SELECT pg_terminate_backend(pid) AS ok FROM pg_locks
     WHERE locktype = 'advisory' AND classid = $1::integer::oid AND objid = $2::integer::oid AND objsubid = 2 AND granted`,
    [WORKER_LOCK_CLASS, key],
  );
  expect(rows).toEqual([{ ok: true }]);
}

/** A session leased to `owner` for two minutes (the sweep reads only the lease columns). */
async function leasedSession(id: string, owner: string): Promise<void> {
  await database().query(
    `INSERT INTO keelson_sessions (id, header, created_at, next_seq, lease_owner, lease_epoch, lease_expires_at)
     VALUES ($1, '{}', 0, 0, $2, 1, now() + interval '2 minutes')`,
    [id, owner],
  );
}

/** A pool over the test database whose new connections can be refused (`refuse()`): a worker's host gone. */
async function refusablePool() {
  const opened = await openPool(database().url, { max: 4, applicationName: "keelson-test liveness" });
  let refused = false;
  /** The connections handed out, latest last. */
  const connected: PgClient[] = [];
  const pool: PgPool = {
    query: (text, values) => opened.pool.query(text, values),
    connect: async () => {
      if (refused) throw new Error("connect ECONNREFUSED (the test's)");
      const client = await opened.pool.connect();
      connected.push(client);
      return client;
    },
    end: () => opened.pool.end(),
  };
  return { pool, connected, refuse: () => (refused = true), close: () => opened.close() };
}

/** One sweep over a pool of its own (as another worker's claim runs it). */
async function sweep(graceMs: number) {
  const opened = await openPool(database().url, { max: 1 });
  try {
    return await sweepWorkers(opened.pool, graceMs);
  } finally {
    await opened.close();
  }
}

test("a worker that loses its connection takes its lock again at once: the sweep never counts it dead", async () => {
  const { pool, connected, close } = await refusablePool();
  const errors: unknown[] = [];
  const liveness = new WorkerLiveness(pool, "w-reconnects", (e) => errors.push(e));
  try {
    await liveness.start();
    const first = await workerRow("w-reconnects");
    expect(first).toMatchObject({ lock_key: liveness.lockKey, missing_since: null });
    // The server probes that connection: a vanished host loses its lock in seconds, not hours.
    const { rows: probes } = await connected
      .at(-1)!
      .query<Record<string, string>>(
        "SELECT current_setting('tcp_keepalives_idle') AS idle, current_setting('tcp_keepalives_count') AS count, current_setting('tcp_user_timeout') AS timeout",
      );
    expect(probes).toEqual([{ idle: "5", count: "3", timeout: "10000" }]);
    await leasedSession("s-reconnects", "w-reconnects");
    await terminateLockHolder(liveness.lockKey);
    await until(
      async () => ((await workerRow("w-reconnects"))?.locked_at ?? first!.locked_at) > first!.locked_at,
      "the worker to take its lock again",
    );
    expect(await sweep(1)).toEqual({ dead: [], ended: 0 });
    expect(await sweep(1)).toEqual({ dead: [], ended: 0 });
    expect(await lease("s-reconnects")).toMatchObject({ owner: "w-reconnects", live: true });
    expect((await workerRow("w-reconnects"))?.missing_since).toBeNull();
    expect(errors).toEqual([]);
  } finally {
    await liveness.stop();
    await close();
  }
});

test("a worker that cannot reconnect is marked missing, then dead after the grace: its leases end now and its row goes", async () => {
  const { pool, refuse, close } = await refusablePool();
  const errors: unknown[] = [];
  const liveness = new WorkerLiveness(pool, "w-dies", (e) => errors.push(e));
  try {
    await liveness.start();
    await leasedSession("s-dies", "w-dies");
    await leasedSession("s-other", "w-someone-else"); // a lease of an owner that is no registered worker (a CLI's)
    refuse();
    await terminateLockHolder(liveness.lockKey);
    await until(async () => errors.length > 0, "the worker's reconnect to fail");
    // Missing, within the grace: marked, not dead.
    expect(await sweep(60_000)).toEqual({ dead: [], ended: 0 });
    const marked = await workerRow("w-dies");
    expect(marked?.missing_since).toBeInstanceOf(Date);
    expect(await lease("s-dies")).toMatchObject({ owner: "w-dies", live: true });
    // Past a 1 ms grace (its mark is older than that once the server's clock moved on).
    await until(async () => {
      const [row] = await database().query<{ past: boolean }>("SELECT $1::timestamptz < now() AS past", [
        marked!.missing_since,
      ]);
      return row?.past === true;
    }, "the server's clock to pass the mark");
    expect(await sweep(1)).toEqual({ dead: ["w-dies"], ended: 1 });
    expect(await lease("s-dies")).toMatchObject({ owner: "w-dies", live: false });
    expect(await lease("s-other")).toMatchObject({ owner: "w-someone-else", live: true });
    expect(await workerRow("w-dies")).toBeUndefined();
    expect(await sweep(1)).toEqual({ dead: [], ended: 0 });
  } finally {
    await liveness.stop();
    await close();
  }
});

test("a worker restarted under the same id ends its dead earlier run's leases as it starts; a live one's are left alone", async () => {
  const first = await refusablePool();
  const earlier = new WorkerLiveness(first.pool, "w-pod-0", () => undefined);
  const second = await refusablePool();
  const restarted = new WorkerLiveness(second.pool, "w-pod-0", () => undefined);
  const twin = new WorkerLiveness(second.pool, "w-pod-0", () => undefined);
  try {
    await earlier.start();
    await leasedSession("s-pod-0", "w-pod-0");
    // Alive: a second start under its id (a misconfigured twin) ends nothing.
    await twin.start();
    expect(await lease("s-pod-0")).toMatchObject({ owner: "w-pod-0", live: true });
    await twin.stop(); // (its stop removes the row: the id is shared)
    await earlier.stop();
    await leasedSession("s-pod-0b", "w-pod-0");
    const again = new WorkerLiveness(first.pool, "w-pod-0", () => undefined);
    await again.start();
    first.refuse();
    await terminateLockHolder(again.lockKey); // the earlier run dies; its row stays
    await restarted.start();
    expect(await lease("s-pod-0b")).toMatchObject({ owner: "w-pod-0", live: false });
    expect(await workerRow("w-pod-0")).toMatchObject({ lock_key: restarted.lockKey, missing_since: null });
    await again.stop();
  } finally {
    await restarted.stop();
    await first.close();
    await second.close();
  }
});

test("a stopped worker leaves no row: nobody sweeps it; a second sweep at once skips (one at a time)", async () => {
  const { pool, close } = await refusablePool();
  const liveness = new WorkerLiveness(pool, "w-stops", () => undefined);
  await liveness.start();
  await liveness.stop();
  await close();
  expect(await workerRow("w-stops")).toBeUndefined();
  const both = await Promise.all([sweep(1), sweep(1)]);
  expect(both).toEqual([
    { dead: [], ended: 0 },
    { dead: [], ended: 0 },
  ]);
});

const logged = (sessionId: string) => async (): Promise<boolean> => {
  const [row] = await database().query<{ n: string }>(
    "SELECT next_seq::text AS n FROM keelson_sessions WHERE id = $1",
    [sessionId],
  );
  return Number(row?.n ?? 0) > 0;
};

/** A followed turn parked in its tool on a worker of its own, its prompt and call committed. */
async function parkedTurn(sessionId: string, prompt: string, client?: FleetClient) {
  client ??= await database().client();
  const id = await client.enqueueTurn({ sessionId, prompt: `${prompt} [park]`, profile: "echo" });
  const follower = follow(client.stream(id));
  const worker = startWorker();
  await until(async () => follower.seen.some((e) => e.type === "tool-call-ready"), "the parked tool call");
  await until(logged(sessionId), "the prompt and the call to be committed");
  return { client, id, follower, worker, held: await lease(sessionId) };
}

test("a worker SIGKILLed mid-turn under a 2-minute lease: its turn is recovered and the follower ends interrupted, long before the lease would end", async () => {
  const { client, id, follower, worker: doomed, held } = await parkedTurn("lv-kill", "wait here");
  const survivor = startWorker();
  await until(async () => survivor.stderr().includes(": serving "), "the second worker to serve");
  doomed.signal("SIGKILL");
  await doomed.exited;
  await follower.ended;
  expect(follower.seen.at(-1)).toMatchObject({ type: "turn-end", reason: { kind: "interrupted" } });
  const record = await client.awaitTurn(id, { timeoutMs: 30_000 });
  expect(record.status).toBe("interrupted");
  // Recovered while the dead worker's lease had most of its two minutes left.
  expect(record.finishedAt).toBeLessThan(held.endsAt!.getTime() - 60_000);
  expect(await workerRow(held.owner!)).toBeUndefined();
}, 60_000);

test("the only worker SIGKILLed under a 2-minute lease: the follower ends worker-lost within seconds, not two leases", async () => {
  // (Earlier tests' workers, SIGKILLed after each test, must not count as alive: they are not.)
  // A client told the workers' grace (500 ms, as startWorker's here): it looks every 500 ms.
  const own = await openFleetClient(database().url, { deadAfterMs: Number(DEAD_AFTER_MS) });
  onTestFinished(() => own.close());
  const { client, id, follower, worker: doomed, held } = await parkedTurn("lv-alone", "nobody comes", own);
  doomed.signal("SIGKILL");
  await doomed.exited;
  const error = await follower.ended.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toMatchObject({
    code: "worker-lost",
    message: expect.stringMatching(/no worker is alive to recover it/),
  });
  expect(await lease("lv-alone")).toMatchObject({ owner: held.owner, live: true }); // still its lease: ended by judgment, not expiry
  expect((await client.turn(id)).status).toBe("running"); // left for the next worker to close
}, 60_000);

test("awaitTurn({ untilLost }): the only worker SIGKILLed, the wait ends worker-lost within seconds; without it, it waits", async () => {
  const own = await openFleetClient(database().url, { deadAfterMs: Number(DEAD_AFTER_MS) });
  onTestFinished(() => own.close());
  const { id, follower, worker: doomed } = await parkedTurn("lv-await", "nobody comes", own);
  doomed.signal("SIGKILL");
  await doomed.exited;
  const killedAt = Date.now();
  const lost = await own.awaitTurn(id, { untilLost: true }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(lost).toMatchObject({
    code: "worker-lost",
    message: expect.stringMatching(/no worker is alive to recover it/),
  });
  expect(Date.now() - killedAt).toBeLessThan(5_000);
  await follower.ended.catch(() => {});
  // The default waits for a worker to come (the turn is left running for it), up to its timeout.
  await expect(own.awaitTurn(id, { timeoutMs: 1_500 })).rejects.toMatchObject({ code: "timeout" });
  await expect(own.awaitTurn(id, { untilLost: "yes" as unknown as boolean })).rejects.toMatchObject({
    code: "invalid-options",
  });
}, 60_000);

/** `keelson send --store <db> <session> <prompt> --profile echo …flags`. */
const sendTo = (session: string, prompt: string, ...flags: string[]) =>
  runCli(["send", "--store", database().url, session, prompt, "--profile", "echo", ...flags]);

// Plain `send` used to wait without a word for ever once every worker was dead.
for (const [session, how] of [
  ["lv-cli", ["--follow"]],
  ["lv-cli-plain", []],
  ["lv-cli-json", ["--follow", "--json"]], // the record as it stands ends stdout, as every end's does
] as const)
  test(`keelson send${how.map((flag) => ` ${flag}`).join("")} --dead-after-ms: the only worker SIGKILLed, the command exits 6 (worker lost) within seconds`, async () => {
    const sent = processes.track(sendTo(session, "nobody comes [park]", ...how, "--dead-after-ms", DEAD_AFTER_MS));
    const doomed = startWorker();
    await until(logged(session), "the prompt and the call to be committed");
    await until(async () => (await lease(session)).live, "the worker's lease");
    const killedAt = Date.now();
    doomed.signal("SIGKILL");
    await doomed.exited;
    const { code } = await sent.exited;
    expect(code, sent.stderr()).toBe(6);
    expect(sent.stderr()).toMatch(/no worker is alive to recover it/);
    expect(sent.stderr()).toMatch(/stays in the queue: the next worker to start recovers it/);
    if (how.includes("--json" as never))
      expect(JSON.parse(sent.lines.at(-1)!)).toMatchObject({
        sessionId: session,
        status: "running",
      });
    // Judged by the liveness lock at the grace it was given (500 ms): with the default, 5 s, the
    // verdict cannot come before the lock has been gone 5 s. The 2-minute lease is untouched.
    expect(Date.now() - killedAt).toBeLessThan(5_000);
    expect(await lease(session)).toMatchObject({ live: true });
    const refused = sendTo(session, "x", ...how, "--dead-after-ms", "99");
    expect((await refused.exited).code).toBe(2);
    expect(refused.stderr()).toMatch(/--dead-after-ms/);
    const notWaiting = sendTo(session, "x", "--no-wait", "--dead-after-ms", "500");
    expect((await notWaiting.exited).code).toBe(2);
    expect(notWaiting.stderr()).toMatch(/--dead-after-ms is for waiting/);
  }, 60_000);

// Found from outside: with no worker running, `send` waited without a word (90 s, then for ever).
test("keelson send with no worker alive: one line on stderr says the turn waits for one; a worker that starts runs it", async () => {
  const sent = processes.track(sendTo("lv-nobody", "hello", "--dead-after-ms", DEAD_AFTER_MS));
  await until(() => /no worker is alive to run it/.test(sent.stderr()), "the line saying no worker is alive");
  expect(sent.stderr()).toMatch(/^keelson send: turn \d+ waits in the queue: no worker is alive to run it/);
  startWorker();
  expect((await sent.exited).code, sent.stderr()).toBe(0);
  expect(sent.stderr().match(/no worker is alive/g)).toHaveLength(1);
}, 60_000);

// Found from outside: a turn queued for a profile no running worker serves (a typo) waited in silence.
test("keelson send for a profile no live worker serves: one line says so; liveWorkers({ profile }) counts the workers serving it", async () => {
  const client = await database().client();
  startWorker();
  await until(async () => (await client.liveWorkers()) === 1, "the worker to hold its liveness lock");
  expect(await client.liveWorkers({ profile: "echo" })).toBe(1);
  expect(await client.liveWorkers({ profile: "other" })).toBe(1);
  expect(await client.liveWorkers({ profile: "nosuch" })).toBe(0);
  await expect(client.liveWorkers({ profile: 7 as unknown as string })).rejects.toMatchObject({
    code: "invalid-options",
  });
  const sent = processes.track(
    runCli([
      "send",
      "--store",
      database().url,
      "lv-unserved",
      "hello",
      "--profile",
      "nosuch",
      "--dead-after-ms",
      DEAD_AFTER_MS,
    ]),
  );
  await until(() => /no live worker serves/.test(sent.stderr()), "the line saying no live worker serves the profile");
  expect(sent.stderr()).toMatch(
    /^keelson send: turn \d+ waits in the queue: no live worker serves its profile "nosuch" \(1 alive serve others/,
  );
  expect(sent.stderr()).not.toMatch(/no worker is alive/);
}, 60_000);

test("a worker whose every connection is terminated keeps its turn: it takes its lock back before anyone counts it dead", async () => {
  const client = await database().client();
  const id = await client.enqueueTurn({ sessionId: "lv-cut", prompt: "hold on [park]", profile: "echo" });
  const victim = startWorker();
  await until(logged("lv-cut"), "the prompt and the call to be committed");
  const owner = (await lease("lv-cut")).owner!;
  const before = (await workerRow(owner))!;
  const rows = await database().query<{ ok: boolean }>(
    `SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity
     WHERE datname = current_database() AND application_name = left($1, 63)`,
    [`keelson-worker ${owner}`],
  );
  expect(rows.length).toBeGreaterThan(0);
  await until(
    async () => ((await workerRow(owner))?.locked_at ?? before.locked_at) > before.locked_at,
    "the worker to take its lock again",
  );
  // (Earlier tests' workers, SIGKILLed after each test, may be found dead here: not this one.)
  expect((await sweep(1)).dead).not.toContain(owner);
  expect(await lease("lv-cut")).toMatchObject({ owner, live: true });
  expect((await client.turn(id)).status).toBe("running");
  expect(victim.stderr()).not.toMatch(/abandoned/);
}, 60_000);

test("openFleetClient refuses a deadAfterMs that is no integer ≥ 100, before it opens anything", async () => {
  const cases: [unknown, string][] = [
    [0, "0"],
    [99, "99"],
    [1.5, "1.5"],
    [Number.NaN, "NaN"],
    ["500", '"500"'],
  ];
  for (const [deadAfterMs, shown] of cases)
    await expect(
      openFleetClient("postgres://nobody@127.0.0.1:1/none", { deadAfterMs: deadAfterMs as number }),
    ).rejects.toThrow(new FleetError("invalid-options", `deadAfterMs must be an integer ≥ 100, got ${shown}`));
});
