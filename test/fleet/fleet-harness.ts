// A fresh database of the run's throwaway PostgreSQL cluster (test/support/postgres.ts), migrated
// for the fleet, per test file; workers and clients opened through it are stopped and closed by
// `cleanup()` (afterEach) and the database dropped at the end.
import { afterAll, afterEach, beforeAll, inject } from "vitest";
import {
  type FleetClient,
  migrateFleet,
  openFleetClient,
  startWorker,
  type Worker,
  type WorkerOptions,
} from "../../src/fleet/index.js";
import { PostgresSessionStore } from "../../src/store/postgres/index.js";
import { adminQuery, type FreshDatabase, freshDatabase } from "../support/postgres.js";

export interface FleetDatabase {
  readonly url: string;
  query<R = Record<string, unknown>>(text: string, values?: unknown[]): Promise<R[]>;
  worker(options: Omit<WorkerOptions, "store">): Promise<Worker>;
  client(): Promise<FleetClient>;
  /** A store for reading logs back (closed by cleanup). */
  store(): PostgresSessionStore;
}

export function useFleetDatabase(): () => FleetDatabase {
  let fresh: FreshDatabase | undefined;
  let db: FleetDatabase | undefined;
  const workers: Worker[] = [];
  const clients: FleetClient[] = [];
  const stores: PostgresSessionStore[] = [];
  beforeAll(async () => {
    fresh = await freshDatabase(inject("pgAdminUrl"));
    await migrateFleet({ url: fresh.url });
    const url = fresh.url;
    db = {
      url,
      query: async <R>(text: string, values: unknown[] = []) => (await adminQuery(url, text, values)) as R[],
      async worker(options) {
        const worker = await startWorker({ store: url, pollMs: 50, ...options });
        workers.push(worker);
        return worker;
      },
      async client() {
        const client = await openFleetClient(url);
        clients.push(client);
        return client;
      },
      store() {
        const store = new PostgresSessionStore({ url });
        stores.push(store);
        return store;
      },
    };
  });
  afterEach(async () => {
    for (const worker of workers.splice(0)) await worker.stop({ mode: "cancel" });
    for (const client of clients.splice(0)) await client.close();
    for (const store of stores.splice(0)) await store.close().catch(() => undefined);
  });
  afterAll(async () => {
    await fresh?.drop();
  });
  return () => {
    if (db === undefined) throw new Error("useFleetDatabase: the database is set up in beforeAll");
    return db;
  };
}

/** Which worker holds session `sessionId`'s lease (null: nobody — released). */
export async function leaseOwner(db: FleetDatabase, sessionId: string): Promise<string | null> {
  const [row] = await db.query<{ lease_owner: string | null }>(
    "SELECT lease_owner FROM keelson_sessions WHERE id = $1",
    [sessionId],
  );
  return row!.lease_owner;
}
