// Issue #20 F19: a flush whose connection is lost — its backend terminated by
// pg_terminate_backend, as under a failover or the fleet suite's faults — is retried by the store
// on a fresh pool connection while the lease holds, so the turn saves; it fails only when the
// server stays unreachable past the deadline (`reconnect.forMs`), and then keeps its batch. The
// store runs on a real pg.Pool passed in as `{ pool }`, wrapped only to terminate, for real, the
// backend that is about to run a flush's statement (pg_terminate_backend with a timeout returns
// once that backend is gone, so the statement cannot run: deterministic, no timing).
import { Pool } from "pg";
import { afterEach, describe, expect, test } from "vitest";
import { ScriptedProvider } from "../../src/llm/index.js";
import { createAgent } from "../../src/loop/index.js";
import {
  isConnectionError,
  type PgClient,
  type PgPool,
  PostgresSessionStore,
  type PostgresStoreOptions,
} from "../../src/store/postgres/index.js";
import { fixedClock, newSession, twoTurnLog } from "../support/builders.js";
import { adminQuery } from "../support/postgres.js";
import { expectStoreError } from "../support/store-expect.js";
import { usePgDatabase } from "./postgres-harness.js";

const database = usePgDatabase();
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  await database().empty();
});

/** A flush is one statement (queries.ts APPEND). */
const isAppend = (text: string): boolean => text.startsWith("WITH guard AS");

interface TerminatingPool {
  readonly pool: PgPool;
  /** Terminate the backends of the next `n` flush statements before they run. */
  terminateNext(n: number): void;
  /** Flush statements whose backend was terminated so far. */
  readonly terminated: () => number;
  /** The flush statement's answer is lost once after it committed (the connection drops with it). */
  loseNextAnswer(): void;
}

function terminatingPool(): TerminatingPool {
  const real = new Pool({ connectionString: database().url });
  real.on("error", () => undefined);
  real.on("connect", (client) => client.on("error", () => undefined));
  closers.push(() => real.end());
  let pending = 0;
  let terminated = 0;
  let loseAnswer = false;
  const pool: PgPool = {
    query: (async (text: string, values?: unknown[]) => {
      if (isAppend(text) && pending > 0) {
        pending--;
        const client = await real.connect();
        try {
          const { rows } = await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
          const [done] = await adminQuery(database().url, "SELECT pg_terminate_backend($1, 10000) AS done", [
            rows[0]!.pid,
          ]);
          expect(done).toEqual({ done: true });
          terminated++;
          return await client.query(text, values); // on a terminated backend: fails
        } catch (error) {
          client.release(true);
          throw error;
        }
      }
      const result = await real.query(text, values);
      if (loseAnswer && isAppend(text)) {
        loseAnswer = false;
        throw Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01" });
      }
      return result;
    }) as PgPool["query"],
    connect: () => real.connect() as Promise<PgClient>,
    end: () => real.end(),
  };
  return {
    pool,
    terminateNext: (n) => (pending = n),
    terminated: () => terminated,
    loseNextAnswer: () => (loseAnswer = true),
  };
}

async function storedSeqs(id: string): Promise<number[]> {
  const rows = await database().query<{ seq: string }>(
    "SELECT seq FROM keelson_events WHERE session_id = $1 ORDER BY seq",
    [id],
  );
  return rows.map((r) => Number(r.seq));
}

function storeOver(pool: PgPool, reconnect: NonNullable<PostgresStoreOptions["reconnect"]> = {}) {
  const store = new PostgresSessionStore({ pool, reconnect });
  closers.push(() => store.close().catch(() => undefined));
  return store;
}

describe("a flush whose backend is terminated", () => {
  test("an agent's turn saves: the flush reconnects and writes its batch once", async () => {
    const faults = terminatingPool();
    const store = storeOver(faults.pool);
    const agent = createAgent({
      provider: new ScriptedProvider([], { fallback: { text: "ok" } }),
      model: "scripted:test",
      system: "You help.",
      clock: fixedClock(),
      store,
    });
    faults.terminateNext(2); // the turn's first flush loses its connection twice
    const outcome = await agent.send("hello");
    expect(faults.terminated()).toBe(2);
    expect(outcome.reason).toEqual({ kind: "completed" });
    expect(outcome.saved).toBe(true);
    await agent.dispose();
    expect(await storedSeqs(agent.session.id)).toEqual(agent.session.events.map((e) => e.seq));
    const loaded = await database().open().load(agent.session.id, { readOnly: true });
    expect(loaded.session.events).toEqual(agent.session.events);
  });

  test("a commit whose answer was lost is recognised by the reconnected flush: no conflict, no duplicate", async () => {
    const faults = terminatingPool();
    const store = storeOver(faults.pool);
    const session = twoTurnLog(newSession("lost-answer"));
    await store.create(session.header, session.events.slice(0, 3));
    store.append(session.id, session.events.slice(3, 6));
    faults.loseNextAnswer();
    await store.flush(session.id); // committed, answer lost, retried: its own rows are found
    store.append(session.id, session.events.slice(6));
    await store.flush(session.id);
    await store.release(session.id);
    expect(await storedSeqs(session.id)).toEqual(session.events.map((e) => e.seq));
  });

  test("past the deadline the flush fails write-failed, saying how often it reconnected, and keeps its batch", async () => {
    const faults = terminatingPool();
    let now = 0;
    const waits: number[] = [];
    const store = storeOver(faults.pool, {
      forMs: 1_000,
      now: () => now,
      sleep: async (ms: number) => {
        waits.push(ms);
        now += ms;
      },
    });
    const session = twoTurnLog(newSession("unreachable"));
    await store.create(session.header, session.events.slice(0, 3));
    store.append(session.id, session.events.slice(3));
    faults.terminateNext(1_000); // every attempt
    const error = await expectStoreError(() => store.flush(session.id), "write-failed");
    expect(waits).toEqual([20, 40, 80, 160, 320]); // doubling backoff; the next wait (640 ms) would pass the 1 s deadline
    expect(faults.terminated()).toBe(6);
    expect(error.message).toContain("after 5 reconnect(s)");
    expect(error.message).toMatch(/terminat|connection error/); // pg words a dead backend either way
    expect(await storedSeqs(session.id)).toEqual([0, 1, 2]);

    faults.terminateNext(0); // the server is back: the kept batch is written once
    await store.release(session.id);
    expect(await storedSeqs(session.id)).toEqual(session.events.map((e) => e.seq));
  });

  test("reconnect.forMs 0 fails at once (and is validated)", async () => {
    const faults = terminatingPool();
    const store = storeOver(faults.pool, { forMs: 0 });
    const session = twoTurnLog(newSession("no-retry"));
    await store.create(session.header, session.events.slice(0, 3));
    store.append(session.id, session.events.slice(3));
    faults.terminateNext(1);
    const error = await expectStoreError(() => store.flush(session.id), "write-failed");
    expect(error.message).not.toContain("reconnect(s)");
    expect(faults.terminated()).toBe(1);
    expect(() => new PostgresSessionStore({ pool: faults.pool, reconnect: { forMs: -1 } })).toThrow(/forMs/);
  });
});

describe("isConnectionError: what a flush retries", () => {
  const withCode = (code: string, message = "x"): Error => Object.assign(new Error(message), { code });
  test("a lost or refused connection, also wrapped or aggregated", () => {
    for (const error of [
      withCode("57P01", "terminating connection due to administrator command"),
      withCode("08006"),
      withCode("ECONNRESET"),
      withCode("ECONNREFUSED"),
      new Error("Connection terminated unexpectedly"),
      new AggregateError([withCode("ECONNREFUSED"), withCode("ECONNREFUSED")]),
      new Error("connecting failed", { cause: withCode("57P03") }),
    ])
      expect(isConnectionError(error), String(error)).toBe(true);
  });
  test("not a refusal, bad data or a permission", () => {
    for (const error of [
      withCode("42501", "permission denied for table keelson_events"),
      withCode("28P01"),
      withCode("22021", 'invalid byte sequence for encoding "UTF8": 0x00'),
      withCode("23505"),
      new Error("something else"),
      "Connection terminated",
      undefined,
    ])
      expect(isConnectionError(error), String(error)).toBe(false);
  });
});
