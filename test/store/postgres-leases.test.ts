// Leases with fencing, and optimistic concurrency. A writer holds a session by a lease the server
// times (owner, epoch, expiry); a heartbeat keeps it; once it expires another store takes the
// session over (epoch + 1) and repairs an open turn exactly once, and the old holder — paused or
// partitioned — can never append again (`lease-lost`). Between writers sharing a lease owner,
// the log position decides: one flush wins, the other gets `conflict`; nothing is lost or doubled.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { resolve } from "node:path";
import pg from "pg";
import { afterEach, describe, expect, test } from "vitest";
import type { SessionEvent } from "../../src/session/index.js";
import { type PgPool, PostgresSessionStore } from "../../src/store/postgres/index.js";
import { newSession, text, twoTurnLog } from "../support/builders.js";
import { crashedLog, expectStoreError } from "../support/store-expect.js";
import { usePgDatabase } from "./postgres-harness.js";
import { compiledScript } from "../../reliability/fixtures/compiled-script.js";

const database = usePgDatabase();
afterEach(async () => {
  await database().closeStores();
  await database().empty();
});

interface LeaseRow {
  lease_owner: string | null;
  epoch: number;
  live: boolean | null;
}

async function leaseOf(id: string): Promise<LeaseRow> {
  const [row] = await database().query<LeaseRow>(
    "SELECT lease_owner, lease_epoch::int AS epoch, lease_expires_at > now() AS live FROM keelson_sessions WHERE id = $1",
    [id],
  );
  return row!;
}

/** Polls the database (server clock) until `check` holds; fails after `ms`. */
async function until(what: string, check: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function storedLines(id: string): Promise<SessionEvent[]> {
  const rows = await database().query<{ line: string }>(
    "SELECT line FROM keelson_events WHERE session_id = $1 ORDER BY seq",
    [id],
  );
  return rows.map((r) => JSON.parse(r.line) as SessionEvent);
}

const interruptedEnds = (events: readonly SessionEvent[]): number =>
  events.filter((e) => e.type === "turn/end" && (e.data as { reason: { kind: string } }).reason.kind === "interrupted")
    .length;

describe("leases", () => {
  test("the heartbeat keeps a short lease alive past several lease periods: another store stays 'locked'", async () => {
    // 1 s leases renewed every ~333 ms: only an event-loop stall over ~650 ms could lose one.
    const holder = database().open({ leaseMs: 1000 });
    const session = twoTurnLog(newSession("kept-alive"));
    await holder.create(session.header, session.events);
    const [{ t0 }] = (await database().query<{ t0: Date }>("SELECT now() AS t0")) as [{ t0: Date }];
    await until("2.5 lease periods after the lease was taken (server clock)", async () => {
      const [{ passed }] = (await database().query<{ passed: boolean }>(
        "SELECT now() > $1::timestamptz + interval '2.5 seconds' AS passed",
        [t0],
      )) as [{ passed: boolean }];
      return passed;
    });

    expect(await leaseOf(session.id)).toMatchObject({ lease_owner: holder.owner, epoch: 1, live: true });
    await expectStoreError(() => database().open().load(session.id), "locked");
  });

  test("release clears the lease; the next holder's epoch is one higher", async () => {
    const first = database().open();
    const session = twoTurnLog(newSession("handed"));
    await first.create(session.header, session.events);
    await first.release(session.id);
    expect(await leaseOf(session.id)).toMatchObject({ lease_owner: null, epoch: 1 });

    const second = database().open();
    await second.load(session.id);
    expect(await leaseOf(session.id)).toMatchObject({ lease_owner: second.owner, epoch: 2, live: true });
  });

  test("a partitioned writer whose lease expired is fenced: after a take-over its flush is 'lease-lost' and writes nothing", async () => {
    const a = database().open();
    const crashed = crashedLog("partitioned");
    await a.create(crashed.header, crashed.events);
    // A cannot reach the server for longer than its lease: the server's clock runs it out.
    await database().query("UPDATE keelson_sessions SET lease_expires_at = now() - interval '1 second' WHERE id = $1", [
      crashed.id,
    ]);
    expect(await a.renewLeases()).toEqual([]); // an expired lease is never revived

    const b = database().open();
    const taken = await b.load(crashed.id);
    expect(taken.repaired.length).toBeGreaterThan(0);
    expect(await leaseOf(crashed.id)).toMatchObject({ lease_owner: b.owner, epoch: 2, live: true });

    a.append(crashed.id, [{ ...crashed.events.at(-1)!, seq: crashed.length }]);
    const error = await expectStoreError(() => a.flush(crashed.id), "lease-lost");
    expect(error.message).toContain("taken over");
    await expectStoreError(() => a.flush(crashed.id), "lease-lost"); // the batch stays buffered, still refused
    await expectStoreError(() => a.release(crashed.id), "lease-lost"); // and the session is given up
    await expect(a.close()).resolves.toBeUndefined();

    const stored = await storedLines(crashed.id);
    expect(stored).toEqual([...crashed.events, ...taken.repaired]);
    expect(interruptedEnds(stored)).toBe(1);
    expect(await leaseOf(crashed.id)).toMatchObject({ lease_owner: b.owner, epoch: 2, live: true });
  });

  test("adoptLease: a load uses a lease the caller's own statement took; a wrong epoch is still fenced ('lease-lost')", async () => {
    const creator = database().open();
    const open = crashedLog("adopted"); // its open turn: the load's repair flushes under the adopted epoch
    const other = crashedLog("adopted-wrong");
    for (const log of [open, other]) {
      await creator.create(log.header, log.events);
      await creator.release(log.id);
    }
    const headOf = async (id: string) =>
      (
        await database().query<{ header: string; next_seq: string; seed_from: string | null; seed_length: string }>(
          "SELECT header, next_seq::text AS next_seq, seed_from, seed_length::text AS seed_length FROM keelson_sessions WHERE id = $1",
          [id],
        )
      )[0]!;
    // The caller takes the lease itself (as the fleet's claim does: epoch 1 → 2), then hands it to the store.
    const takeFor = (id: string, owner: string) =>
      database().query(
        "UPDATE keelson_sessions SET lease_owner = $2, lease_epoch = lease_epoch + 1, lease_expires_at = now() + interval '30 seconds' WHERE id = $1",
        [id, owner],
      );
    const holder = database().open();
    await takeFor(open.id, holder.owner);
    holder.adoptLease(open.id, { epoch: 2, head: await headOf(open.id) });
    const loaded = await holder.load(open.id);
    expect(loaded.repaired.length).toBeGreaterThan(0);
    expect(await storedLines(open.id)).toEqual([...open.events, ...loaded.repaired]);
    expect(await leaseOf(open.id)).toMatchObject({ lease_owner: holder.owner, epoch: 2, live: true });
    await holder.release(open.id);
    // For one load only: the next load takes the lease itself (epoch 3).
    await holder.load(open.id);
    expect(await leaseOf(open.id)).toMatchObject({ lease_owner: holder.owner, epoch: 3 });
    await holder.release(open.id);

    // An adopted epoch that is not the lease's writes nothing: the repair's flush is refused.
    const wrong = database().open();
    await takeFor(other.id, wrong.owner);
    wrong.adoptLease(other.id, { epoch: 1, head: await headOf(other.id) }); // the lease is at 2
    await expectStoreError(() => wrong.load(other.id), "lease-lost");
    expect(await storedLines(other.id)).toEqual(other.events);

    // Withdrawn before its load: the load takes the lease itself.
    const withdrawn = database().open();
    withdrawn.adoptLease(open.id, { epoch: 99, head: await headOf(open.id) });
    withdrawn.adoptLease(open.id, undefined);
    await withdrawn.load(open.id);
    expect(await leaseOf(open.id)).toMatchObject({ lease_owner: withdrawn.owner, epoch: 4, live: true });
  });

  test("keepLeaseOnRelease: the release lets the session go but leaves the lease to the caller's own statement", async () => {
    const pool = new pg.Pool({ connectionString: database().url, max: 2 });
    const sent: string[] = [];
    const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
    (pool as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      const config = args[0] as string | { text?: string };
      sent.push(
        String(typeof config === "string" ? config : config?.text)
          .replace(/\s+/g, " ")
          .trim(),
      );
      return query(...args);
    };
    const holder = new PostgresSessionStore({ pool: pool as unknown as PgPool });
    try {
      const handed = twoTurnLog(newSession("handed"));
      const kept = twoTurnLog(newSession("kept"));
      await holder.create(handed.header, handed.events.slice(0, -1));
      await holder.create(kept.header, kept.events);
      expect(holder.keepLeaseOnRelease("not-held")).toBeUndefined();
      expect(holder.keepLeaseOnRelease(handed.id)).toBe(1); // the epoch, for the caller's guard
      holder.append(handed.id, handed.events.slice(-1));
      sent.length = 0;
      // The release still flushes what is pending, drops the session, and clears nothing…
      await holder.release(handed.id);
      expect(sent.some((t) => t.includes("lease_owner = NULL"))).toBe(false);
      expect(await storedLines(handed.id)).toEqual(handed.events);
      expect(await leaseOf(handed.id)).toMatchObject({ lease_owner: holder.owner, epoch: 1, live: true });
      // …and the heartbeat no longer renews it: only the session still held.
      expect(await holder.renewLeases()).toEqual([kept.id]);
      // The other is released as always.
      sent.length = 0;
      await holder.release(kept.id);
      expect(sent.filter((t) => t.startsWith("UPDATE keelson_sessions SET lease_owner = NULL"))).toHaveLength(1);
      expect(await leaseOf(kept.id)).toMatchObject({ lease_owner: null, epoch: 1 });
    } finally {
      await holder.close();
      await pool.end();
    }
  });

  test("an expired lease nobody took over still fences its holder ('lease-lost')", async () => {
    const a = database().open();
    const session = twoTurnLog(newSession("lapsed"));
    await a.create(session.header, session.events.slice(0, 3));
    await database().query("UPDATE keelson_sessions SET lease_expires_at = now() WHERE id = $1", [session.id]);
    a.append(session.id, session.events.slice(3));
    const error = await expectStoreError(() => a.flush(session.id), "lease-lost");
    expect(error.message).toContain("expired");
    expect(await storedLines(session.id)).toHaveLength(3);
  });

  test("a writer paused (SIGSTOP) past its lease is taken over, repaired once, and refused when it resumes", async () => {
    const { url } = database();
    const id = "paused";
    const child = spawn(
      process.execPath,
      [await compiledScript(resolve(import.meta.dirname, "postgres-writer-process.ts")), url, id, "300"],
      { stdio: ["pipe", "pipe", "inherit"] },
    );
    const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
    const exited = new Promise((done) => child.once("exit", done));
    try {
      expect((await lines.next()).value).toBe("ready");
      child.kill("SIGSTOP");
      await until("the paused writer's lease expired", async () => (await leaseOf(id)).live === false);

      const b = database().open();
      const taken = await b.load(id);
      expect(taken.repaired.map((e) => e.type)).toEqual(["turn/end"]);
      expect(await leaseOf(id)).toMatchObject({ lease_owner: b.owner, epoch: 2 });

      child.kill("SIGCONT");
      child.stdin!.write("append\n");
      const result = JSON.parse((await lines.next()).value as string) as { code?: string };
      expect(result.code).toBe("lease-lost");

      const stored = await storedLines(id);
      expect(stored).toEqual(taken.session.events);
      expect(interruptedEnds(stored)).toBe(1);
      expect(JSON.stringify(stored)).not.toContain("written after the pause");
      await b.release(id);
      expect((await database().open().load(id)).repaired).toEqual([]);
    } finally {
      child.kill("SIGCONT");
      child.stdin!.end();
      await exited;
    }
  });
});

describe("optimistic concurrency", () => {
  test("two stores sharing a lease owner flush at the same expected seq: one wins, the other gets 'conflict'", async () => {
    const a = database().open({ owner: "worker-1" });
    const b = database().open({ owner: "worker-1" });
    const session = twoTurnLog(newSession("contended"));
    await a.create(session.header, session.events);
    const { session: seenByB } = await b.load(session.id); // same owner: the live lease is shared
    const turnOf = (who: string, s = session): SessionEvent[] => [
      s.append("turn/start", { turn: s.lastTurn + 1, trigger: "send" }),
      s.append("user/message", { content: [text(`from ${who}`)], source: "user" }),
    ];
    a.append(session.id, turnOf("a"));
    b.append(session.id, turnOf("b", seenByB));

    const results = await Promise.allSettled([a.flush(session.id), b.flush(session.id)]);
    const won = results.findIndex((r) => r.status === "fulfilled");
    expect(won).toBeGreaterThanOrEqual(0);
    const lost = results[1 - won]!;
    expect(lost.status).toBe("rejected");
    expect((lost as PromiseRejectedResult).reason).toMatchObject({ code: "conflict" });

    const winner = won === 0 ? session : seenByB;
    const loser = won === 0 ? b : a;
    const stored = await storedLines(session.id);
    expect(stored).toEqual(winner.events); // nothing lost, nothing doubled
    await expectStoreError(() => loser.flush(session.id), "conflict"); // still buffered, still refused
    await expectStoreError(() => loser.release(session.id), "conflict");
    expect(await storedLines(session.id)).toEqual(winner.events);
  });
});
