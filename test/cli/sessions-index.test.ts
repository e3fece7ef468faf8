// `keelson sessions` and `keelson resume --last` over the JSONL store's summary index (issue #20):
// the same rows as the full scan (`KEELSON_SESSION_INDEX=off`), text and --json, before and after
// a session changes and with a garbled index; `resume --last` follows a log written after the
// index was; the full scan writes no index.
import { readdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { Session } from "../../src/session/index.js";
import { JsonlSessionStore, SESSION_INDEX_DIR, SESSION_INDEX_FILE } from "../../src/store/index.js";
import { LogDriver, twoTurnLog } from "../support/builders.js";
import { storeSession } from "../support/store-contract.js";
import { keelson, tempHome } from "./run-keelson.js";

let home: string;
let sessions: string;
const OFF = { KEELSON_SESSION_INDEX: "off" };

beforeAll(async () => {
  home = await tempHome();
  sessions = join(home, "sessions");
  const store = new JsonlSessionStore({ root: sessions });
  for (const [i, id] of ["first", "second", "third"].entries()) {
    const createdAt = 1_700_000_000_000 + i * 1000;
    const session = twoTurnLog(Session.create({ id, createdAt, cwd: home }, { clock: () => createdAt }));
    await storeSession(store, session);
    await store.release(id);
  }
  await store.close();
});

afterAll(() => rm(home, { recursive: true, force: true }));

/** `keelson sessions [--json]` with and without the index: both outputs. */
async function bothWays(args: string[]): Promise<{ indexed: string; scanned: string }> {
  const [indexed, scanned] = [await keelson(home, args), await keelson(home, args, OFF)];
  for (const r of [indexed, scanned]) expect(r).toMatchObject({ code: 0, stderr: "" });
  return { indexed: indexed.stdout, scanned: scanned.stdout };
}

it("the full scan writes no index; the indexed listing writes one and prints the same rows", async () => {
  const scanned = await keelson(home, ["sessions"], OFF);
  expect(scanned.code).toBe(0);
  expect(await readdir(sessions)).not.toContain(SESSION_INDEX_DIR);
  const rows = scanned.stdout.trimEnd().split("\n");
  expect(rows).toHaveLength(4);
  expect(rows[1]).toMatch(/^first +\S+ +2 +\S+ +"Thanks!"$/);

  for (let i = 0; i < 2; i++) {
    const indexed = await keelson(home, ["sessions"]);
    expect(indexed).toMatchObject({ code: 0, stdout: scanned.stdout, stderr: "" });
    expect((await readdir(join(sessions, SESSION_INDEX_DIR))).sort()).toEqual(["index.json", "listing", "released"]);
  }
  const json = await bothWays(["sessions", "--json"]);
  expect(json.indexed).toBe(json.scanned);
  expect(json.indexed.trimEnd().split("\n")).toHaveLength(3);
}, 60_000);

it("a session written after the index was: its new turn is listed, and resume --last picks it", async () => {
  await keelson(home, ["sessions"]); // the index is up to date
  const store = new JsonlSessionStore({ root: sessions });
  const { session } = await store.load("first");
  const persistence = store.attach(session);
  new LogDriver(session).turn({ prompt: "one more, on the oldest", steps: [{ text: "done" }] });
  await persistence.flush();
  await store.close();

  const text = await bothWays(["sessions"]);
  expect(text.indexed).toBe(text.scanned);
  expect(text.indexed).toMatch(/\nfirst +\S+ +3 +\S+ +"one more, on the oldest"\n/);

  const resumed = await keelson(home, ["resume", "--last", "and again"]);
  expect(resumed.code).toBe(0);
  expect(resumed.stderr).toContain("keelson: session first turn 4 completed");
}, 60_000);

it("a garbled index is rebuilt: the same rows", async () => {
  await writeFile(join(sessions, SESSION_INDEX_FILE), '{"format":"keelson-session-index","version":2,"coun');
  const text = await bothWays(["sessions"]);
  expect(text.indexed).toBe(text.scanned);
  expect(text.indexed.trimEnd().split("\n")).toHaveLength(4);
}, 60_000);
