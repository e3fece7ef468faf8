// Fork by reference in PostgreSQL: a fork whose seed is its stored parent's prefix stores no
// event row of the seed (the child row names the parent and seed_length; its own rows start at
// seq seedLength), and loads — in any store, through one recursive query — exactly as the
// in-memory fork. A seed that is not the parent's prefix is stored as a copy, exactly.
import { afterEach, describe, expect, test } from "vitest";
import { verifyLog } from "../../src/reconstruct/index.js";
import { forkSession, type Session } from "../../src/session/index.js";
import type { PostgresSessionStore } from "../../src/store/postgres/index.js";
import { LogDriver, newSession, twoTurnLog } from "../support/builders.js";
import { storeSession } from "../support/store-contract.js";
import { usePgDatabase } from "./postgres-harness.js";

const database = usePgDatabase();
afterEach(async () => {
  await database().closeStores();
  await database().empty();
});

async function rowsOf(id: string): Promise<{ count: number; first: number | null }> {
  const [row] = await database().query<{ count: string; first: string | null }>(
    "SELECT count(*) AS count, min(seq) AS first FROM keelson_events WHERE session_id = $1",
    [id],
  );
  return { count: Number(row!.count), first: row!.first === null ? null : Number(row!.first) };
}

async function seedFromOf(id: string): Promise<{ seed_from: string | null; seed_length: string }> {
  const [row] = await database().query<{ seed_from: string | null; seed_length: string }>(
    "SELECT seed_from, seed_length FROM keelson_sessions WHERE id = $1",
    [id],
  );
  return row!;
}

/** Stores `session` through `store`, releases it, and returns the store's read-only load of it. */
async function stored(store: PostgresSessionStore, session: Session): Promise<Session> {
  await storeSession(store, session);
  await store.release(session.id);
  return (await store.load(session.id, { readOnly: true })).session;
}

/** Forks `parent` through `store` (as `forkAgent` does), runs one more turn on the child, releases it. */
async function forkAndTurn(store: PostgresSessionStore, parent: Session, id: string, atSeq?: number): Promise<Session> {
  const child = forkSession(parent, { id, ...(atSeq === undefined ? {} : { atSeq }) });
  await store.create(child.header, child.events);
  const persistence = store.attach(child);
  new LogDriver(child).turn({ prompt: `more on ${id}`, steps: [{ text: `answer on ${id}` }] });
  await persistence.flush();
  persistence.dispose();
  await store.release(id);
  return child;
}

/** Runs one more turn on stored session `id` through `other` (another writer, as another worker), released. */
async function turnElsewhere(other: PostgresSessionStore, id: string, answer: string): Promise<Session> {
  const { session } = await other.load(id);
  const persistence = other.attach(session);
  new LogDriver(session).turn({ prompt: "elsewhere", steps: [{ text: answer }] });
  await persistence.flush();
  persistence.dispose();
  await other.release(id);
  return session;
}

async function expectLoadsEqual(child: Session): Promise<void> {
  const loaded = await database().open().load(child.id, { readOnly: true });
  expect(loaded.session.header).toEqual(child.header);
  expect(loaded.session.events).toEqual(child.events);
  expect(loaded.session.deriveMessages()).toEqual(child.deriveMessages());
  expect(verifyLog(loaded.session.events).ok).toBe(true);
  expect(loaded).toMatchObject({ repaired: [], droppedBytes: 0, needsRepair: false });
}

describe("a fork of a stored session references its parent instead of copying the seed", () => {
  test("no event row of the seed is stored: the child's rows start at seq seedLength, and it loads equal elsewhere", async () => {
    const store = database().open();
    const parent = await stored(store, twoTurnLog(newSession("parent")));
    const child = await forkAndTurn(store, parent, "child");

    expect(await seedFromOf("child")).toEqual({ seed_from: "parent", seed_length: String(parent.length) });
    expect(await rowsOf("child")).toEqual({ count: child.length - parent.length, first: parent.length });
    expect(await rowsOf("parent")).toEqual({ count: parent.length, first: 0 });
    await expectLoadsEqual(child);
  });

  test("a fork at an earlier turn/end references the parent for that prefix only", async () => {
    const store = database().open();
    const parent = await stored(store, twoTurnLog(newSession("parent")));
    const firstTurnEnd = parent.events.findIndex((e) => e.type === "turn/end");
    const child = await forkAndTurn(store, parent, "early", firstTurnEnd);

    expect(await seedFromOf("early")).toEqual({ seed_from: "parent", seed_length: String(firstTurnEnd + 1) });
    expect((await rowsOf("early")).first).toBe(firstTurnEnd + 1);
    await expectLoadsEqual(child);
  });

  test("forks of forks: at a child's end, and inside the child's own seed, no row is copied at any level", async () => {
    const store = database().open();
    const parent = await stored(store, twoTurnLog(newSession("gp")));
    await forkAndTurn(store, parent, "c1");
    const c1 = (await store.load("c1", { readOnly: true })).session;
    const c2 = await forkAndTurn(store, c1, "c2");
    const firstTurnEnd = c1.events.findIndex((e) => e.type === "turn/end");
    const c3 = await forkAndTurn(store, c1, "c3", firstTurnEnd);
    const c4 = await forkAndTurn(store, (await store.load("c2", { readOnly: true })).session, "c4");

    expect(await seedFromOf("c2")).toEqual({ seed_from: "c1", seed_length: String(c1.length) });
    expect(await seedFromOf("c3")).toEqual({ seed_from: "c1", seed_length: String(firstTurnEnd + 1) });
    const [{ total }] = (await database().query<{ total: string }>("SELECT count(*) AS total FROM keelson_events")) as [
      { total: string },
    ];
    // Every event is stored once, by the session that appended it.
    const own = (s: Session, seed: number): number => s.length - seed;
    expect(Number(total)).toBe(
      parent.length + own(c1, parent.length) + own(c2, c1.length) + own(c3, firstTurnEnd + 1) + own(c4, c2.length),
    );
    for (const s of [c2, c3, c4]) await expectLoadsEqual(s);
  });

  test("the parent goes on after the fork: the child still loads (its prefix never changes)", async () => {
    const store = database().open();
    const parent = await stored(store, twoTurnLog(newSession("parent")));
    const child = await forkAndTurn(store, parent, "child");
    const { session: again } = await store.load("parent");
    const persistence = store.attach(again);
    new LogDriver(again).turn({ prompt: "later", steps: [{ text: "later still" }] });
    await persistence.flush();
    await store.release("parent");
    await expectLoadsEqual(child);
  });

  test("a fork of a session the store loaded is proven by identity: the parent's rows are not read", async () => {
    const store = database().open();
    const parent = await stored(store, twoTurnLog(newSession("parent")));
    // Rows no store wrote: a create that compared rows would now see a mismatch and copy.
    await database().query("UPDATE keelson_events SET line = line || ' ' WHERE session_id = 'parent'");
    const child = forkSession(parent, { id: "by-identity" });
    await store.create(child.header, child.events);

    expect(await seedFromOf("by-identity")).toMatchObject({ seed_from: "parent" });
    expect((await rowsOf("by-identity")).count).toBe(0);
    const copied = forkSession(parent, { id: "by-rows" });
    await database().open().create(copied.header, copied.events); // another store: must compare rows
    expect(await seedFromOf("by-rows")).toMatchObject({ seed_from: null });
  });

  test("a store that never saw the parent checks a copied seed against the parent's rows and references it when equal", async () => {
    const parent = await stored(database().open(), twoTurnLog(newSession("parent")));
    const child = forkSession(parent, { id: "from-elsewhere" });
    const copy = JSON.parse(JSON.stringify(child.events)) as typeof child.events; // equal, not shared
    const other = database().open();
    await other.create(child.header, copy);
    await other.release(child.id);

    expect(await seedFromOf("from-elsewhere")).toMatchObject({ seed_from: "parent" });
    expect((await rowsOf("from-elsewhere")).count).toBe(0);
    await expectLoadsEqual(child);
  });

  test("a seed that is not the parent's prefix is stored as a copy, exactly as given", async () => {
    const store = database().open();
    await stored(store, twoTurnLog(newSession("parent")));
    const impostor = twoTurnLog(newSession("impostor"));
    impostor.append("turn/start", { turn: impostor.lastTurn + 1, trigger: "send" });
    const header = { ...impostor.header, parentSession: "parent", seedLength: impostor.length };
    await store.create(header, impostor.events);
    await store.release(header.id);

    expect(await seedFromOf("impostor")).toEqual({ seed_from: null, seed_length: String(impostor.length) });
    expect(await rowsOf("impostor")).toEqual({ count: impostor.length, first: 0 });
    const loaded = await database().open().load("impostor", { readOnly: true });
    expect(loaded.session.header).toEqual(header);
    expect(loaded.session.events).toEqual(impostor.events);
  });

  test("a writable load of a crashed child repairs the child's rows only", async () => {
    const store = database().open();
    const parent = await stored(store, twoTurnLog(newSession("parent")));
    const child = forkSession(parent, { id: "crashed" });
    await store.create(child.header, child.events);
    const persistence = store.attach(child);
    new LogDriver(child).openTurn("Read a.", [], [{ name: "read", args: '{"path":"a"}' }]);
    await persistence.flush();
    await store.close();

    const loaded = await database().open().load("crashed");
    expect(loaded.repaired.length).toBeGreaterThan(0);
    expect(loaded.session.events).toEqual([...child.events, ...loaded.repaired]);
    expect(await rowsOf("parent")).toEqual({ count: parent.length, first: 0 });
    expect(await rowsOf("crashed")).toEqual({ count: loaded.session.length - parent.length, first: parent.length });
  });
});

describe("a load does not read again what the store already holds", () => {
  // Rows are never updated by Keelson; the tests update them behind the store's back only to
  // show which rows a load read.
  const tamper = (id: string): Promise<unknown> =>
    database().query("UPDATE keelson_events SET line = replace(line, 'Hi', 'Yo') WHERE session_id = $1", [id]);

  test("a session the store wrote or loaded, unchanged since, is shared: no event row is read", async () => {
    const store = database().open();
    const original = await stored(store, twoTurnLog(newSession("known")));
    await tamper("known");

    const again = await store.load("known", { readOnly: true });
    expect(again.session.events).toEqual(original.events);
    expect(again.session.events[0]).toBe(original.events[0]);
    const writable = await store.load("known");
    expect(writable.session.events).toEqual(original.events);
    const persistence = store.attach(writable.session);
    new LogDriver(writable.session).turn({ prompt: "resumed", steps: [{ text: "fine" }] });
    await persistence.flush();
    await store.release("known");
    // Another store reads every row (and so sees the tampering: the shared path is this store's only).
    const elsewhere = await database().open().load("known", { readOnly: true });
    expect(elsewhere.session.length).toBe(writable.session.length);
  });

  test("a session another store appended to since reads the new rows only (a fleet session back from another worker)", async () => {
    const store = database().open();
    const original = await stored(store, twoTurnLog(newSession("moved")));
    const other = database().open();
    const session = await turnElsewhere(other, "moved", "Hi from the other worker");
    await database().query(
      "UPDATE keelson_events SET line = replace(line, 'Hi', 'Yo') WHERE session_id = $1 AND seq < $2",
      ["moved", original.length],
    );

    expect(store.knownLength("moved")).toBe(original.length); // what a fleet worker's preference names
    expect(other.knownLength("moved")).toBe(session.length);
    const loaded = await store.load("moved"); // writable, as a worker's claim loads it
    expect(store.knownLength("moved")).toBe(session.length);
    expect(loaded.session.events).toEqual(session.events); // the tampered rows were not read
    expect(loaded.session.events[0]).toBe(original.events[0]); // its own copy's events, shared
    expect(loaded.session.deriveMessages()).toEqual(session.deriveMessages());
    expect(verifyLog(loaded.session.events).ok).toBe(true);
    await store.release("moved");
  });

  test("the new rows read over a known prefix are validated as a whole log's: a bad one is `corrupt`, named by line", async () => {
    const store = database().open();
    const original = await stored(store, twoTurnLog(newSession("bent")));
    await turnElsewhere(database().open(), "bent", "fine");
    await database().query(
      'UPDATE keelson_events SET line = \'{"not": "an event"}\' WHERE session_id = $1 AND seq = $2',
      ["bent", original.length + 1],
    );

    await expect(store.load("bent", { readOnly: true })).rejects.toMatchObject({
      code: "corrupt",
      line: original.length + 3,
    });
  });

  test("a fork whose parent the store knows reads its own rows only, and loads equal to the in-memory fork", async () => {
    const store = database().open();
    const parent = await stored(store, twoTurnLog(newSession("parent")));
    const child = await forkAndTurn(database().open(), parent, "child"); // written by another store
    await tamper("parent");

    const loaded = await store.load("child", { readOnly: true });
    expect(loaded.session.events).toEqual(child.events);
    expect(loaded.session.events[0]).toBe(parent.events[0]); // the parent's events, shared
    expect(verifyLog(loaded.session.events).ok).toBe(true);
  });
});
