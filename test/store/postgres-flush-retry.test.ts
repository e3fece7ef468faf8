// A flush that fails keeps its batch, and its retry neither loses nor duplicates events — also
// when the failure hid a successful commit (the connection dropped while COMMIT was answered).
// These stores retry nothing themselves (`reconnect: { forMs: 0 }`), so the caller's retry is
// what is pinned; the store's own reconnect is postgres-reconnect.test.ts's.
// The store runs on a real pg.Pool passed in as `{ pool }`; the pool is wrapped only to drop a
// flush's statement, or its answer after it committed, at a chosen moment, as a network failure would.
import { Pool } from "pg";
import { afterEach, describe, expect, test } from "vitest";
import { type PgClient, type PgPool, PostgresSessionStore } from "../../src/store/postgres/index.js";
import { newSession, twoTurnLog } from "../support/builders.js";
import { expectStoreError } from "../support/store-expect.js";
import { usePgDatabase } from "./postgres-harness.js";

const database = usePgDatabase();
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  await database().empty();
});

type Fault = "after-commit" | "before-insert" | undefined;

/** A real pool whose next transaction fails as `fault` says (once). */
function faultyPool(): { pool: PgPool; fail(fault: Fault): void } {
  const real = new Pool({ connectionString: database().url });
  closers.push(() => real.end());
  let next: Fault;
  // A flush is one statement through the pool (APPEND: guard, insert, notify — atomic by itself).
  const isAppend = (text: string): boolean => text.startsWith("WITH guard AS");
  const pool: PgPool = {
    query: (async (text: string, values?: unknown[]) => {
      if (next === "before-insert" && isAppend(text)) {
        next = undefined;
        throw new Error("Connection terminated unexpectedly");
      }
      const result = await real.query(text, values);
      if (next === "after-commit" && isAppend(text)) {
        next = undefined;
        throw new Error("Connection terminated unexpectedly");
      }
      return result;
    }) as PgPool["query"],
    end: () => real.end(),
    async connect(): Promise<PgClient> {
      const client = await real.connect();
      const wrapped = Object.create(client) as PgClient;
      wrapped.query = (async (text: string, values?: unknown[]) => {
        if (next === "before-insert" && text.startsWith("INSERT INTO keelson_events")) {
          next = undefined;
          throw new Error("Connection terminated unexpectedly");
        }
        const result = await client.query(text, values);
        if (next === "after-commit" && text === "COMMIT") {
          next = undefined;
          throw new Error("Connection terminated unexpectedly");
        }
        return result;
      }) as PgClient["query"];
      return wrapped;
    },
  };
  return { pool, fail: (fault) => (next = fault) };
}

async function storedSeqs(id: string): Promise<number[]> {
  const rows = await database().query<{ seq: string }>(
    "SELECT seq FROM keelson_events WHERE session_id = $1 ORDER BY seq",
    [id],
  );
  return rows.map((r) => Number(r.seq));
}

describe("flush failures", () => {
  test("a flush that fails before its commit writes nothing; the retry writes the batch once", async () => {
    const { pool, fail } = faultyPool();
    const store = new PostgresSessionStore({ pool, reconnect: { forMs: 0 } });
    closers.push(() => store.close().catch(() => undefined));
    const session = twoTurnLog(newSession("retried"));
    await store.create(session.header, session.events.slice(0, 3));
    store.append(session.id, session.events.slice(3));

    fail("before-insert");
    const error = await expectStoreError(() => store.flush(session.id), "write-failed");
    expect(error.message).toContain("Connection terminated");
    expect(await storedSeqs(session.id)).toEqual([0, 1, 2]);

    await store.flush(session.id);
    expect(await storedSeqs(session.id)).toEqual(session.events.map((e) => e.seq));
  });

  test("a commit whose answer was lost is recognised on retry: no 'conflict', no duplicate, the log goes on", async () => {
    const { pool, fail } = faultyPool();
    const store = new PostgresSessionStore({ pool, reconnect: { forMs: 0 } });
    closers.push(() => store.close().catch(() => undefined));
    const session = twoTurnLog(newSession("ambiguous"));
    await store.create(session.header, session.events.slice(0, 3));
    store.append(session.id, session.events.slice(3, 6));

    fail("after-commit");
    await expectStoreError(() => store.flush(session.id), "write-failed");
    expect(await storedSeqs(session.id)).toEqual([0, 1, 2, 3, 4, 5]); // it did commit

    store.append(session.id, session.events.slice(6));
    await store.flush(session.id);
    await store.release(session.id);
    expect(await storedSeqs(session.id)).toEqual(session.events.map((e) => e.seq));
    const loaded = await database().open().load(session.id, { readOnly: true });
    expect(loaded.session.events).toEqual(session.events);
  });
});

describe("a pool passed in", () => {
  test("a pg.Pool is a PgPool; the store names its server without the password and leaves the pool open on close", async () => {
    const url = new URL(database().url);
    url.password = "pool-s3cret";
    const real = new Pool({ connectionString: url.toString() });
    closers.push(() => real.end());
    const store = new PostgresSessionStore({ pool: real });
    expect(store.label).toBe(new URL(database().url).toString());
    const session = twoTurnLog(newSession("pooled"));
    await store.create(session.header, session.events);
    await store.close();

    expect(await storedSeqs(session.id)).toEqual(session.events.map((e) => e.seq));
    expect((await real.query("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
  });
});
