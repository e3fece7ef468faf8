// `keelson sessions` with its kept listing (src/cli/sessions-listing.ts, decision record 0031):
// byte for byte what the full read (`KEELSON_SESSION_INDEX=off`) prints, through every kind of
// change — nothing changed, a new turn, a new session, a removed log, a log replaced by a corrupt
// file or by a newer Keelson's, an edited or garbled listing, one of another render, two
// listings at once — with hostile text escaped; and the kept rows are really patched, not
// rendered again (a row planted in the kept listing survives a change to another session).
import { createHash, randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { open, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { listingKey } from "../../src/cli/listing-key.js";
import { readListing, writeListing } from "../../src/cli/sessions-listing.js";
import { Session } from "../../src/session/index.js";
import { JsonlSessionStore, SESSION_INDEX_DIR } from "../../src/store/index.js";
import { JOURNAL_FILE } from "../../src/store/session-index-journal.js";
import { LogDriver, twoTurnLog } from "../support/builders.js";
import { storeSession } from "../support/store-contract.js";
import { keelson, tempHome } from "./run-keelson.js";

let home: string;
let sessions: string;
let listingFile: string;
const OFF = { KEELSON_SESSION_INDEX: "off" };
const HOSTILE = "evil\u001b]0;pwned\u0007\u202e";

async function create(id: string, createdAt: number, cwd = home): Promise<void> {
  const store = new JsonlSessionStore({ root: sessions });
  const session = twoTurnLog(Session.create({ id, createdAt, cwd }, { clock: () => createdAt }));
  await storeSession(store, session);
  await store.release(id);
  await store.close();
}

async function oneMoreTurn(id: string, prompt: string): Promise<void> {
  const store = new JsonlSessionStore({ root: sessions });
  const { session } = await store.load(id);
  const persistence = store.attach(session);
  new LogDriver(session).turn({ prompt, steps: [{ text: "done" }] });
  await persistence.flush();
  await store.release(id);
  await store.close();
}

/** `keelson sessions` with the kept listing; expects it to be what the full read prints. */
async function listed(): Promise<string> {
  const indexed = await keelson(home, ["sessions"]);
  const scanned = await keelson(home, ["sessions"], OFF);
  expect(scanned).toMatchObject({ code: 0, stderr: "" });
  expect(indexed).toMatchObject({ code: 0, stdout: scanned.stdout, stderr: "" });
  expect(indexed.stdout).not.toContain("\u001b"); // escaped, kept or not
  return indexed.stdout;
}

const kept = async (): Promise<string | undefined> =>
  (await readListing(listingFile, await renderTag(), await key()))?.generation;

/** The sealing key the CLI made in this home (its first listing made it). */
const key = async (): Promise<Buffer> => (await listingKey({ home }))!;

/** The render tag of the kept listing (read from its first line: the test does not compute it). */
const renderTag = async (): Promise<string> =>
  JSON.parse((await readFile(listingFile, "utf8")).split("\n")[0]!).render as string;

beforeAll(async () => {
  home = await tempHome();
  sessions = join(home, "sessions");
  listingFile = join(sessions, SESSION_INDEX_DIR, "listing");
  await create("first", 1_700_000_000_000);
  await create("second", 1_700_000_001_000, join(home, HOSTILE));
  await create("third", 1_700_000_001_000); // the same created time as second: by file name
});
afterAll(() => rm(home, { recursive: true, force: true }));

it("lists what the full read lists through every kind of change, escaped", async () => {
  await listed();
  const generation = await kept();
  expect(generation).toMatch(/^[0-9a-f]{16}$/);
  const before = await readFile(listingFile);
  await listed(); // nothing changed: the kept listing as it was
  expect(await readFile(listingFile)).toEqual(before);

  await oneMoreTurn("second", `again ${HOSTILE}`);
  expect(await listed()).toMatch(
    /\nsecond .*evil\\x1b\]0;pwned\\x07\\u\{202e\} +"again evil\\u001b\]0;pwned\\u0007\\u\{202e\}"\n/,
  );
  expect(await kept()).not.toBe(generation);

  await create("zero", 1_600_000_000_000); // sorts first
  await listed();
  await rm(join(sessions, "first.jsonl"));
  await listed();

  // Replaced by a corrupt file, then by a newer Keelson's log (each announced as a writer would).
  const announce = async (id: string): Promise<void> => {
    const handle = await open(join(sessions, JOURNAL_FILE), constants.O_WRONLY | constants.O_APPEND);
    await handle.write(`${id}.jsonl\n`);
    await handle.close();
  };
  const third = await readFile(join(sessions, "third.jsonl"), "utf8");
  await writeFile(join(sessions, "third.jsonl"), "{ not a log");
  await announce("third");
  expect(await listed()).toMatch(/\nthird\.jsonl +unreadable: /);
  const [meta, ...rest] = third.split("\n");
  await writeFile(
    join(sessions, "third.jsonl"),
    [JSON.stringify({ ...JSON.parse(meta!), version: 99 }), ...rest].join("\n"),
  );
  await announce("third");
  await listed();
  await listed();
  // A foreign file under a new name.
  await writeFile(join(sessions, `${HOSTILE}.jsonl`), "not a log\n");
  await listed();
}, 120_000);

it("kept rows are patched, not rendered again; an edited, garbled or other-render listing is rendered in full", async () => {
  await listed();
  const listing = await readListing(listingFile, await renderTag(), await key());
  // Plant a row text the full render would never print, sealed with this user's key: the kept rows are trusted.
  const planted = Buffer.from(listing!.body.toString("utf8").replace(/^zero .*$/m, "zero PLANTED"));
  const keep = { count: listing!.count, keys: [listing!.keys] };
  await writeListing(
    listingFile,
    { render: await renderTag(), generation: listing!.generation, ...keep, body: [planted] },
    await key(),
  );
  await oneMoreTurn("second", "patched");
  const patched = await keelson(home, ["sessions"]);
  expect(patched.stdout).toContain("\nzero PLANTED\n");
  expect(patched.stdout).toMatch(/\nsecond .*"patched"\n/);

  // The same planted row with raw escape sequences, by someone without the key (a shared
  // sessions directory): a plain digest of the rows, as anyone can compute it, or another key.
  const sealed = await readListing(listingFile, await renderTag(), await key());
  const hostile = Buffer.from(sealed!.body.toString("utf8").replace(/^zero .*$/m, `zero ${HOSTILE}`));
  const rest = Buffer.concat([sealed!.keys, hostile]);
  const facts = JSON.parse((await readFile(listingFile, "utf8")).split("\n")[0]!) as Record<string, unknown>;
  const digest = (hash: string): string => createHash(hash).update(rest).digest("hex");
  const forged = { ...facts, digest: digest("sha1"), seal: digest("sha256") }; // what an unkeyed check could accept
  await writeFile(listingFile, Buffer.concat([Buffer.from(`${JSON.stringify(forged)}\n`), rest]));
  expect(await listed()).not.toContain("pwned\u0007"); // rendered in full, byte for byte the full read's
  const keep2 = { count: sealed!.count, keys: [sealed!.keys], body: [hostile] };
  await writeListing(
    listingFile,
    { render: await renderTag(), generation: sealed!.generation, ...keep2 },
    randomBytes(32),
  );
  await listed();

  // Another render's listing (same generation, valid seal) is not used.
  const now = await readListing(listingFile, await renderTag(), await key());
  const same = { count: now!.count, keys: [now!.keys], body: [now!.body] };
  await writeListing(listingFile, { render: "another", generation: now!.generation, ...same }, await key());
  await listed();
  // Edited by hand (digest no longer matches), then garbled.
  const text = await readFile(listingFile, "utf8");
  await writeFile(listingFile, text.replace("zero PLANTED", "zero EDITED!"));
  expect(await listed()).not.toContain("EDITED");
  await writeFile(listingFile, "\u0000garbage");
  await listed();
  expect(await kept()).toMatch(/^[0-9a-f]{16}$/);
}, 120_000);

it("two listings at once: both print the full read's rows and leave a whole listing", async () => {
  await oneMoreTurn("zero", "both at once");
  const scanned = await keelson(home, ["sessions"], OFF);
  const both = await Promise.all([keelson(home, ["sessions"]), keelson(home, ["sessions"])]);
  for (const r of both) expect(r).toMatchObject({ code: 0, stdout: scanned.stdout, stderr: "" });
  expect(await kept()).toMatch(/^[0-9a-f]{16}$/);
  await listed();
}, 120_000);
