// PostgresSessionStores over a fresh, migrated database of the run's throwaway cluster (see
// test/support/postgres.ts). `usePgDatabase()` registers beforeAll/afterAll hooks for a test
// file: one database per file, emptied before each harness, dropped at the end.
import { afterAll, beforeAll, inject } from "vitest";
import { migrate, PostgresSessionStore, type PostgresStoreOptions } from "../../src/store/postgres/index.js";
import type { StoreHarness } from "../support/store-contract.js";
import { adminQuery, type FreshDatabase, freshDatabase } from "../support/postgres.js";

export interface PgTestDatabase {
  readonly url: string;
  readonly name: string;
  /** Runs SQL on the test database (a short-lived connection). */
  query<R = Record<string, unknown>>(text: string, values?: unknown[]): Promise<R[]>;
  /** A new store on the database; closed by `closeStores` (and by the harness cleanup). */
  open(options?: Omit<PostgresStoreOptions, "url" | "pool">): PostgresSessionStore;
  /** Closes every store opened so far (failures ignored). */
  closeStores(): Promise<void>;
  /** Deletes every session and event. */
  empty(): Promise<void>;
}

/** A fresh, migrated database for this test file. Call at the top level of the file. */
export function usePgDatabase(): () => PgTestDatabase {
  let fresh: FreshDatabase | undefined;
  let db: PgTestDatabase | undefined;
  const stores: PostgresSessionStore[] = [];
  beforeAll(async () => {
    fresh = await freshDatabase(inject("pgAdminUrl"));
    await migrate({ url: fresh.url });
    const url = fresh.url;
    db = {
      url,
      name: fresh.name,
      query: async <R>(text: string, values: unknown[] = []) => (await adminQuery(url, text, values)) as R[],
      open(options = {}) {
        const store = new PostgresSessionStore({ url, ...options });
        stores.push(store);
        return store;
      },
      async closeStores() {
        for (const store of stores.splice(0)) await store.close().catch(() => undefined);
      },
      async empty() {
        await adminQuery(url, "TRUNCATE keelson_events, keelson_sessions");
      },
    };
  });
  afterAll(async () => {
    await db?.closeStores();
    await fresh?.drop();
  });
  return () => {
    if (db === undefined) throw new Error("usePgDatabase: the database is set up in beforeAll");
    return db;
  };
}

/** The contract harness: stores over the (emptied) test database. */
export function pgHarness(database: () => PgTestDatabase): () => Promise<StoreHarness> {
  return async () => {
    const db = database();
    await db.closeStores();
    await db.empty();
    return {
      store: db.open(),
      openSecond: () => db.open(),
      backdate: async (id, ms) => {
        await db.query("UPDATE keelson_sessions SET updated_at = to_timestamp($2::float8 / 1000) WHERE id = $1", [
          id,
          ms,
        ]);
      },
      cleanup: () => db.closeStores(),
    };
  };
}
