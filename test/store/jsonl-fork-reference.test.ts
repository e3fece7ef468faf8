// Fork by reference (issue #13, docs/decisions/0009): a fork of a log the JSONL store holds is
// written as its header line alone — log version 2 with `seedFrom {session, bytes, sha256}` —
// and loads, in this store or any other, exactly as the in-memory fork; a missing or changed
// source is refused naming both files, and nothing of the parent is ever written.
import { createHash } from "node:crypto";
import { readFile, rm, truncate, writeFile } from "node:fs/promises";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { verifyLog } from "../../src/reconstruct/index.js";
import { forkSession, type Session } from "../../src/session/index.js";
import type { JsonlSessionStore } from "../../src/store/index.js";
import { LogDriver, newSession, twoTurnLog } from "../support/builders.js";
import { storeSession } from "../support/store-contract.js";
import { expectStoreError } from "../support/store-expect.js";
import { type TempJsonlRoot, tempJsonlRoot } from "./jsonl-harness.js";

let dir: TempJsonlRoot;
beforeEach(async () => {
  dir = await tempJsonlRoot();
});
afterEach(async () => {
  await dir.cleanup();
});

const sha256 = (bytes: Buffer): string => createHash("sha256").update(bytes).digest("hex");

async function headerOf(id: string): Promise<Record<string, unknown>> {
  const bytes = await dir.bytesOf(id);
  return JSON.parse(bytes.toString("utf8", 0, bytes.indexOf(0x0a))) as Record<string, unknown>;
}

async function lineCount(id: string): Promise<number> {
  return (await dir.bytesOf(id)).toString("utf8").split("\n").length - 1;
}

/** Stores `session` through `store` and releases it (the store then holds it in its load cache). */
async function stored(store: JsonlSessionStore, session: Session): Promise<Session> {
  await storeSession(store, session);
  await store.release(session.id);
  return (await store.load(session.id, { readOnly: true })).session;
}

/** Forks `parent` through `store` (as `forkAgent` does), runs one more turn on the child, releases it. */
async function forkAndTurn(store: JsonlSessionStore, parent: Session, id: string, atSeq?: number): Promise<Session> {
  const child = forkSession(parent, { id, ...(atSeq === undefined ? {} : { atSeq }) });
  await store.create(child.header, child.events);
  const persistence = store.attach(child);
  new LogDriver(child).turn({ prompt: `more on ${id}`, steps: [{ text: `answer on ${id}` }] });
  await persistence.flush();
  persistence.dispose();
  await store.release(id);
  return child;
}

async function expectLoadsEqual(child: Session): Promise<void> {
  const fresh = dir.open(); // no cache: reads the child and its sources from disk
  const loaded = await fresh.load(child.id, { readOnly: true });
  expect(loaded.session.header).toEqual(child.header);
  expect(loaded.session.events).toEqual(child.events);
  expect(loaded.session.deriveMessages()).toEqual(child.deriveMessages());
  expect(verifyLog(loaded.session.events).ok).toBe(true);
  expect(loaded).toMatchObject({ repaired: [], droppedBytes: 0, needsRepair: false });
}

describe("a fork of a log the store holds is written as a reference", () => {
  test("the child's file is its header line (version 2, seedFrom) and its own lines; it loads equal elsewhere", async () => {
    const store = dir.open();
    const parent = await stored(store, twoTurnLog(newSession("parent")));
    const parentBytes = await dir.bytesOf("parent");
    const child = await forkAndTurn(store, parent, "child");

    const header = await headerOf("child");
    expect(header).toMatchObject({
      format: "keelson-session",
      version: 2,
      id: "child",
      parentSession: "parent",
      seedLength: parent.length,
      seedFrom: { session: "parent", bytes: parentBytes.length, sha256: sha256(parentBytes) },
    });
    expect(Object.keys(header).slice(0, 3)).toEqual(["format", "version", "id"]);
    const own = child.length - parent.length;
    expect(await lineCount("child")).toBe(1 + own); // no line of the parent copied
    expect((await dir.bytesOf("child")).toString("utf8")).not.toContain("buy milk");
    expect(await dir.bytesOf("parent")).toEqual(parentBytes); // the parent is never written
    await expectLoadsEqual(child);
  });

  test("a fork at an earlier turn/end references the prefix that holds it (hash of those bytes only)", async () => {
    const store = dir.open();
    const parent = await stored(store, twoTurnLog(newSession("parent")));
    const firstTurnEnd = parent.events.findIndex((e) => e.type === "turn/end");
    const child = await forkAndTurn(store, parent, "early", firstTurnEnd);
    const parentBytes = await dir.bytesOf("parent");
    const bytes =
      parentBytes
        .toString("utf8")
        .split("\n")
        .slice(0, firstTurnEnd + 2)
        .join("\n").length + 1;
    expect(await headerOf("early")).toMatchObject({
      seedLength: firstTurnEnd + 1,
      seedFrom: { session: "parent", bytes, sha256: sha256(parentBytes.subarray(0, bytes)) },
    });
    await expectLoadsEqual(child);
  });

  test("forks of forks: at the end of a child it references the child; inside the child's seed, the grandparent", async () => {
    const store = dir.open();
    const parent = await stored(store, twoTurnLog(newSession("gp")));
    await forkAndTurn(store, parent, "c1");
    const c1 = (await store.load("c1", { readOnly: true })).session;
    const c2 = await forkAndTurn(store, c1, "c2");
    expect(await headerOf("c2")).toMatchObject({ parentSession: "c1", seedFrom: { session: "c1" } });
    const firstTurnEnd = c1.events.findIndex((e) => e.type === "turn/end");
    const c3 = await forkAndTurn(store, c1, "c3", firstTurnEnd);
    expect(await headerOf("c3")).toMatchObject({ parentSession: "c1", seedFrom: { session: "gp" } });
    await expectLoadsEqual(c2);
    await expectLoadsEqual(c3);
    expect(await lineCount("c2")).toBe(1 + (c2.length - c1.length));
  });

  test("the parent goes on after the fork: the child still loads (its prefix never changes)", async () => {
    const store = dir.open();
    const parent = await stored(store, twoTurnLog(newSession("parent")));
    const child = await forkAndTurn(store, parent, "child");
    const { session: again } = await store.load("parent");
    const persistence = store.attach(again);
    new LogDriver(again).turn({ prompt: "later", steps: [{ text: "later still" }] });
    await persistence.flush();
    await store.release("parent");
    await expectLoadsEqual(child);
  });

  test("a writable load of a crashed child repairs the child's file only", async () => {
    const store = dir.open();
    const parent = await stored(store, twoTurnLog(newSession("parent")));
    const child = forkSession(parent, { id: "crashed" });
    await store.create(child.header, child.events);
    const persistence = store.attach(child);
    new LogDriver(child).openTurn("Read a.", [], [{ name: "read", args: '{"path":"a"}' }]);
    await persistence.flush();
    persistence.dispose();
    await store.release("crashed");
    const parentBytes = await dir.bytesOf("parent");

    const fresh = dir.open();
    const loaded = await fresh.load("crashed");
    expect(loaded.repaired.length).toBeGreaterThan(0);
    expect(loaded.session.openTurn).toBeNull();
    await fresh.release("crashed");
    expect(await dir.bytesOf("parent")).toEqual(parentBytes);
    const reread = await dir.open().load("crashed", { readOnly: true });
    expect(reread.session.events).toEqual(loaded.session.events);
    expect(reread.session.events.slice(0, parent.length)).toEqual(parent.events);
  });

  test("a torn final line of the child is dropped, as in any log", async () => {
    const store = dir.open();
    const parent = await stored(store, twoTurnLog(newSession("parent")));
    const child = await forkAndTurn(store, parent, "child");
    await writeFile(dir.fileOf("child"), Buffer.concat([await dir.bytesOf("child"), Buffer.from('{"seq":')]));
    const loaded = await dir.open().load("child", { readOnly: true });
    expect(loaded.droppedBytes).toBe(7);
    expect(loaded.session.events).toEqual(child.events);
  });

  test("list() shows the child with its parent", async () => {
    const store = dir.open();
    const parent = await stored(store, twoTurnLog(newSession("parent")));
    await forkAndTurn(store, parent, "child");
    const summaries = await dir.open().list();
    expect(summaries.map((s) => [s.id, s.parentSession])).toEqual([
      ["parent", undefined],
      ["child", "parent"],
    ]);
  });

  test("a seed this store does not hold is copied (a version-1 log with the seed's lines)", async () => {
    const parent = await stored(dir.open(), twoTurnLog(newSession("parent")));
    const child = forkSession(parent, { id: "copied" });
    const other = dir.open(); // never loaded the parent
    await other.create(child.header, child.events);
    await other.release("copied");
    expect(await headerOf("copied")).toMatchObject({ version: 1, parentSession: "parent" });
    expect(await headerOf("copied")).not.toHaveProperty("seedFrom");
    expect(await lineCount("copied")).toBe(1 + parent.length);
  });

  test("a seed that is not the parent's events (same length, other content) is copied", async () => {
    const store = dir.open();
    await stored(store, twoTurnLog(newSession("parent")));
    const lookalike = twoTurnLog(newSession("lookalike"));
    const child = forkSession(lookalike, { id: "liar" });
    const header = { ...child.header, parentSession: "parent" };
    await store.create(header, child.events);
    await store.release("liar");
    expect(await headerOf("liar")).toMatchObject({ version: 1, parentSession: "parent" });
    expect(await lineCount("liar")).toBe(1 + lookalike.length);
  });
});

describe("a referencing log whose source is missing or changed is refused, naming both files", () => {
  async function forkedPair(): Promise<{ parentFile: string; childFile: string }> {
    const store = dir.open();
    const parent = await stored(store, twoTurnLog(newSession("parent")));
    await forkAndTurn(store, parent, "child");
    await store.close();
    return { parentFile: dir.fileOf("parent"), childFile: dir.fileOf("child") };
  }

  test("the source file is gone", async () => {
    const { parentFile, childFile } = await forkedPair();
    await rm(parentFile);
    const error = await expectStoreError(() => dir.open().load("child", { readOnly: true }), "seed-unavailable");
    expect(error.message).toContain(childFile);
    expect(error.message).toContain(`in session parent (${parentFile}), which does not exist`);
    expect(error.line).toBe(1);
  });

  test("a byte of the source's prefix changed (still a valid log)", async () => {
    const { parentFile } = await forkedPair();
    const bytes = await readFile(parentFile, "utf8");
    await writeFile(parentFile, bytes.replace("buy milk", "buy silk"));
    await dir.open().load("parent", { readOnly: true }); // the parent itself is a valid log
    const error = await expectStoreError(() => dir.open().load("child"), "seed-unavailable");
    expect(error.message).toContain("changed since the fork (the SHA-256 of its first");
  });

  test("the source was cut short", async () => {
    const { parentFile } = await forkedPair();
    const bytes = await readFile(parentFile);
    const lastLine = bytes.subarray(0, -1).lastIndexOf(0x0a) + 1;
    await truncate(parentFile, lastLine);
    const error = await expectStoreError(() => dir.open().load("child", { readOnly: true }), "seed-unavailable");
    expect(error.message).toContain("does not end its first");
  });

  test("a writable load of such a child takes no lock and writes nothing", async () => {
    const { parentFile, childFile } = await forkedPair();
    await rm(parentFile);
    const before = await readFile(childFile);
    await expectStoreError(() => dir.open().load("child"), "seed-unavailable");
    expect(await readFile(childFile)).toEqual(before);
    await dir
      .open()
      .load("child", { readOnly: true })
      .catch(() => undefined);
    const { readdir } = await import("node:fs/promises");
    expect((await readdir(dir.root)).filter((n) => n.endsWith(".lock"))).toEqual([]);
  });

  // Found from outside: the load cache checked only the child's own file, so the store that had
  // loaded the child kept serving the parent's old events after the parent changed or went away.
  test.each([
    ["removed", (file: string) => rm(file)],
    [
      "changed in place",
      async (file: string) => writeFile(file, (await readFile(file, "utf8")).replace("buy milk", "buy silk")),
    ],
  ])("the source %s after the child was cached: the same store refuses it too", async (_name, change) => {
    const store = dir.open();
    const parent = await stored(store, twoTurnLog(newSession("parent")));
    await forkAndTurn(store, parent, "child");
    for (const readOnly of [true, false]) {
      await store.load("child", { readOnly }); // in the load cache now (a writable load's on release)
      if (!readOnly) await store.release("child");
    }
    await change(dir.fileOf("parent"));
    await expectStoreError(() => store.load("child", { readOnly: true }), "seed-unavailable");
    await expectStoreError(() => store.load("child"), "seed-unavailable");
    await store.close();
  });

  test("a source that grew since (the parent went on) still serves the cached child", async () => {
    const store = dir.open();
    const parent = await stored(store, twoTurnLog(newSession("parent")));
    const child = await forkAndTurn(store, parent, "child");
    await store.load("child", { readOnly: true });
    const reopened = (await store.load("parent")).session;
    const persistence = store.attach(reopened);
    new LogDriver(reopened).turn({ prompt: "the parent goes on", steps: [{ text: "it does" }] });
    await persistence.flush();
    persistence.dispose();
    await store.release("parent");
    expect((await store.load("child", { readOnly: true })).session.events).toEqual(child.events);
    await store.close();
  });

  test("references that loop are corrupt, not followed forever", async () => {
    const { childFile } = await forkedPair();
    const lines = (await readFile(childFile, "utf8")).split("\n");
    const header = JSON.parse(lines[0]!) as Record<string, unknown>;
    const loop = { ...header, seedFrom: { ...(header.seedFrom as object), session: "child" } };
    await writeFile(childFile, [JSON.stringify(loop), ...lines.slice(1)].join("\n"));
    const error = await expectStoreError(() => dir.open().load("child", { readOnly: true }), "corrupt");
    expect(error.message).toContain("loops back");
  });

  test("a version-2 header without a well-formed seedFrom is corrupt on line 1", async () => {
    const { childFile } = await forkedPair();
    const lines = (await readFile(childFile, "utf8")).split("\n");
    const { seedFrom: _s, ...header } = JSON.parse(lines[0]!) as Record<string, unknown>;
    await writeFile(childFile, [JSON.stringify(header), ...lines.slice(1)].join("\n"));
    const error = await expectStoreError(() => dir.open().load("child", { readOnly: true }), "corrupt");
    expect(error.message).toContain("needs a seedFrom object");
    expect(error.line).toBe(1);
  });
});
