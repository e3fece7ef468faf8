// JsonlSessionStore's load cache: a load of a session this store instance last read or wrote,
// whose file is unchanged (same dev, ino, size, mtime), is served from memory — no read, parse
// or validation — and is observably the same as an uncached load; any other writer's change
// makes the next load read the file again.
import { constants } from "node:fs";
import * as nodeFs from "node:fs/promises";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { verifyLog } from "../../src/reconstruct/index.js";
import type { Session } from "../../src/session/index.js";
import { JsonlSessionStore, type LoadedSession, type StoreFileSystem } from "../../src/store/index.js";
import { LogDriver, newSession, sessionWithOpen, twoTurnLog } from "../support/builders.js";
import { expectStoreError } from "../support/store-expect.js";
import { type TempJsonlRoot, tempJsonlRoot } from "./jsonl-harness.js";

/** A file system that counts the calls that read a log: readFile, and open for reading. */
function countingFs(): { fs: StoreFileSystem; reads: () => number } {
  let reads = 0;
  const isReadOnlyOpen = (flags: unknown): boolean =>
    flags === undefined ||
    flags === "r" ||
    (typeof flags === "number" && (flags & (constants.O_WRONLY | constants.O_RDWR)) === 0);
  const fs: StoreFileSystem = {
    ...nodeFs,
    open: ((path: Parameters<typeof nodeFs.open>[0], flags?: Parameters<typeof nodeFs.open>[1], mode?: number) => {
      if (isReadOnlyOpen(flags)) reads++;
      return nodeFs.open(path, flags, mode);
    }) as typeof nodeFs.open,
    readFile: ((...args: Parameters<typeof nodeFs.readFile>) => {
      reads++;
      return nodeFs.readFile(...args);
    }) as typeof nodeFs.readFile,
  };
  return { fs, reads: () => reads };
}

let dir: TempJsonlRoot;
const stores: JsonlSessionStore[] = [];
beforeEach(async () => {
  dir = await tempJsonlRoot();
});
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close().catch(() => undefined);
  await dir.cleanup();
});

function openStore(options: { cacheSessions?: number } = {}): { store: JsonlSessionStore; reads: () => number } {
  const { fs, reads } = countingFs();
  const store = new JsonlSessionStore({ root: dir.root, fs, ...options });
  stores.push(store);
  return { store, reads };
}

/** What an uncached load (a fresh store instance) returns, for comparison. */
async function uncached(id: string): Promise<LoadedSession> {
  const store = new JsonlSessionStore({ root: dir.root, cacheSessions: 0 });
  stores.push(store);
  return store.load(id, { readOnly: true });
}

function expectSameAs(actual: LoadedSession, expected: LoadedSession): void {
  expect(actual.session.header).toEqual(expected.session.header);
  expect(actual.session.events).toEqual(expected.session.events);
  expect(actual.session.deriveMessages()).toEqual(expected.session.deriveMessages());
  expect(verifyLog(actual.session.events)).toEqual(verifyLog(expected.session.events));
  expect(actual.session.openTurn).toBe(expected.session.openTurn);
  expect(actual.droppedBytes).toBe(expected.droppedBytes);
  expect(actual.needsRepair).toBe(expected.needsRepair);
}

/** One more closed turn on `session` (through the store when it is attached). */
const oneMoreTurn = (session: Session): void => {
  new LogDriver(session).turn({ prompt: "again", steps: [{ text: "once more" }] });
};

describe("the JSONL load cache", () => {
  test("a resume after a release reads nothing and equals an uncached load", async () => {
    const { store, reads } = openStore();
    const session = twoTurnLog(newSession("cached"));
    await store.create(session.header, session.events);
    await store.release(session.id);

    const before = reads();
    const first = await store.load("cached");
    expect(reads()).toBe(before);
    expect(first.repaired).toEqual([]);
    const persistence = store.attach(first.session);
    oneMoreTurn(first.session);
    await persistence.flush();
    persistence.dispose();
    await store.release("cached");

    const second = await store.load("cached");
    expect(reads()).toBe(before);
    expect(second.session.length).toBe(first.session.length);
    await store.release("cached");
    const readOnly = await store.load("cached", { readOnly: true });
    expect(reads()).toBe(before);
    expectSameAs(second, await uncached("cached"));
    expectSameAs(readOnly, await uncached("cached"));
  });

  test("a read-only load is cached: the next load of the unchanged file reads nothing", async () => {
    const writer = openStore();
    const session = twoTurnLog(newSession("ro"));
    await writer.store.create(session.header, session.events);
    await writer.store.release(session.id);

    const { store, reads } = openStore();
    await store.load("ro", { readOnly: true });
    const afterFirst = reads();
    expect(afterFirst).toBeGreaterThan(0);
    const again = await store.load("ro", { readOnly: true });
    const writable = await store.load("ro");
    expect(reads()).toBe(afterFirst);
    expectSameAs(again, await uncached("ro"));
    expect(writable.session.events).toEqual(session.events);
  });

  test("a file another store instance appended to is read again, and the load sees the new events", async () => {
    const { store, reads } = openStore();
    const session = twoTurnLog(newSession("shared"));
    await store.create(session.header, session.events);
    await store.release(session.id);

    const other = openStore({ cacheSessions: 0 }).store;
    const loaded = await other.load("shared");
    const persistence = other.attach(loaded.session);
    oneMoreTurn(loaded.session);
    await persistence.flush();
    await other.release("shared");

    const before = reads();
    const reloaded = await store.load("shared", { readOnly: true });
    expect(reads()).toBeGreaterThan(before);
    expect(reloaded.session.length).toBe(loaded.session.length);
    expectSameAs(reloaded, await uncached("shared"));
  });

  test("bytes appended to the file from outside are seen: a torn tail is reported, then truncated by a writable load", async () => {
    const { store, reads } = openStore();
    const session = twoTurnLog(newSession("outside"));
    await store.create(session.header, session.events);
    await store.release(session.id);

    await nodeFs.appendFile(dir.fileOf("outside"), '{"seq":');
    const before = reads();
    const readOnly = await store.load("outside", { readOnly: true });
    expect(reads()).toBeGreaterThan(before);
    expect(readOnly.droppedBytes).toBe(7);
    expectSameAs(readOnly, await uncached("outside"));
    // The cached read-only entry has a torn tail: a writable load reads and truncates it.
    const writable = await store.load("outside");
    expect(writable.droppedBytes).toBe(7);
    await store.release("outside");
    expect((await dir.bytesOf("outside")).toString().endsWith('{"seq":')).toBe(false);
  });

  test("a cached session with an open turn: read-only reports needsRepair from memory; writable loads and repairs durably", async () => {
    const { store, reads } = openStore();
    const session = sessionWithOpen("step");
    await store.create(session.header, session.events);
    await store.release(session.id);

    const before = reads();
    const readOnly = await store.load(session.id, { readOnly: true });
    expect(reads()).toBe(before);
    expect(readOnly.needsRepair).toBe(true);
    expectSameAs(readOnly, await uncached(session.id));

    const writable = await store.load(session.id);
    expect(reads()).toBeGreaterThan(before);
    expect(writable.repaired.length).toBeGreaterThan(0);
    expect(writable.session.openTurn).toBeNull();
    await store.release(session.id);
    const after = await uncached(session.id);
    expect(after.needsRepair).toBe(false);
    expect(after.session.events).toEqual(writable.session.events);
  });

  test("events appended straight to the store (not through the loaded session) are read back from the file", async () => {
    const { store, reads } = openStore();
    const session = twoTurnLog(newSession("direct"));
    await store.create(session.header, session.events.slice(0, 3));
    store.append(session.id, session.events.slice(3));
    await store.release(session.id);

    const before = reads();
    const loaded = await store.load(session.id, { readOnly: true });
    expect(reads()).toBeGreaterThan(before);
    expect(loaded.session.events).toEqual(session.events);
  });

  test("a file replaced by another of the same size (a new inode) is read again", async () => {
    const { store, reads } = openStore();
    const session = twoTurnLog(newSession("replaced"));
    await store.create(session.header, session.events);
    await store.release(session.id);

    const file = dir.fileOf("replaced");
    const original = await dir.bytesOf("replaced");
    const edited = Buffer.from(original.toString().replace("buy milk", "buy eggs"));
    expect(edited.length).toBe(original.length);
    await nodeFs.writeFile(`${file}.new`, edited);
    await nodeFs.rename(`${file}.new`, file);

    const before = reads();
    const loaded = await store.load("replaced", { readOnly: true });
    expect(reads()).toBeGreaterThan(before);
    expect(JSON.stringify(loaded.session.events)).toContain("buy eggs");
    expectSameAs(loaded, await uncached("replaced"));
  });

  test("a writable load from the cache holds the writer lock like any writable load", async () => {
    const { store, reads } = openStore();
    const session = twoTurnLog(newSession("locked"));
    await store.create(session.header, session.events);
    await store.release(session.id);

    const before = reads();
    await store.load("locked");
    expect(reads()).toBe(before);
    await expectStoreError(() => openStore().store.load("locked"), "locked");
    await expectStoreError(() => store.load("locked"), "already-open");
    await store.release("locked");
    await openStore().store.load("locked");
  });

  test("cacheSessions: 0 reads the file on every load, with the same results", async () => {
    const { store, reads } = openStore({ cacheSessions: 0 });
    const session = twoTurnLog(newSession("off"));
    await store.create(session.header, session.events);
    await store.release(session.id);

    let last = reads();
    for (const readOnly of [false, true, true]) {
      const loaded = await store.load("off", { readOnly });
      expect(reads()).toBeGreaterThan(last);
      last = reads();
      expectSameAs({ ...loaded, needsRepair: false }, await uncached("off"));
      await store.release("off");
    }
  });

  test("the cache is bounded by cacheSessions: the least recently used session is read again", async () => {
    const { store, reads } = openStore({ cacheSessions: 1 });
    for (const id of ["a", "b"]) {
      const session = twoTurnLog(newSession(id));
      await store.create(session.header, session.events);
      await store.release(id);
    }
    let before = reads();
    await store.load("b", { readOnly: true });
    expect(reads()).toBe(before);
    await store.load("a", { readOnly: true });
    expect(reads()).toBeGreaterThan(before);
    before = reads();
    await store.load("a", { readOnly: true });
    expect(reads()).toBe(before);
  });
});
