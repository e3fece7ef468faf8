// `keelson db migrate` end to end: the built CLI against the run's throwaway PostgreSQL cluster.
// Its line names both schemas it migrates, the session store's and the turn queue's (found from
// outside: a fresh database's fleet schema went from 0 to 8 unmentioned). And `keelson db
// rotate-follow-key`: a new random key in place of the old, on a migrated database only.
import { rm } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, inject, test } from "vitest";
import { migrationReport } from "../../src/cli/db-command.js";
import { FLEET_SCHEMA_VERSION } from "../../src/fleet/index.js";
import { migrate, SCHEMA_VERSION } from "../../src/store/postgres/index.js";
import { adminQuery, type FreshDatabase, freshDatabase } from "../support/postgres.js";
import { keelson, tempHome } from "./run-keelson.js";

const secret = "cli-s3cret";
let home: string;
const databases: FreshDatabase[] = [];

beforeAll(async () => {
  home = await tempHome();
});
afterAll(async () => {
  for (const db of databases) await db.drop();
  await rm(home, { recursive: true, force: true });
});

/** A fresh database and its URL with a password in it (trust auth ignores it; messages must not show it). */
async function database(): Promise<{ url: string; shown: string; db: FreshDatabase }> {
  const db = await freshDatabase(inject("pgAdminUrl"));
  databases.push(db);
  const url = new URL(db.url);
  url.password = secret;
  const shown = new URL(db.url).toString();
  return { url: url.toString(), shown, db };
}

const STORE = SCHEMA_VERSION;
const FLEET = FLEET_SCHEMA_VERSION;
const fresh = `migrated the Keelson schema from version 0 to ${STORE} and the fleet schema from 0 to ${FLEET}`;

describe("keelson db migrate", () => {
  test("creates both schemas, then reports both current; output names the database without the password", async () => {
    const { url, shown, db } = await database();
    const first = await keelson(home, ["db", "migrate", "--url", url]);
    expect(first).toMatchObject({ code: 0, stderr: "" });
    expect(first.stdout).toBe(`${shown}: ${fresh}\n`);
    expect(await adminQuery(db.url, "SELECT version FROM keelson_schema_version")).toEqual([{ version: STORE }]);
    expect(await adminQuery(db.url, "SELECT max(version) AS v FROM keelson_fleet_schema_version")).toEqual([
      { v: FLEET },
    ]);

    const again = await keelson(home, ["db", "migrate", "--url", url]);
    expect(again).toMatchObject({
      code: 0,
      stdout: `${shown}: the Keelson schema is already at version ${STORE} (fleet schema ${FLEET})\n`,
    });
    expect(first.stdout + again.stdout).not.toContain(secret);
  });

  test("a store migrated without the queue: the store is said current, the fleet schema migrated", async () => {
    const { url, shown, db } = await database();
    await migrate({ url: db.url }); // the session store alone (migrate() from keelson/store/postgres)
    const result = await keelson(home, ["db", "migrate", "--url", url]);
    expect(result).toMatchObject({
      code: 0,
      stdout: `${shown}: the Keelson schema is already at version ${STORE}; migrated the fleet schema from version 0 to ${FLEET}\n`,
    });
  });

  test("the line for each pair of outcomes", () => {
    expect(migrationReport({ from: 0, to: 1 }, { from: 0, to: 8 })).toBe(
      "migrated the Keelson schema from version 0 to 1 and the fleet schema from 0 to 8",
    );
    expect(migrationReport({ from: 1, to: 1 }, { from: 8, to: 8 })).toBe(
      "the Keelson schema is already at version 1 (fleet schema 8)",
    );
    expect(migrationReport({ from: 1, to: 1 }, { from: 7, to: 8 })).toBe(
      "the Keelson schema is already at version 1; migrated the fleet schema from version 7 to 8",
    );
    expect(migrationReport({ from: 1, to: 2 }, { from: 8, to: 8 })).toBe(
      "migrated the Keelson schema from version 1 to 2 (fleet schema already at 8)",
    );
  });

  test("takes the URL from KEELSON_STORE when --url is not given", async () => {
    const { url, shown } = await database();
    const result = await keelson(home, ["db", "migrate"], { KEELSON_STORE: url });
    expect(result).toMatchObject({ code: 0, stdout: `${shown}: ${fresh}\n` });
  });

  test("refuses a schema written by a newer Keelson: exit 1, 'newer-version', nothing changed", async () => {
    const { url, db } = await database();
    await keelson(home, ["db", "migrate", "--url", url]);
    await adminQuery(db.url, "INSERT INTO keelson_schema_version (version) VALUES (7)");
    const result = await keelson(home, ["db", "migrate", "--url", url]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^keelson: newer-version: .*version 7/);
    expect(await adminQuery(db.url, "SELECT max(version) AS v FROM keelson_schema_version")).toEqual([{ v: 7 }]);
  });

  test("a server that is not there: exit 1, one line naming host and database, never the password", async () => {
    const result = await keelson(home, ["db", "migrate", "--url", `postgres://keelson:${secret}@127.0.0.1:1/app`]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^keelson: write-failed: postgres:\/\/keelson@127\.0\.0\.1:1\/app: migrating/);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).not.toContain(secret);
  });

  test("without a URL, or with one that is not postgres://, it is bad input (exit 2)", async () => {
    const none = await keelson(home, ["db", "migrate"]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("--url postgres://");
    const other = await keelson(home, ["db", "migrate", "--url", `mysql://u:${secret}@h/db`]);
    expect(other.code).toBe(2);
    expect(other.stderr).not.toContain(secret);
  });
});

describe("keelson db rotate-follow-key", () => {
  const followKey = async (url: string): Promise<Buffer> =>
    ((await adminQuery(url, "SELECT follow_key FROM keelson_fleet_secret")) as { follow_key: Buffer }[])[0]!.follow_key;

  test("replaces the follow key with 32 new random bytes; the line names the database without the password", async () => {
    const { url, shown, db } = await database();
    await keelson(home, ["db", "migrate", "--url", url]);
    const before = await followKey(db.url);
    const result = await keelson(home, ["db", "rotate-follow-key", "--url", url]);
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(result.stdout).toBe(
      `${shown}: rotated the follow key; workers and clients take it when they first hear a message sealed under it\n`,
    );
    const after = await followKey(db.url);
    expect(after).toHaveLength(32);
    expect(after.equals(before)).toBe(false);
    expect(result.stdout).not.toContain(secret);
  });

  test("a database without the fleet schema: exit 1, not-migrated, saying to run db migrate; no URL: exit 2", async () => {
    const { url } = await database();
    const result = await keelson(home, ["db", "rotate-follow-key", "--url", url]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^keelson: not-migrated: .*keelson db migrate/);
    expect(result.stderr).not.toContain(secret);
    const none = await keelson(home, ["db", "rotate-follow-key"]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("--url postgres://");
  });
});
