// Issue #20 F18: a database role lacking a privilege the store needs gets `permission-denied`
// (SQLSTATE 42501), naming the operation and the table, never `unavailable` or `write-failed` —
// and a flush refused so is not retried as if the connection were lost. Roles are created in
// the run's throwaway cluster and dropped afterwards.
import { randomBytes } from "node:crypto";
import { afterAll, afterEach, describe, expect, inject, test } from "vitest";
import { PostgresSessionStore } from "../../src/store/postgres/index.js";
import { newSession, twoTurnLog } from "../support/builders.js";
import { adminQuery } from "../support/postgres.js";
import { expectStoreError } from "../support/store-expect.js";
import { usePgDatabase } from "./postgres-harness.js";

const database = usePgDatabase();
const roles: string[] = [];
const stores: PostgresSessionStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close().catch(() => undefined);
  await database().empty();
});
afterAll(async () => {
  for (const role of roles) {
    await database().query(`DROP OWNED BY ${role}`);
    await adminQuery(inject("pgAdminUrl"), `DROP ROLE ${role}`);
  }
});

/** A login role granted `grants` (SQL after `GRANT`), and a store connecting as it. */
async function storeAs(grants: readonly string[]): Promise<PostgresSessionStore> {
  const role = `keelson_role_${randomBytes(4).toString("hex")}`;
  roles.push(role);
  await database().query(`CREATE ROLE ${role} LOGIN`);
  await database().query(`GRANT USAGE ON SCHEMA public TO ${role}`);
  await database().query(`GRANT SELECT ON keelson_schema_version TO ${role}`);
  for (const grant of grants) await database().query(`GRANT ${grant} TO ${role}`);
  const url = new URL(database().url);
  url.username = role;
  const store = new PostgresSessionStore({ url: url.toString() });
  stores.push(store);
  return store;
}

describe("a role without the privileges the store needs", () => {
  test("no SELECT on the sessions: list and a read-only load are permission-denied, naming the table", async () => {
    const store = await storeAs([]);
    const listed = await expectStoreError(() => store.list(), "permission-denied");
    expect(listed.message).toContain("listing sessions failed: permission denied for table keelson_sessions");
    expect(listed.message).toContain("SQLSTATE 42501");
    await expectStoreError(() => store.load("any", { readOnly: true }), "permission-denied");
  });

  test("read-only grants: reads work, create and a writable load are permission-denied", async () => {
    const owner = database().open();
    const session = twoTurnLog(newSession("stored"));
    await owner.create(session.header, session.events);
    await owner.release(session.id);

    const store = await storeAs(["SELECT ON keelson_sessions, keelson_events"]);
    expect((await store.list()).map((s) => s.id)).toEqual(["stored"]);
    expect((await store.load("stored", { readOnly: true })).session.events).toEqual(session.events);
    const created = await expectStoreError(() => store.create(newSession("new").header), "permission-denied");
    expect(created.message).toContain("creating session new failed: permission denied for table keelson_sessions");
    const loaded = await expectStoreError(() => store.load("stored"), "permission-denied");
    expect(loaded.message).toContain("taking the lease of session stored failed: permission denied");
  });

  test("no INSERT on the events: a flush is permission-denied at once (not retried as a lost connection), batch kept", async () => {
    const store = await storeAs(["SELECT, INSERT, UPDATE ON keelson_sessions", "SELECT ON keelson_events"]);
    const session = twoTurnLog(newSession("no-insert"));
    await store.create(session.header);
    store.append(session.id, session.events);
    const error = await expectStoreError(() => store.flush(session.id), "permission-denied");
    expect(error.message).toContain(
      `session no-insert: flushing ${session.length} event(s) failed: permission denied for table keelson_events`,
    );
    expect(error.message).not.toContain("reconnect");
    await database().query(`GRANT INSERT ON keelson_events TO ${roles.at(-1)}`);
    await store.release(session.id); // the kept batch is written once the grant is there
    const loaded = await database().open().load(session.id, { readOnly: true });
    expect(loaded.session.events).toEqual(session.events);
  });
});
