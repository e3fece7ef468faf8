// PostgresSessionStore: the shared SessionStore contract, unchanged, over a fresh database of the
// run's throwaway PostgreSQL cluster; then the rows themselves. Migrations, conflicts, leases and
// fencing, forks by reference, the live tail and listing have files of their own.
import { afterEach, describe, expect, test } from "vitest";
import { LogDriver, newSession, twoTurnLog } from "../support/builders.js";
import { describeSessionStoreContract, storeSession } from "../support/store-contract.js";
import { tempJsonlRoot } from "./jsonl-harness.js";
import { pgHarness, usePgDatabase } from "./postgres-harness.js";

const database = usePgDatabase();

describeSessionStoreContract("PostgresSessionStore", pgHarness(database));

describe("PostgreSQL rows", () => {
  afterEach(async () => {
    await database().closeStores();
    await database().empty();
  });

  test("header and event rows hold exactly the JSONL file's lines: joined with newlines they are its bytes", async () => {
    const session = twoTurnLog(newSession("same-bytes"));
    new LogDriver(session).turn({ prompt: 'ünïcödé "quotes" \u2028 and 1.5e300', steps: [{ text: "ok" }] });
    const jsonl = await tempJsonlRoot();
    try {
      await storeSession(jsonl.open(), session);
      await storeSession(database().open(), session);
      const [{ header }] = (await database().query<{ header: string }>(
        "SELECT header FROM keelson_sessions WHERE id = $1",
        [session.id],
      )) as [{ header: string }];
      const lines = await database().query<{ line: string }>(
        "SELECT line FROM keelson_events WHERE session_id = $1 ORDER BY seq",
        [session.id],
      );
      const rebuilt = `${[header, ...lines.map((r) => r.line)].join("\n")}\n`;
      expect(Buffer.from(rebuilt)).toEqual(await jsonl.bytesOf(session.id));
    } finally {
      await jsonl.cleanup();
    }
  });

  test("the session row records parent, seed length, cwd, creation time, the first prompt as title, and the server's write time", async () => {
    const store = database().open();
    const session = newSession("described");
    const header = { ...session.header, cwd: "/srv/app", parentSession: "elsewhere", seedLength: 0 };
    await store.create(header);
    const forTitle = newSession("described");
    new LogDriver(forTitle).turn({ prompt: "Summarise the quarterly report", steps: [{ text: "Done." }] });
    new LogDriver(forTitle).turn({ prompt: "A later prompt", steps: [{ text: "Also done." }] });
    store.append(header.id, forTitle.events);
    await store.flush(header.id);

    const [row] = await database().query(
      `SELECT parent_id, seed_from, seed_length::int, cwd, created_at, title, next_seq::int,
              updated_at > now() - interval '1 minute' AS recent
       FROM keelson_sessions WHERE id = $1`,
      [header.id],
    );
    expect(row).toEqual({
      parent_id: "elsewhere",
      seed_from: null,
      seed_length: 0,
      cwd: "/srv/app",
      created_at: header.createdAt,
      title: "Summarise the quarterly report",
      next_seq: forTitle.length,
      recent: true,
    });
  });
});
