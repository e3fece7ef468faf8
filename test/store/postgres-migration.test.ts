// The PostgreSQL schema is created and upgraded only by the explicit, versioned migration:
// fresh databases get every table in one go, a second (or concurrent) run changes nothing, a
// schema written by a newer Keelson is refused untouched, and a store never uses a database
// that was not migrated — it says to run `keelson db migrate`.
import { afterEach, describe, expect, inject, test } from "vitest";
import { migrate, PostgresSessionStore, SCHEMA_VERSION } from "../../src/store/postgres/index.js";
import { newSession, twoTurnLog } from "../support/builders.js";
import { adminQuery, type FreshDatabase, freshDatabase } from "../support/postgres.js";
import { expectStoreError, sessionHeader } from "../support/store-expect.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function database(): Promise<FreshDatabase> {
  const db = await freshDatabase(inject("pgAdminUrl"));
  cleanups.push(() => db.drop());
  return db;
}

function storeOn(url: string): PostgresSessionStore {
  const store = new PostgresSessionStore({ url });
  cleanups.push(() => store.close().catch(() => undefined));
  return store;
}

const tablesOf = async (url: string): Promise<string[]> =>
  (
    (await adminQuery(url, "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename")) as {
      tablename: string;
    }[]
  ).map((r) => r.tablename);

describe("migrate", () => {
  test("a fresh database gets the sessions, events and schema-version tables, at the current version", async () => {
    const db = await database();
    expect(await migrate({ url: db.url })).toEqual({ from: 0, to: SCHEMA_VERSION });
    expect(await tablesOf(db.url)).toEqual(["keelson_events", "keelson_schema_version", "keelson_sessions"]);
    expect(await adminQuery(db.url, "SELECT version FROM keelson_schema_version")).toEqual([
      { version: SCHEMA_VERSION },
    ]);
  });

  test("migrating again, or from several processes at once, changes nothing and records the version once", async () => {
    const db = await database();
    const results = await Promise.all([1, 2, 3, 4].map(() => migrate({ url: db.url })));
    expect(results.filter((r) => r.from === 0)).toHaveLength(1); // the advisory lock serializes them
    expect(results.every((r) => r.to === SCHEMA_VERSION)).toBe(true);
    const store = storeOn(db.url);
    const session = twoTurnLog(newSession("kept"));
    await store.create(session.header, session.events);
    await store.release(session.id);

    expect(await migrate({ url: db.url })).toEqual({ from: SCHEMA_VERSION, to: SCHEMA_VERSION });
    expect(await adminQuery(db.url, "SELECT count(*)::int AS n FROM keelson_schema_version")).toEqual([
      { n: SCHEMA_VERSION },
    ]);
    expect((await storeOn(db.url).load("kept", { readOnly: true })).session.events).toEqual(session.events);
  });

  test("a schema written by a newer Keelson is refused with 'newer-version' and left as it is", async () => {
    const db = await database();
    await migrate({ url: db.url });
    await adminQuery(db.url, "INSERT INTO keelson_schema_version (version) VALUES ($1)", [SCHEMA_VERSION + 1]);

    const error = await expectStoreError(() => migrate({ url: db.url }), "newer-version");
    expect(error.message).toContain(`version ${SCHEMA_VERSION + 1}`);
    expect(await adminQuery(db.url, "SELECT max(version) AS v FROM keelson_schema_version")).toEqual([
      { v: SCHEMA_VERSION + 1 },
    ]);
    const store = storeOn(db.url);
    await expectStoreError(() => store.list(), "newer-version");
    await expectStoreError(() => store.create(sessionHeader("new")), "newer-version");
  });
});

describe("a store on a database that was not migrated", () => {
  test("refuses every operation with 'not-migrated', naming `keelson db migrate`, and creates no table", async () => {
    const db = await database();
    const store = storeOn(db.url);
    for (const action of [
      () => store.list(),
      () => store.create(sessionHeader("s")),
      () => store.load("s"),
      () => store.load("s", { readOnly: true }),
    ]) {
      const error = await expectStoreError(action, "not-migrated");
      expect(error.message).toContain("keelson db migrate");
      expect(error.message).toContain(db.name);
    }
    expect(await tablesOf(db.url)).toEqual([]);

    await migrate({ url: db.url }); // the same store works once the database is migrated
    expect(await store.list()).toEqual([]);
  });

  test("refuses an older schema with 'not-migrated' too", async () => {
    const db = await database();
    await adminQuery(db.url, "CREATE TABLE keelson_schema_version (version integer PRIMARY KEY)");
    const error = await expectStoreError(() => storeOn(db.url).list(), "not-migrated");
    expect(error.message).toContain("keelson db migrate");
  });
});
