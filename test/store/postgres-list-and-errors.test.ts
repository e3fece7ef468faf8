// Listing many sessions (one query, oldest first, well under a second for 10k), and failures
// that name the server without its credentials.
import { describe, expect, inject, test } from "vitest";
import { PostgresSessionStore, redactUrl } from "../../src/store/postgres/index.js";
import { expectStoreError, sessionHeader } from "../support/store-expect.js";
import { usePgDatabase } from "./postgres-harness.js";

const database = usePgDatabase();

describe("list", () => {
  test("lists 10 000 sessions oldest first in well under a second", async () => {
    await database().empty();
    await database().query(
      `INSERT INTO keelson_sessions (id, header, created_at, cwd, parent_id, next_seq)
       SELECT 's-' || g, '{"format":"keelson-session","version":1,"id":"s-' || g || '","createdAt":' || (20000 - g) || '}',
              20000 - g, '/w/' || g, CASE WHEN g % 2 = 0 THEN 'p' END, 0
       FROM generate_series(1, 10000) AS g`,
    );
    const store = database().open();
    await store.list(); // connect and check the schema first: the timing is of the listing alone
    const started = performance.now();
    const listed = await store.list();
    const ms = performance.now() - started;
    process.stderr.write(`keelson: PostgresSessionStore.list() of 10000 sessions took ${ms.toFixed(1)} ms\n`);

    expect(listed).toHaveLength(10_000);
    expect(listed[0]).toEqual({
      id: "s-10000",
      createdAt: 10_000,
      updatedAt: expect.any(Number),
      cwd: "/w/10000",
      parentSession: "p",
    });
    expect(listed.at(-1)).toEqual({ id: "s-1", createdAt: 19_999, updatedAt: expect.any(Number), cwd: "/w/1" });
    expect(listed.every((s, i) => i === 0 || listed[i - 1]!.createdAt <= s.createdAt)).toBe(true);
    expect(ms).toBeLessThan(1000);
    await database().empty();
  });
});

describe("connection failures name the server, never the password", () => {
  const secret = "s3cret-Pa55word";
  const port = new URL(inject("pgAdminUrl")).port;

  test("a database that does not exist: 'unavailable' naming host, port and database, without the password", async () => {
    const store = new PostgresSessionStore({ url: `postgres://postgres:${secret}@127.0.0.1:${port}/no_such_db` });
    const error = await expectStoreError(() => store.list(), "unavailable");
    expect(error.message).toContain(`postgres://postgres@127.0.0.1:${port}/no_such_db`);
    expect(error.message).toContain("no_such_db");
    expect(error.message).not.toContain(secret);
    expect(JSON.stringify(error)).not.toContain(secret);
    await store.close();
  });

  test("a server that is not there: writes fail with 'write-failed', reads with 'unavailable', none with the password", async () => {
    const url = `postgres://keelson:${secret}@127.0.0.1:1/sessions?password=${secret}`;
    const store = new PostgresSessionStore({ url });
    for (const [action, code] of [
      [() => store.create(sessionHeader("x")), "write-failed"],
      [() => store.load("x"), "write-failed"], // a writable load writes its lease
      [() => store.load("x", { readOnly: true }), "unavailable"],
      [() => store.list(), "unavailable"],
    ] as const) {
      const error = await expectStoreError(action, code);
      expect(error.message).toContain("127.0.0.1:1/sessions");
      expect(error.message).not.toContain(secret);
    }
    await store.close();
  });

  test("redactUrl drops the password and query parameters, and hides an unparsable URL whole", () => {
    expect(redactUrl(`postgres://u:${secret}@db.example:5433/app?sslmode=require&password=${secret}`)).toBe(
      "postgres://u@db.example:5433/app",
    );
    expect(redactUrl(`not a url ${secret}`)).not.toContain(secret);
  });
});

describe("options", () => {
  test("one options object: a second argument (once documented) is refused, not silently ignored", () => {
    const url = "postgres://u@127.0.0.1:1/db";
    const second = { leaseMs: 3_000, owner: "worker-a" };
    expect(() => new (PostgresSessionStore as new (...args: unknown[]) => unknown)({ url }, second)).toThrow(TypeError);
    const store = new PostgresSessionStore({ url, ...second });
    expect([store.leaseMs, store.owner]).toEqual([3_000, "worker-a"]);
  });
});
