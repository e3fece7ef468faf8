// What a turn costs the queue as workers are added (#20 F21): an enqueue wakes one idle slot of
// one worker, not every idle slot of every worker (claims per turn stay flat); a worker is not
// woken for a profile it does not serve; and a session's next turn prefers the worker whose
// store has its log loaded, within a bounded window (never ahead of older turns).
import pg from "pg";
import { afterEach, describe, expect, test, vi } from "vitest";
import { ClaimRace } from "../../src/fleet/claim-race.js";
import { claimTurn, type PreferredSession } from "../../src/fleet/claim-turn.js";
import { IdleSlots } from "../../src/fleet/idle-slots.js";
import type { Worker, WorkerTurnEvent } from "../../src/fleet/index.js";
import type { PgPool } from "../../src/store/postgres/index.js";
import { useFleetDatabase } from "./fleet-harness.js";
import { profiles } from "./fixtures/fleet-profiles.mjs";
import { until } from "../support/until.js";

const database = useFleetDatabase();

/** What every claim's first query (PICK_SESSION) says. */
const PICKS = "keelson_pick_session(";

/** The claim queries (PICK_SESSION) made through a pool: how many, and the most in flight at once. */
interface CountingPool {
  readonly pool: PgPool;
  readonly claims: () => number;
  readonly mostInFlight: () => number;
  readonly end: () => Promise<void>;
}

function countingPool(url: string): CountingPool {
  let claims = 0;
  let inFlight = 0;
  let most = 0;
  const settle = (): void => void inFlight--;
  const pool = new pg.Pool({ connectionString: url, max: 12 });
  pool.on("error", () => undefined);
  pool.on("connect", (client) => {
    client.on("error", () => undefined);
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      if (typeof args[0] !== "string" || !args[0].includes(PICKS)) return query(...args);
      claims++;
      most = Math.max(most, ++inFlight);
      const last = args.length - 1;
      const callback = args[last];
      if (typeof callback === "function") {
        // pool.query passes a callback: the claim is in flight until it is called
        args[last] = (...results: unknown[]) => {
          settle();
          return (callback as (...r: unknown[]) => unknown)(...results);
        };
        return query(...args);
      }
      const result = query(...args) as Promise<unknown>;
      result.then(settle, settle);
      return result;
    };
  });
  return {
    pool: pool as unknown as PgPool,
    claims: () => claims,
    mostInFlight: () => most,
    end: () => pool.end(),
  };
}

describe("claims per turn with several idle workers", () => {
  const opened: { end: () => Promise<void> }[] = [];
  const workers: Worker[] = [];
  afterEach(async () => {
    for (const w of workers.splice(0)) await w.stop({ mode: "cancel" });
    for (const p of opened.splice(0)) await p.end();
  });

  test("one enqueue at a time to 3 workers × 4 slots: a few claims per turn, none by a worker of another profile", async () => {
    const { startWorker } = await import("../../src/fleet/index.js");
    const echo = [countingPool(database().url), countingPool(database().url), countingPool(database().url)];
    const other = countingPool(database().url);
    opened.push(...echo, other);
    // A long poll: only notifications (and claims finding work) wake a slot in this test.
    for (const counted of echo)
      workers.push(await startWorker({ store: counted.pool, profiles, concurrency: 4, pollMs: 600_000 }));
    workers.push(
      await startWorker({ store: other.pool, profiles: { other: profiles.echo }, concurrency: 4, pollMs: 600_000 }),
    );
    const client = await database().client();
    // Each slot looks once when it starts; count from there.
    for (const counted of [...echo, other]) await until(() => counted.claims() >= 4, "each slot's first look");
    const atStart = [...echo, other].map((c) => c.claims());
    const turns = 12;
    for (let i = 0; i < turns; i++) {
      const id = await client.enqueueTurn({ sessionId: `economy-${i % 3}`, prompt: `turn ${i}`, profile: "echo" });
      expect((await client.awaitTurn(id, { timeoutMs: 20_000 })).status).toBe("done");
    }
    const echoClaims = echo.reduce((sum, c, i) => sum + c.claims() - atStart[i]!, 0);
    // The one that claims it, the finishing slot's look for more, and now and then a staggered
    // worker whose timer beat the `running` notification. Before: 3 notifications per turn, each
    // waking all 12 idle slots into a claim (30 per turn measured).
    // Measured: 2.8–3.2 per turn; 30 before.
    expect(echoClaims / turns).toBeLessThanOrEqual(6);
    expect(other.claims() - atStart[3]!).toBe(0);
  }, 60_000);
});

describe("session affinity (PICK_SESSION)", () => {
  const options = (preferred: PreferredSession[], affinityMs: number) => ({
    owner: "w-affinity",
    leaseMs: 30_000,
    profiles: ["echo"],
    maxAttempts: 5,
    preferred,
    affinityMs,
  });

  test("a preferred session goes ahead of a turn queued less than affinityMs before it, never of an older one", async () => {
    await database().query("DELETE FROM keelson_turns");
    await database().query("UPDATE keelson_sessions SET lease_owner = NULL, lease_expires_at = NULL");
    const client = await database().client();
    const a = await client.enqueueTurn({ sessionId: "aff-a", prompt: "a", profile: "echo" });
    const b = await client.enqueueTurn({ sessionId: "aff-b", prompt: "b", profile: "echo" });
    // Without a preference: strictly oldest first.
    const plain = await claimTurn(client.pool, options([], 0));
    expect(plain.claimed?.id).toBe(a);
    await database().query("UPDATE keelson_turns SET status = 'queued' WHERE id = $1", [a]);
    await database().query("UPDATE keelson_sessions SET lease_owner = NULL, lease_expires_at = NULL");
    const [{ n }] = (await database().query<{ n: string }>(
      "SELECT next_seq AS n FROM keelson_sessions WHERE id = 'aff-b'",
    )) as [{ n: string }];
    const held = Number(n);
    const free = async (id: string) => {
      await database().query("UPDATE keelson_turns SET status = 'queued' WHERE id = $1", [id]);
      await database().query("UPDATE keelson_sessions SET lease_owner = NULL, lease_expires_at = NULL");
    };
    // Preferring aff-b (its log is held here as stored): b goes ahead of a, queued just before it.
    expect((await claimTurn(client.pool, options([{ sessionId: "aff-b", nextSeq: held }], 1000))).claimed?.id).toBe(b);
    await free(b);
    // A log held at another length (another worker ran the session since) is no preference: oldest first.
    expect((await claimTurn(client.pool, options([{ sessionId: "aff-b", nextSeq: held + 3 }], 1000))).claimed?.id).toBe(
      a,
    );
    await free(a);
    await database().query("UPDATE keelson_sessions SET next_seq = next_seq + 3 WHERE id = 'aff-b'");
    expect((await claimTurn(client.pool, options([{ sessionId: "aff-b", nextSeq: held }], 1000))).claimed?.id).toBe(a);
    await free(a);
    await database().query("UPDATE keelson_sessions SET next_seq = next_seq - 3 WHERE id = 'aff-b'");
    // A turn queued longer than affinityMs before is never overtaken: no starvation.
    await database().query("UPDATE keelson_turns SET enqueued_at = now() - interval '5 seconds' WHERE id = $1", [a]);
    expect((await claimTurn(client.pool, options([{ sessionId: "aff-b", nextSeq: held }], 1000))).claimed?.id).toBe(a);
  });
});

describe("a worker's slots claim one at a time (decision 0039)", () => {
  test("with turns waiting in several sessions, no two of a worker's claims are in flight together", async () => {
    // Two slots claiming together both picked the same preferred session (the pick offers one),
    // and the one that lost its lock took the oldest head anywhere — a session another worker
    // holds (10 % of W6's turns at 4 × 8 moved so, a whole-log load each). Turns queued before
    // the worker starts: its four slots' first claims would all be in flight at once.
    await database().query("DELETE FROM keelson_turns");
    await database().query("UPDATE keelson_sessions SET lease_owner = NULL, lease_expires_at = NULL");
    const client = await database().client();
    const ids: string[] = [];
    for (let i = 0; i < 16; i++)
      ids.push(await client.enqueueTurn({ sessionId: `one-claim-${i % 4}`, prompt: `turn ${i}`, profile: "echo" }));
    const counted = countingPool(database().url);
    const { startWorker } = await import("../../src/fleet/index.js");
    const worker = await startWorker({ store: counted.pool, profiles, concurrency: 4, pollMs: 600_000 });
    try {
      for (const id of ids) expect((await client.awaitTurn(id, { timeoutMs: 20_000 })).status).toBe("done");
      expect(counted.mostInFlight()).toBe(1);
    } finally {
      await worker.stop({ mode: "cancel" });
      await counted.end();
    }
  }, 60_000);
});

describe("the claim in one statement (CLAIM_HEAD)", () => {
  const options = { owner: "w-head", leaseMs: 30_000, profiles: ["echo"], maxAttempts: 2 };

  test("a queued head is claimed in one statement, then notified on both channels by a notify-only one (decision 0036)", async () => {
    await database().query("DELETE FROM keelson_turns");
    await database().query("UPDATE keelson_sessions SET lease_owner = NULL, lease_expires_at = NULL");
    const client = await database().client();
    const id = await client.enqueueTurn({ sessionId: "head-1", prompt: "p", profile: "echo" });
    const [before] = await database().query<{ e: string }>(
      "SELECT lease_epoch::text AS e FROM keelson_sessions WHERE id = 'head-1'",
    );
    const counted = countingPool(database().url);
    const listener = new pg.Client({ connectionString: database().url });
    await listener.connect();
    const heard: string[] = [];
    listener.on("notification", (m) => heard.push(`${m.channel}: ${m.payload}`));
    await listener.query("LISTEN keelson_turns; LISTEN keelson_queue");
    let statements = 0;
    const pool = counted.pool;
    const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
    (pool as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      statements++;
      return query(...args);
    };
    try {
      const result = await claimTurn(pool, options);
      expect(statements).toBe(2); // CLAIM_HEAD, committed; then NOTIFY_TURNS on its own
      expect(result.claimed).toMatchObject({ id, sessionId: "head-1", prompt: "p", attempts: 1 });
      expect(result.claimed!.epoch).toBe(Number(before!.e) + 1);
      const [row] = await database().query<{ status: string; claim_epoch: string; lease_epoch: string; owner: string }>(
        `SELECT t.status, t.claim_epoch::text AS claim_epoch, s.lease_epoch::text AS lease_epoch, s.lease_owner AS owner
           FROM keelson_turns t JOIN keelson_sessions s ON s.id = t.session_id WHERE t.id = $1`,
        [id],
      );
      expect(row).toEqual({
        status: "running",
        claim_epoch: row!.lease_epoch,
        lease_epoch: String(result.claimed!.epoch),
        owner: "w-head",
      });
      await until(() => heard.length >= 2, "the running notifications");
      expect(heard.sort()).toEqual([`keelson_queue: ${id} running w-head`, `keelson_turns: ${id} running w-head`]);
      // Nothing to claim: one statement too.
      statements = 0;
      expect((await claimTurn(pool, options)).found).toBe(false);
      expect(statements).toBe(1);
    } finally {
      await listener.end();
      await counted.end();
    }
  });

  test("a head out of attempts, or a dead worker's running turn, goes through the full claim", async () => {
    await database().query("DELETE FROM keelson_turns");
    await database().query("UPDATE keelson_sessions SET lease_owner = NULL, lease_expires_at = NULL");
    const client = await database().client();
    const spent = await client.enqueueTurn({ sessionId: "head-2", prompt: "spent", profile: "echo" });
    const next = await client.enqueueTurn({ sessionId: "head-2", prompt: "next", profile: "echo" });
    await database().query("UPDATE keelson_turns SET attempts = 2 WHERE id = $1", [spent]);
    const result = await claimTurn(client.pool, options);
    expect(result.recovered).toEqual([{ id: spent, sessionId: "head-2", status: "failed" }]);
    expect(result.claimed?.id).toBe(next);
    // Its worker dies (the lease lapses): the next claim queues the unstarted turn again and runs it.
    await database().query(
      "UPDATE keelson_sessions SET lease_expires_at = now() - interval '1 second' WHERE id = 'head-2'",
    );
    const again = await claimTurn(client.pool, { ...options, owner: "w-other" });
    expect(again.recovered).toEqual([{ id: next, sessionId: "head-2", status: "queued" }]);
    expect(again.claimed).toMatchObject({ id: next, attempts: 2, epoch: result.claimed!.epoch + 1 });
  });
});

describe("a finished turn's end and release (FINISH_AND_RELEASE)", () => {
  test("one statement records the end and gives the lease up: the store sends no release of its own", async () => {
    await database().query("DELETE FROM keelson_turns");
    await database().query("UPDATE keelson_sessions SET lease_owner = NULL, lease_expires_at = NULL");
    const { startWorker } = await import("../../src/fleet/index.js");
    const texts: string[] = [];
    const pool = new pg.Pool({ connectionString: database().url, max: 4 });
    pool.on("error", () => undefined);
    pool.on("connect", (connected) => {
      connected.on("error", () => undefined);
      const query = connected.query.bind(connected) as (...args: unknown[]) => unknown;
      (connected as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
        const config = args[0] as string | { text?: string };
        texts.push(String(typeof config === "string" ? config : config?.text).replace(/\s+/g, " "));
        return query(...args);
      };
    });
    const worker = await startWorker({ store: pool as unknown as PgPool, profiles, concurrency: 1, pollMs: 600_000 });
    try {
      const client = await database().client();
      const turns = 6;
      for (let i = 0; i < turns; i++) {
        const id = await client.enqueueTurn({ sessionId: `release-${i % 2}`, prompt: `turn ${i}`, profile: "echo" });
        expect((await client.awaitTurn(id, { timeoutMs: 20_000 })).status).toBe("done");
        // Released with its end: the session is free the moment the turn is done.
        const [lease] = await database().query<{ owner: string | null }>(
          "SELECT lease_owner AS owner FROM keelson_sessions WHERE id = $1",
          [`release-${i % 2}`],
        );
        expect(lease?.owner).toBeNull();
      }
      await until(() => worker.running === 0, "the worker's slot to be free");
      const count = (head: string) => texts.filter((t) => t.trimStart().startsWith(head)).length;
      expect(count("WITH lk AS MATERIALIZED")).toBe(turns); // FINISH_AND_RELEASE
      expect(count("UPDATE keelson_sessions SET lease_owner = NULL")).toBe(0); // no CLEAR_LEASE: 7 statements a turn, 8 before
      expect(count("UPDATE keelson_turns SET status = $4")).toBe(0); // no separate MARK_FINISHED
    } finally {
      await worker.stop({ mode: "cancel" });
      await pool.end();
    }
  }, 60_000);
});

describe("a session's next turn, queued before its turn ends, on a worker with idle slots", () => {
  test("is claimed by another slot the moment the lease is free, and runs: never abandoned for a writer not yet let go", async () => {
    // The store must let the session go before the finish frees its lease: an idle slot of the
    // same worker claims the queued next turn at once (this worker holds the log: affinity), and a
    // load that found the finishing slot's writer still registered failed `already-open` — the turn
    // abandoned, the session stalled for a whole lease (the tree that had it: 3 of 3 runs stalled
    // past awaitTurn's 20 s).
    await database().query("DELETE FROM keelson_turns");
    await database().query("UPDATE keelson_sessions SET lease_owner = NULL, lease_expires_at = NULL");
    const turnsSeen: WorkerTurnEvent[] = [];
    const errors: string[] = [];
    await database().worker({
      profiles,
      concurrency: 4,
      leaseMs: 60_000, // an abandoned turn would wait for this: the test's timeout is far below it
      onTurn: (event) => turnsSeen.push(event),
      onError: (error, where) => errors.push(`${where}: ${String(error)}`),
    });
    const client = await database().client();
    const ids: string[] = [];
    for (let session = 0; session < 3; session++)
      for (let i = 0; i < 8; i++)
        ids.push(await client.enqueueTurn({ sessionId: `next-${session}`, prompt: `turn ${i}`, profile: "echo" }));
    for (const id of ids) expect((await client.awaitTurn(id, { timeoutMs: 20_000 })).status).toBe("done");
    expect(turnsSeen.filter((e) => e.kind === "abandoned")).toEqual([]);
    expect(errors).toEqual([]);
  }, 60_000);
});

describe("IdleSlots and ClaimRace (no database)", () => {
  afterEach(() => vi.useRealTimers());

  test("an announcement wakes one waiting slot; one made during a claim is not slept through; close wakes all", async () => {
    const slots = new IdleSlots(600_000);
    const woken: string[] = [];
    const first = slots.wait(slots.mark()).then((r) => woken.push(`first ${r}`));
    const second = slots.wait(slots.mark()).then((r) => woken.push(`second ${r}`));
    slots.announce();
    await first;
    expect(woken).toEqual(["first announced"]);
    const mark = slots.mark(); // a slot starts a claim…
    slots.announce(); // …work is announced meanwhile: the waiting second slot takes it…
    await second;
    const nothingNew = slots.wait(mark); // …so the claimer may sleep: nothing was left unanswered
    const again = slots.mark();
    slots.announce(); // no slot waits but the one above: it is woken
    expect(await nothingNew).toBe("announced");
    slots.announce(); // no slot waits at all: the next claimer does not sleep through it
    expect(await slots.wait(again)).toBe("announced");
    const third = slots.wait(slots.mark());
    slots.close();
    expect(await third).toBe("closed");
  });

  test("an eager worker claims at once; after losing a race it waits a jitter, and gives up when another took the turn", () => {
    vi.useFakeTimers();
    let claims = 0;
    const race = new ClaimRace("me", () => claims++, { jitterMs: 50 });
    race.queued("1");
    expect(claims).toBe(1); // eager: at once
    race.running("1", "other"); // another worker won that race
    expect(race.eager).toBe(false);
    race.queued("2");
    expect(claims).toBe(1); // staggered
    race.running("2", "other"); // taken before the timer: no claim for nothing
    vi.advanceTimersByTime(100);
    expect(claims).toBe(1);
    race.queued("3");
    vi.advanceTimersByTime(100); // nobody took it: this worker claims after its jitter…
    expect(claims).toBe(2);
    race.running("3", "me"); // …wins, and is eager again
    expect(race.eager).toBe(true);
    race.queued("4");
    expect(claims).toBe(3);
    race.gone("4");
    race.close();
  });
});
