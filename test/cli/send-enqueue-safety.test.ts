// `keelson send` never leaves a user guessing whether a turn was queued (found from outside: a
// role that could queue but not read the fleet's follow key got `send --follow` → exit 1 naming
// only the key, while the turn had been queued and ran — a retry would run the prompt twice).
// With --follow, what can refuse the follow (the schema, the follow key) is checked before the
// enqueue: refused → nothing written. Anything that fails after the enqueue names the turn id and
// says it was queued. The built CLI against the run's PostgreSQL, under roles granted less.
import { expect, test } from "vitest";
import { useFleetDatabase } from "../fleet/fleet-harness.js";
import { keelson, tempHome } from "./run-keelson.js";

const database = useFleetDatabase();

/** A login role granted `grants` (`%s`: the role's name); dropped when `body` ends. */
async function withRole(suffix: string, grants: string, body: (url: string) => Promise<void>): Promise<void> {
  const role = `keelson_send_${suffix}_${process.pid}`;
  await database().query(`CREATE ROLE ${role} LOGIN`);
  try {
    await database().query(grants.replaceAll("%s", role));
    const url = new URL(database().url);
    url.username = role;
    await body(url.toString());
  } finally {
    await database().query(`DROP OWNED BY ${role}; DROP ROLE ${role}`);
  }
}

/** The reporter's role: the queue's and the store's tables, the schema versions, the sequences — not the follow key (decision 0037). */
const QUEUE_ONLY = `GRANT SELECT, INSERT, UPDATE ON keelson_turns, keelson_sessions, keelson_events,
    keelson_schema_version, keelson_fleet_schema_version TO %s;
  GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO %s`;

/** The follow key and the queue, but of keelson_turns only the columns an enqueue reads back: reading a turn is refused. */
const ENQUEUE_ONLY = `GRANT SELECT, INSERT, UPDATE ON ALL TABLES IN SCHEMA public TO %s;
  GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO %s;
  REVOKE SELECT ON keelson_turns FROM %s;
  GRANT SELECT (id, profile) ON keelson_turns TO %s`;

async function rowsOf(sessionId: string): Promise<{ turns: number; sessions: number }> {
  const [turns] = await database().query<{ n: number }>(
    "SELECT count(*)::int AS n FROM keelson_turns WHERE session_id = $1",
    [sessionId],
  );
  const [sessions] = await database().query<{ n: number }>(
    "SELECT count(*)::int AS n FROM keelson_sessions WHERE id = $1",
    [sessionId],
  );
  return { turns: turns!.n, sessions: sessions!.n };
}

test("--follow by a role that may not read the follow key: permission-denied, exit 1, nothing queued or created", async () => {
  const home = await tempHome();
  await withRole("nokey", QUEUE_ONLY, async (url) => {
    const sent = await keelson(home, ["send", "--store", url, "nokey-1", "hi", "--profile", "emulator", "--follow"]);
    expect(sent.code).toBe(1);
    expect(sent.stdout).toBe("");
    expect(sent.stderr).toMatch(
      /^keelson: permission-denied: .*reading the fleet's follow key failed: permission denied for table keelson_fleet_secret \(SQLSTATE 42501\)\n$/,
    );
    expect(sent.stderr).not.toMatch(/queued/);
    expect(await rowsOf("nokey-1")).toEqual({ turns: 0, sessions: 0 });
    // Without --follow the same role queues the turn (it needs no key): the check is --follow's only.
    const queued = await keelson(home, ["send", "--store", url, "nokey-1", "hi", "--profile", "emulator", "--no-wait"]);
    expect(queued).toMatchObject({ code: 0, stdout: expect.stringMatching(/^\d+\n$/) });
    expect(await rowsOf("nokey-1")).toEqual({ turns: 1, sessions: 1 });
  });
});

test("a failure after the enqueue names the queued turn's id: following it, or waiting for it", async () => {
  const home = await tempHome();
  await withRole("noread", ENQUEUE_ONLY, async (url) => {
    for (const [session, mode, doing] of [
      ["noread-1", ["--follow"], "following it"],
      ["noread-2", [], "waiting for it"],
    ] as const) {
      const sent = await keelson(home, ["send", "--store", url, session, "hi", "--profile", "nobody", ...mode]);
      expect(sent.code).toBe(1);
      const [turn] = await database().query<{ id: string; status: string }>(
        "SELECT id::text AS id, status FROM keelson_turns WHERE session_id = $1",
        [session],
      );
      expect(turn).toEqual({ id: expect.any(String), status: "queued" });
      expect(sent.stderr).toMatch(
        new RegExp(
          `^keelson: turn ${turn!.id} was queued; ${doing} failed: permission-denied: .*permission denied for table keelson_turns \\(SQLSTATE 42501\\)\n$`,
        ),
      );
      expect(sent.stderr.trim().split("\n")).toHaveLength(1);
    }
  });
});

// Found from outside: the refusal printed no code (`keelson: "../x" is not a valid session id`).
test("an invalid session id is bad input with its code, exit 2, nothing queued", async () => {
  const home = await tempHome();
  const sent = await keelson(home, ["send", "--store", database().url, "../x", "hi", "--profile", "emulator"]);
  expect(sent.code).toBe(2);
  expect(sent.stderr).toBe('keelson: invalid-turn: "../x" is not a valid session id\n');
  expect(await rowsOf("../x")).toEqual({ turns: 0, sessions: 0 });
});
