// The turn queue in PostgreSQL: its migration, and the claim — oldest first, one running turn
// per session, FIFO within a session, SKIP LOCKED past a session another worker is claiming,
// only the worker's own profiles — and the recovery of a claim whose worker died.
import { inject, describe, expect, test } from "vitest";
import { claimTurn } from "../../src/fleet/claim-turn.js";
import { PICK_SESSION } from "../../src/fleet/turn-queries.js";
import { FleetError, migrateFleet, openFleetClient } from "../../src/fleet/index.js";
import { adminQuery, freshDatabase } from "../support/postgres.js";
import { useFleetDatabase } from "./fleet-harness.js";

const database = useFleetDatabase();

const claimOptions = (owner: string, profiles = ["echo"]) => ({ owner, leaseMs: 30_000, profiles, maxAttempts: 5 });

async function emptyQueue(): Promise<void> {
  await database().query("DELETE FROM keelson_turns");
  await database().query("UPDATE keelson_sessions SET lease_owner = NULL, lease_expires_at = NULL");
}

describe("migration", () => {
  test("migrateFleet creates the queue once, records its version, and is idempotent", async () => {
    const fresh = await freshDatabase(inject("pgAdminUrl"));
    try {
      expect(await migrateFleet({ url: fresh.url })).toEqual({ from: 0, to: 10 });
      expect(await migrateFleet({ url: fresh.url })).toEqual({ from: 10, to: 10 });
      // 10: the workers' profiles, added to a version-9 table in place.
      await adminQuery(fresh.url, "ALTER TABLE keelson_workers DROP COLUMN profiles");
      await adminQuery(fresh.url, "DELETE FROM keelson_fleet_schema_version WHERE version > 9");
      expect(await migrateFleet({ url: fresh.url })).toEqual({ from: 9, to: 10 });
      // 8 (decision 0037): one random 32-byte follow key, made once (a second migrate keeps it).
      const keys = await adminQuery(fresh.url, "SELECT encode(follow_key, 'hex') AS k FROM keelson_fleet_secret");
      expect(keys).toEqual([{ k: expect.stringMatching(/^[0-9a-f]{64}$/) }]);
      // A version-1 queue (before started_attempts, followed_until, decision and error_code) is upgraded in place.
      await adminQuery(
        fresh.url,
        "ALTER TABLE keelson_turns DROP COLUMN started_attempts, DROP COLUMN followed_until, DROP COLUMN decision, DROP COLUMN error_code",
      );
      // …and 6's pick function and index go with them (made again by the upgrade).
      await adminQuery(fresh.url, "DROP FUNCTION keelson_pick_session; DROP INDEX keelson_turns_queued");
      await adminQuery(fresh.url, "DROP TABLE keelson_fleet_secret"); // …and 8's key
      await adminQuery(fresh.url, "DROP TABLE keelson_workers"); // …and 9's liveness table
      await adminQuery(fresh.url, "DELETE FROM keelson_fleet_schema_version WHERE version > 1");
      expect(await migrateFleet({ url: fresh.url })).toEqual({ from: 1, to: 10 });
      // 5 (decision 0030): the queue protocol's version is recorded on the table (no column changes).
      const described = await adminQuery(fresh.url, "SELECT obj_description('keelson_turns'::regclass) AS d");
      expect(described).toEqual([{ d: expect.stringContaining("keelson_queue") }]);
      const client = await openFleetClient(fresh.url);
      await client.enqueueTurn({ sessionId: "m1", prompt: "hi", profile: "echo" });
      await client.close();
    } finally {
      await fresh.drop();
    }
  });

  test("a client on a database without the queue is refused with not-migrated, naming keelson db migrate", async () => {
    const fresh = await freshDatabase(inject("pgAdminUrl"));
    const client = await openFleetClient(fresh.url);
    try {
      const error = await client
        .enqueueTurn({ sessionId: "m1", prompt: "hi", profile: "echo" })
        .catch((e: unknown) => e);
      // The store's own schema is checked first: neither is there. A FleetError all the same (a
      // caller of the fleet client catches that; it was the store's StoreError, found from outside).
      expect(error).toBeInstanceOf(FleetError);
      expect((error as { code?: string }).code).toBe("not-migrated");
      expect((error as Error).message).toMatch(/keelson db migrate/);
      for (const follow of [client.stream("1"), client.streamSession("s1")])
        expect(await follow.next().catch((e: unknown) => e)).toMatchObject({
          code: "not-migrated",
          name: expect.any(String),
        });
      expect(
        await client
          .stream("1")
          .next()
          .catch((e: unknown) => e),
      ).toBeInstanceOf(FleetError);
    } finally {
      await client.close();
      await fresh.drop();
    }
  });
});

describe("claims", () => {
  test("oldest first, one running turn per session, and a session's turns in the order they were queued", async () => {
    await emptyQueue();
    const client = await database().client();
    const a1 = await client.enqueueTurn({ sessionId: "order-a", prompt: "a1", profile: "echo" });
    const b1 = await client.enqueueTurn({ sessionId: "order-b", prompt: "b1", profile: "echo" });
    const a2 = await client.enqueueTurn({ sessionId: "order-a", prompt: "a2", profile: "echo" });
    const c1 = await client.enqueueTurn({ sessionId: "order-c", prompt: "c1", profile: "echo" });
    const { pool } = client;

    const first = await claimTurn(pool, claimOptions("w1"));
    expect(first.claimed).toMatchObject({ id: a1, sessionId: "order-a", prompt: "a1", attempts: 1 });
    // order-a has a running turn under a live lease: its a2 waits; b1 and c1 are next.
    expect((await claimTurn(pool, claimOptions("w2"))).claimed?.id).toBe(b1);
    expect((await claimTurn(pool, claimOptions("w2"))).claimed?.id).toBe(c1);
    expect(await claimTurn(pool, claimOptions("w3"))).toEqual({ found: false, claimed: undefined, recovered: [] });

    // a1 finishes and its session is released: a2 is claimable now.
    await database().query("UPDATE keelson_turns SET status = 'done' WHERE id = $1", [a1]);
    await database().query(
      "UPDATE keelson_sessions SET lease_owner = NULL, lease_expires_at = NULL WHERE id = 'order-a'",
    );
    expect((await claimTurn(pool, claimOptions("w3"))).claimed?.id).toBe(a2);
    const running = await database().query<{ id: string; claimed_by: string }>(
      "SELECT id::text, claimed_by FROM keelson_turns WHERE status = 'running' ORDER BY id",
    );
    expect(running).toEqual([
      { id: b1, claimed_by: "w2" },
      { id: a2, claimed_by: "w3" },
      { id: c1, claimed_by: "w2" },
    ]);
  });

  test("a session's turns are ordered by id as numbers: turn 9 before turn 10", async () => {
    await emptyQueue();
    await database().query("SELECT setval(pg_get_serial_sequence('keelson_turns', 'id'), 8)");
    const client = await database().client();
    const ids = [];
    for (const prompt of ["nine", "ten", "eleven"])
      ids.push(await client.enqueueTurn({ sessionId: "digits", prompt, profile: "echo" }));
    expect(ids).toEqual(["9", "10", "11"]);
    for (const expected of ids) {
      expect((await claimTurn(client.pool, claimOptions("w-digits"))).claimed?.id).toBe(expected);
      await database().query("UPDATE keelson_turns SET status = 'done' WHERE id = $1", [expected]);
      await database().query("UPDATE keelson_sessions SET lease_owner = NULL WHERE id = 'digits'");
    }
  });

  test("the claim takes the session's lease in the same transaction, at a new epoch, for the claiming worker", async () => {
    await emptyQueue();
    const client = await database().client();
    const id = await client.enqueueTurn({ sessionId: "leased", prompt: "p", profile: "echo" });
    const [before] = await database().query<{ lease_epoch: string }>(
      "SELECT lease_epoch::text FROM keelson_sessions WHERE id = 'leased'",
    );
    const { claimed } = await claimTurn(client.pool, claimOptions("w-lease"));
    const [after] = await database().query<{
      lease_owner: string;
      lease_epoch: string;
      live: boolean;
      claim_epoch: string;
    }>(
      `SELECT s.lease_owner, s.lease_epoch::text, s.lease_expires_at > now() AS live, t.claim_epoch::text
       FROM keelson_sessions s JOIN keelson_turns t ON t.session_id = s.id WHERE t.id = $1`,
      [id],
    );
    expect(after).toEqual({
      lease_owner: "w-lease",
      lease_epoch: String(Number(before!.lease_epoch) + 1),
      live: true,
      claim_epoch: String(claimed!.epoch),
    });
  });

  test("SKIP LOCKED: a session another worker is claiming is passed over, not waited for", async () => {
    await emptyQueue();
    const client = await database().client();
    await client.enqueueTurn({ sessionId: "locked-a", prompt: "a", profile: "echo" });
    const b = await client.enqueueTurn({ sessionId: "locked-b", prompt: "b", profile: "echo" });
    // Another worker's claim transaction holds locked-a's row (the first step of its claim).
    const other = await client.pool.connect();
    try {
      await other.query("BEGIN");
      await other.query("SELECT id FROM keelson_sessions WHERE id = 'locked-a' FOR NO KEY UPDATE");
      const started = performance.now();
      const { claimed } = await claimTurn(client.pool, claimOptions("w-skip"));
      expect(claimed?.id).toBe(b);
      expect(performance.now() - started).toBeLessThan(5_000); // not blocked behind the other transaction
    } finally {
      await other.query("ROLLBACK");
      other.release();
    }
  });

  test("two claims racing over many sessions never claim one session twice", async () => {
    await emptyQueue();
    const client = await database().client();
    for (let i = 0; i < 20; i++)
      await client.enqueueTurn({ sessionId: `race-${i % 10}`, prompt: `p${i}`, profile: "echo" });
    const results = await Promise.all(
      Array.from({ length: 16 }, (_, i) => claimTurn(client.pool, claimOptions(`racer-${i % 2}`))),
    );
    const sessions = results.flatMap((r) => (r.claimed === undefined ? [] : [r.claimed.sessionId]));
    expect(new Set(sessions).size).toBe(sessions.length);
    expect(sessions.length).toBe(10); // every session's head, once; the second turns wait behind them
  });

  test("a worker claims only turns of its own profiles, and never skips a session's head for a later turn", async () => {
    await emptyQueue();
    const client = await database().client();
    await client.enqueueTurn({ sessionId: "prof-a", prompt: "other first", profile: "other" });
    await client.enqueueTurn({ sessionId: "prof-a", prompt: "echo second", profile: "echo" });
    const b = await client.enqueueTurn({ sessionId: "prof-b", prompt: "echo", profile: "echo" });
    expect((await claimTurn(client.pool, claimOptions("w-echo"))).claimed?.id).toBe(b);
    expect((await claimTurn(client.pool, claimOptions("w-echo"))).found).toBe(false);
    expect((await claimTurn(client.pool, claimOptions("w-other", ["other"]))).claimed?.prompt).toBe("other first");
  });

  test("a claim reads a few rows whatever the backlog, of its own profiles or another's (decision 0034)", async () => {
    // (Without the orphan search, which reads every running turn: a worker runs it on a timer.)
    await emptyQueue();
    // 3,000 sessions each with a queued turn no echo worker serves, queued before 3,000 echo
    // sessions' turns, and 32 sessions whose echo turns run under a live lease.
    const bulk = (from: number, to: number, profile: string) =>
      database().query(
        `WITH s AS (INSERT INTO keelson_sessions (id, header, created_at, next_seq)
           SELECT 'bulk-' || g, '{}', g, 1 FROM generate_series($1::int, $2::int) g RETURNING id)
         INSERT INTO keelson_turns (session_id, prompt, profile) SELECT id, 'p', $3 FROM s`,
        [from, to, profile],
      );
    try {
      await bulk(0, 2999, "other");
      await bulk(3000, 5999, "echo");
      await database().query(
        `UPDATE keelson_sessions SET lease_owner = 'busy', lease_expires_at = now() + interval '1 hour'
         WHERE id IN (SELECT 'bulk-' || g FROM generate_series(3000, 3031) g)`,
      );
      await database().query(
        "UPDATE keelson_turns SET status = 'running' WHERE session_id IN (SELECT 'bulk-' || g FROM generate_series(3000, 3031) g)",
      );
      await database().query("ANALYZE keelson_turns");
      await database().query("ANALYZE keelson_sessions");
      const client = await database().client();
      const connection = await client.pool.connect();
      try {
        await connection.query("BEGIN");
        const rowsRead = async (): Promise<number> =>
          (
            await connection.query<{ n: number }>(
              `SELECT coalesce(sum(pg_stat_get_xact_tuples_returned(oid) + pg_stat_get_xact_tuples_fetched(oid)), 0)::int AS n
               FROM pg_class WHERE relname LIKE 'keelson%'`,
            )
          ).rows[0]!.n;
        const pick = () => connection.query<{ id: string }>(PICK_SESSION, [["echo"], ["bulk-4000"], 0, false, [1]]);
        await pick(); // the connection's first call also plans the function's statements
        const before = await rowsRead();
        const picked = await pick();
        const read = (await rowsRead()) - before;
        expect(picked.rows.map((r) => r.id)).toEqual(["bulk-3032"]); // the oldest echo head under a free lease
        // The pick before schema 6 read every open turn and session here: 12,000 rows. This one
        // reads 12 — or, on a plan that visits the 32 heads under a live lease before skipping
        // them, 2 more rows for each (76, seen once in a full run): bounded by the busy sessions,
        // never by the backlog.
        const busy = 32;
        expect(read).toBeLessThanOrEqual(12 + 2 * busy);
      } finally {
        await connection.query("ROLLBACK");
        connection.release();
      }
    } finally {
      await database().query("DELETE FROM keelson_turns WHERE session_id LIKE 'bulk-%'");
      await database().query("DELETE FROM keelson_sessions WHERE id LIKE 'bulk-%'");
    }
  });

  test("a claim locks only the session it picks: a concurrent claim takes the runner-up, never nothing", async () => {
    await emptyQueue();
    const client = await database().client();
    const oldest = await client.enqueueTurn({ sessionId: "only-a", prompt: "a", profile: "echo" });
    const preferred = await client.enqueueTurn({ sessionId: "only-b", prompt: "b", profile: "echo" });
    const orphan = await client.enqueueTurn({ sessionId: "only-c", prompt: "c", profile: "echo" });
    // only-c's turn runs under a lease that lapsed: an orphan, a candidate of its own.
    await database().query("UPDATE keelson_turns SET status = 'running' WHERE id = $1", [orphan]);
    await database().query(
      "UPDATE keelson_sessions SET lease_owner = 'dead', lease_expires_at = now() - interval '1 second' WHERE id = 'only-c'",
    );
    const holder = await client.pool.connect();
    try {
      await holder.query("BEGIN");
      // A claim that prefers only-b (within 0 ms: it still loses to the oldest) picks only-a and holds it.
      const [{ n }] = (await database().query<{ n: string }>(
        "SELECT next_seq AS n FROM keelson_sessions WHERE id = 'only-b'",
      )) as [{ n: string }];
      const held = await holder.query<{ id: string }>(PICK_SESSION, [["echo"], ["only-b"], 0, true, [Number(n)]]);
      expect(held.rows.map((r) => r.id)).toEqual(["only-a"]);
      // The candidates it did not pick (only-b, as a preferred session and as a queued head; only-c) are free.
      expect((await claimTurn(client.pool, claimOptions("w-second"))).claimed?.id).toBe(preferred);
      const third = await claimTurn(client.pool, claimOptions("w-third"));
      expect(third.recovered).toEqual([{ id: orphan, sessionId: "only-c", status: "queued" }]);
      expect((await claimTurn(client.pool, claimOptions("w-fourth"))).found).toBe(false);
    } finally {
      await holder.query("ROLLBACK");
      holder.release();
    }
    expect((await claimTurn(client.pool, claimOptions("w-fifth"))).claimed?.id).toBe(oldest);
  });
});

describe("recovery of a dead worker's claim", () => {
  test("a claim that never started is queued again once its lease lapses, and claimed by the next worker", async () => {
    await emptyQueue();
    const client = await database().client();
    const id = await client.enqueueTurn({ sessionId: "dead-unstarted", prompt: "p", profile: "echo" });
    await claimTurn(client.pool, { ...claimOptions("dead"), leaseMs: 30_000 });
    // Its lease is live: nobody else may touch the session.
    expect((await claimTurn(client.pool, claimOptions("alive"))).found).toBe(false);
    await database().query(
      "UPDATE keelson_sessions SET lease_expires_at = now() - interval '1 second' WHERE id = 'dead-unstarted'",
    );
    const next = await claimTurn(client.pool, claimOptions("alive"));
    expect(next.recovered).toEqual([{ id, sessionId: "dead-unstarted", status: "queued" }]);
    expect(next.claimed).toMatchObject({ id, attempts: 2 });
  });

  test("orphans are looked for only when the claim asks (a worker does on a timer), a preferred one included", async () => {
    await emptyQueue();
    const client = await database().client();
    const id = await client.enqueueTurn({ sessionId: "dead-timer", prompt: "p", profile: "echo" });
    await client.enqueueTurn({ sessionId: "dead-timer", prompt: "behind it", profile: "echo" });
    await claimTurn(client.pool, claimOptions("dead"));
    await database().query(
      "UPDATE keelson_sessions SET lease_expires_at = now() - interval '1 second' WHERE id = 'dead-timer'",
    );
    // Not looking: the orphan's session is not a candidate (its queued turn waits behind the orphan).
    expect((await claimTurn(client.pool, { ...claimOptions("quick"), orphans: false })).found).toBe(false);
    // A preferred session's running head (its log held here as stored) is recovered either way.
    const [{ n }] = (await database().query<{ n: string }>(
      "SELECT next_seq AS n FROM keelson_sessions WHERE id = 'dead-timer'",
    )) as [{ n: string }];
    const preferred = await claimTurn(client.pool, {
      ...claimOptions("fond"),
      orphans: false,
      preferred: [{ sessionId: "dead-timer", nextSeq: Number(n) }],
    });
    expect(preferred.recovered).toEqual([{ id, sessionId: "dead-timer", status: "queued" }]);
    expect(preferred.claimed).toMatchObject({ id, attempts: 2 });
    await database().query(
      "UPDATE keelson_sessions SET lease_expires_at = now() - interval '1 second' WHERE id = 'dead-timer'",
    );
    const looking = await claimTurn(client.pool, claimOptions("search"));
    expect(looking.recovered).toEqual([{ id, sessionId: "dead-timer", status: "queued" }]);
  });

  test("a started claim whose log grew is adopted for closing, not run again; the session's next turn waits for it", async () => {
    await emptyQueue();
    const client = await database().client();
    const first = await client.enqueueTurn({ sessionId: "dead-started", prompt: "p1", profile: "echo" });
    await client.enqueueTurn({ sessionId: "dead-started", prompt: "p2", profile: "echo" });
    await claimTurn(client.pool, claimOptions("dead"));
    // The dead worker had started at log length 0 and committed two events of its turn.
    await database().query("UPDATE keelson_turns SET start_seq = 0 WHERE id = $1", [first]);
    await database().query(
      "UPDATE keelson_sessions SET next_seq = 2, lease_expires_at = now() - interval '1 second' WHERE id = 'dead-started'",
    );
    const next = await claimTurn(client.pool, claimOptions("alive"));
    expect(next.claimed).toBeUndefined();
    expect(next.recovered).toEqual([]);
    expect(next.repair).toMatchObject({ id: first, sessionId: "dead-started", startSeq: 0, attempts: 1 });
    // Still running (now the adopter's) until the adopter has closed it in the log and recorded it.
    expect(await client.turn(first)).toMatchObject({ status: "running", claimedBy: "alive", attempts: 1 });
    expect((await claimTurn(client.pool, claimOptions("third"))).found).toBe(false);
  });

  test("a turn claimed maxAttempts times without ever starting is failed, not claimed again", async () => {
    await emptyQueue();
    const client = await database().client();
    const id = await client.enqueueTurn({ sessionId: "poison", prompt: "p", profile: "echo" });
    const options = { ...claimOptions("dies"), maxAttempts: 2 };
    for (let i = 0; i < 2; i++) {
      expect((await claimTurn(client.pool, options)).claimed?.id).toBe(id);
      await database().query(
        "UPDATE keelson_sessions SET lease_expires_at = now() - interval '1 second' WHERE id = 'poison'",
      );
    }
    const last = await claimTurn(client.pool, options);
    expect(last.claimed).toBeUndefined();
    expect(last.recovered).toEqual([
      { id, sessionId: "poison", status: "queued" },
      { id, sessionId: "poison", status: "failed" },
    ]);
    expect(await client.turn(id)).toMatchObject({
      status: "failed",
      attempts: 2,
      startedAttempts: 0,
      error: expect.stringMatching(/^claimed 2 times; none got as far as sending the prompt/),
    });
    // The session's lease was given back: nothing runs there.
    const [row] = await database().query("SELECT lease_owner FROM keelson_sessions WHERE id = 'poison'");
    expect(row).toEqual({ lease_owner: null });
  });

  test("F16: a turn whose every attempt sent the prompt and was fenced says so: each may have called the model", async () => {
    await emptyQueue();
    const client = await database().client();
    const id = await client.enqueueTurn({ sessionId: "fenced", prompt: "p", profile: "echo" });
    const options = { ...claimOptions("fenced-worker"), maxAttempts: 3 };
    for (let i = 0; i < 3; i++) {
      const claimed = (await claimTurn(client.pool, options)).claimed!;
      expect(claimed.id).toBe(id);
      // The worker records its start (as run-turn does right before sending the prompt)…
      const started = await database().query(
        "UPDATE keelson_turns SET start_seq = 0, started_at = now() WHERE id = $1 AND attempts = $2 RETURNING id",
        [id, claimed.attempts],
      );
      expect(started).toHaveLength(1);
      // …and is fenced before anything it logged is saved: its lease lapses, the log did not grow.
      await database().query(
        "UPDATE keelson_sessions SET lease_expires_at = now() - interval '1 second' WHERE id = 'fenced'",
      );
    }
    const last = await claimTurn(client.pool, options);
    expect(last.claimed).toBeUndefined();
    const record = await client.turn(id);
    expect(record).toMatchObject({ status: "failed", attempts: 3, startedAttempts: 3 });
    expect(record.error).toBe(
      "claimed 3 times; each sent the prompt and may have called the model, but nothing of them was saved to the log (its workers died, were fenced, or lost the session first); not claimed again",
    );
    expect(record.error).not.toMatch(/never started/);
  });
});

test("client input is checked before anything is written", async () => {
  const client = await database().client();
  for (const bad of [
    { sessionId: "../x", prompt: "p", profile: "echo" },
    { sessionId: "ok", prompt: "  ", profile: "echo" },
    { sessionId: "ok", prompt: "p", profile: "" },
  ]) {
    const error = await client.enqueueTurn(bad).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FleetError);
    expect((error as FleetError).code).toBe("invalid-turn");
  }
  await expect(client.turn("999999")).rejects.toMatchObject({ code: "not-found" });
  // An id from a request (an app's URL) is quoted cut short, whatever its length.
  const long = await client.turn("x".repeat(1_000_000)).catch((e: unknown) => e);
  expect(long).toMatchObject({ code: "not-found" });
  expect((long as FleetError).message.length).toBeLessThan(200);
});

test("F2: a prompt PostgreSQL text cannot hold exactly (NUL, a lone surrogate) is refused as invalid-turn; nothing is created", async () => {
  const client = await database().client();
  const cases = [
    { sessionId: "f2-nul", prompt: "before\u0000after", why: /U\+0000 \(NUL\) at character 6/ },
    { sessionId: "f2-high", prompt: "half \ud83d of a pair", why: /lone surrogate \(U\+D83D\) at character 5/ },
    { sessionId: "f2-low", prompt: "\ude00 first", why: /lone surrogate \(U\+DE00\) at character 0/ },
  ];
  for (const { sessionId, prompt, why } of cases) {
    const error = await client.enqueueTurn({ sessionId, prompt, profile: "echo" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FleetError);
    expect(error).toMatchObject({ code: "invalid-turn", message: expect.stringMatching(why) });
    expect(await database().query("SELECT id FROM keelson_sessions WHERE id = $1", [sessionId])).toEqual([]);
    expect(await database().query("SELECT id FROM keelson_turns WHERE session_id = $1", [sessionId])).toEqual([]);
  }
  const profile = await client
    .enqueueTurn({ sessionId: "f2-profile", prompt: "p", profile: "ec\u0000ho" })
    .catch((e: unknown) => e);
  expect(profile).toMatchObject({ code: "invalid-turn", message: expect.stringMatching(/profile name .* not usable/) });
  // A well-formed pair, and text that only looks odd, are queued exactly as given.
  const exact = "a pair 😀, a tab\t, U+FFFD \ufffd";
  const id = await client.enqueueTurn({ sessionId: "f2-ok", prompt: exact, profile: "echo" });
  expect((await client.turn(id)).prompt).toBe(exact);
});
