// The JSONL store's session summary index (src/store/session-index*.ts, issue #20): listings
// read only the logs whose file changed since the last listing; the index is rebuilt where it is
// missing, torn, foreign or stale, and never makes a listing differ from what the logs say.
// Log reads are counted through an injected file system (every `open` of a `*.jsonl` file).
import * as nodeFs from "node:fs/promises";
import { basename, join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { forkSession, Session } from "../../src/session/index.js";
import {
  JsonlSessionStore,
  type ListedLog,
  SESSION_INDEX_DIR,
  SESSION_INDEX_FILE,
  StoreError,
  type StoreFileSystem,
} from "../../src/store/index.js";
import { LogDriver, newSession, twoTurnLog } from "../support/builders.js";
import { storeSession } from "../support/store-contract.js";
import { type TempJsonlRoot, tempJsonlRoot } from "./jsonl-harness.js";

let dir: TempJsonlRoot;
beforeEach(async () => {
  dir = await tempJsonlRoot();
});
afterEach(async () => {
  await dir.cleanup();
});

const indexFile = (): string => join(dir.root, SESSION_INDEX_FILE);

/** A file system that records the name of every `*.jsonl` file opened (a log read or peeked) and stat'ed. */
function countingFs(): { fs: StoreFileSystem; opened: string[]; statted: string[] } {
  const opened: string[] = [];
  const statted: string[] = [];
  const fs: StoreFileSystem = {
    ...nodeFs,
    stat: ((path: Parameters<typeof nodeFs.stat>[0], ...rest: unknown[]) => {
      const name = basename(String(path));
      if (name.endsWith(".jsonl")) statted.push(name);
      return (nodeFs.stat as (...a: unknown[]) => ReturnType<typeof nodeFs.stat>)(path, ...rest);
    }) as typeof nodeFs.stat,
    open: ((path: Parameters<typeof nodeFs.open>[0], ...rest: unknown[]) => {
      const name = basename(String(path));
      if (name.endsWith(".jsonl")) opened.push(name);
      return (nodeFs.open as (...a: unknown[]) => ReturnType<typeof nodeFs.open>)(path, ...rest);
    }) as typeof nodeFs.open,
  };
  return { fs, opened, statted };
}

/** A fresh store (no load cache) over the dir, listing through a counting file system. */
async function listLogsCounted(): Promise<{ rows: ListedLog[]; opened: string[] }> {
  const { fs, opened } = countingFs();
  const rows = await dir.open(fs).listLogs();
  return { rows, opened: [...new Set(opened)].sort() };
}

/** Stores `session`, flushed and released. */
async function stored(session: Session, store: JsonlSessionStore = dir.open()): Promise<Session> {
  await storeSession(store, session);
  await store.release(session.id);
  return session;
}

/** One more turn on stored session `id`, through a writable load. */
async function oneMoreTurn(id: string, prompt: string): Promise<void> {
  const store = dir.open();
  const { session } = await store.load(id);
  const persistence = store.attach(session);
  new LogDriver(session).turn({ prompt, steps: [{ text: `re: ${prompt}` }] });
  await persistence.flush();
  persistence.dispose();
  await store.release(id);
}

/** The rows as plain values (a problem as its code and message). */
const plain = (rows: readonly ListedLog[]): unknown[] =>
  rows.map((r) =>
    r.kind === "session"
      ? r
      : {
          name: r.name,
          code: r.error instanceof StoreError ? r.error.code : "?",
          message: (r.error as Error).message,
        },
  );

/** The rows a store without the index gives (every log read): the truth to compare with. */
const truth = async (): Promise<unknown[]> => plain(await withoutIndex().listLogs());

/** A store that lists without the index (it holds no writer: nothing to close). */
const withoutIndex = (fs?: StoreFileSystem): JsonlSessionStore =>
  new JsonlSessionStore({ root: dir.root, index: false, ...(fs === undefined ? {} : { fs }) });

async function threeSessions(): Promise<void> {
  for (const id of ["a", "b", "c"]) await stored(twoTurnLog(newSession(id)));
}

async function indexEntries(): Promise<Record<string, unknown>[]> {
  return (JSON.parse(await nodeFs.readFile(indexFile(), "utf8")) as { entries: Record<string, unknown>[] }).entries;
}

describe("listings read only the logs that changed", () => {
  test("a second listing reads no log; after one log is appended to, only that one is read", async () => {
    await threeSessions();
    const first = await listLogsCounted();
    expect(first.opened).toEqual(["a.jsonl", "b.jsonl", "c.jsonl"]);
    expect(first.rows.map((r) => (r.kind === "session" ? [r.name, r.digest.turns, r.digest.lastPrompt] : r))).toEqual([
      ["a.jsonl", 2, "Thanks!"],
      ["b.jsonl", 2, "Thanks!"],
      ["c.jsonl", 2, "Thanks!"],
    ]);

    const second = await listLogsCounted();
    expect(second.opened).toEqual([]);
    expect(second.rows).toEqual(first.rows);

    await oneMoreTurn("b", "and one more");
    const third = await listLogsCounted();
    expect(third.opened).toEqual(["b.jsonl"]);
    const b = third.rows.find((r) => r.name === "b.jsonl");
    expect(b).toMatchObject({ kind: "session", digest: { turns: 3, lastPrompt: "and one more", open: false } });
    expect(plain(third.rows)).toEqual(await truth());
  });

  test("list() reads no log once a listing has indexed them, and re-reads only a changed one", async () => {
    await threeSessions();
    const expected = await dir.open().list(); // builds the header part of the index
    const { fs, opened } = countingFs();
    expect(await dir.open(fs).list()).toEqual(expected);
    expect(opened).toEqual([]);

    await oneMoreTurn("a", "again");
    const counted = countingFs();
    const after = await dir.open(counted.fs).list();
    expect(counted.opened).toEqual(["a.jsonl"]);
    expect(after).toEqual(await withoutIndex().list());
  });

  test("list() after `listLogs()` takes the header facts from the digests: no log read", async () => {
    await threeSessions();
    await dir.open().listLogs();
    const { fs, opened } = countingFs();
    const listed = await dir.open(fs).list();
    expect(opened).toEqual([]);
    expect(listed).toEqual(await withoutIndex().list());
  });
});

describe("the index is rebuilt where it disagrees with the files", () => {
  const broken: [string, () => Promise<void>][] = [
    ["deleted", () => nodeFs.rm(indexFile())],
    ["torn", async () => nodeFs.truncate(indexFile(), Math.floor((await nodeFs.stat(indexFile())).size / 2))],
    ["garbage", () => nodeFs.writeFile(indexFile(), "\u0000not json at all\n")],
    ["empty", () => nodeFs.writeFile(indexFile(), "")],
    ["another format", () => nodeFs.writeFile(indexFile(), '{"format":"something-else","entries":[]}\n')],
    [
      "a later index version",
      async () => {
        const index = JSON.parse(await nodeFs.readFile(indexFile(), "utf8")) as Record<string, unknown>;
        await nodeFs.writeFile(indexFile(), JSON.stringify({ ...index, version: 99 }));
      },
    ],
    [
      "for a different size limit",
      async () => {
        const index = JSON.parse(await nodeFs.readFile(indexFile(), "utf8")) as Record<string, unknown>;
        await nodeFs.writeFile(indexFile(), JSON.stringify({ ...index, maxLogBytes: 5 }));
      },
    ],
  ];
  test.each(broken)(
    "%s: every log is read again, the rows are the logs', and a whole index is written",
    async (_, breakIt) => {
      await threeSessions();
      const before = await listLogsCounted();
      await breakIt();
      const after = await listLogsCounted();
      expect(after.opened).toEqual(["a.jsonl", "b.jsonl", "c.jsonl"]);
      expect(after.rows).toEqual(before.rows);
      expect((await indexEntries()).map((e) => e.name).sort()).toEqual(["a.jsonl", "b.jsonl", "c.jsonl"]);
      expect((await listLogsCounted()).opened).toEqual([]);
    },
  );

  test("a malformed entry is dropped and its log alone re-read; a forged digest for another identity is not used", async () => {
    await threeSessions();
    await listLogsCounted();
    const index = JSON.parse(await nodeFs.readFile(indexFile(), "utf8")) as { entries: Record<string, unknown>[] };
    for (const entry of index.entries) {
      if (entry.name === "a.jsonl") entry.size = "twelve"; // malformed
      if (entry.name === "b.jsonl") {
        // well-formed, but not b.jsonl's identity: as if b had been rewritten since
        entry.size = (entry.size as number) + 1;
        entry.digest = { ...(entry.digest as object), turns: 99, lastPrompt: "forged" };
      }
    }
    await nodeFs.writeFile(indexFile(), JSON.stringify(index));
    const after = await listLogsCounted();
    expect(after.opened).toEqual(["a.jsonl", "b.jsonl"]);
    expect(plain(after.rows)).toEqual(await truth());
    expect(after.rows.find((r) => r.name === "b.jsonl")).toMatchObject({ digest: { turns: 2, lastPrompt: "Thanks!" } });
  });

  test("a new session appears and a deleted log disappears, from the listings and from the index", async () => {
    await threeSessions();
    await listLogsCounted();
    await dir.open().list();
    await nodeFs.rm(dir.fileOf("b"));
    await stored(twoTurnLog(newSession("d")));
    const after = await listLogsCounted();
    expect(after.opened).toEqual(["d.jsonl"]);
    expect(after.rows.map((r) => r.name)).toEqual(["a.jsonl", "c.jsonl", "d.jsonl"]);
    expect((await dir.open().list()).map((s) => s.id)).toEqual(["a", "c", "d"]);
    expect((await indexEntries()).map((e) => e.name).sort()).toEqual(["a.jsonl", "c.jsonl", "d.jsonl"]);
  });

  test("entries are kept newest first (by the log's mtime); list() stays oldest first", async () => {
    for (const [id, createdAt] of [
      ["a", 3000],
      ["b", 1000],
      ["c", 2000],
    ] as const)
      await stored(twoTurnLog(Session.create({ id, createdAt, cwd: "/work" }, { clock: () => createdAt })));
    // Written last: b, then a, then c.
    for (const [id, seconds] of [
      ["c", 1_700_000_100],
      ["a", 1_700_000_200],
      ["b", 1_700_000_300],
    ] as const)
      await nodeFs.utimes(dir.fileOf(id), seconds, seconds);
    const listed = await dir.open().list();
    expect(listed.map((s) => [s.id, s.updatedAt])).toEqual([
      ["b", 1_700_000_300_000],
      ["c", 1_700_000_100_000],
      ["a", 1_700_000_200_000],
    ]);
    expect((await indexEntries()).map((e) => e.name)).toEqual(["b.jsonl", "a.jsonl", "c.jsonl"]);
  });
});

describe("what a row depends on", () => {
  test("a fork stored by reference turns unreadable when its parent's log goes, though its own file did not change", async () => {
    const store = dir.open();
    const parent = await stored(twoTurnLog(newSession("parent")), store);
    const loadedParent = (await store.load("parent", { readOnly: true })).session;
    const child = forkSession(loadedParent, { id: "child" });
    await store.create(child.header, child.events);
    await store.release("child");
    expect(JSON.parse((await dir.bytesOf("child")).toString("utf8").split("\n")[0]!)).toMatchObject({ version: 2 });

    const first = await listLogsCounted();
    expect(first.rows.find((r) => r.name === "child.jsonl")).toMatchObject({
      kind: "session",
      digest: { parentSession: "parent", turns: parent.lastTurn },
    });
    expect((await listLogsCounted()).opened).toEqual([]);

    const parentBytes = await dir.bytesOf("parent");
    await nodeFs.rm(dir.fileOf("parent"));
    const orphaned = await listLogsCounted();
    const row = orphaned.rows.find((r) => r.name === "child.jsonl");
    expect(row?.kind).toBe("unreadable");
    expect((row as { error: StoreError }).error.code).toBe("seed-unavailable");
    expect(plain(orphaned.rows)).toEqual(await truth());
    expect((await listLogsCounted()).opened).toEqual([]); // the verdict is kept while nothing changes

    await nodeFs.writeFile(dir.fileOf("parent"), parentBytes);
    const restored = await listLogsCounted();
    expect(restored.rows.find((r) => r.name === "child.jsonl")).toMatchObject({ kind: "session" });
    expect(plain(restored.rows)).toEqual(await truth());
  });

  test("a corrupt log's verdict is kept until it changes; a newer Keelson's log is read on every listing", async () => {
    await stored(twoTurnLog(newSession("good")));
    const lines = (await dir.bytesOf("good")).toString("utf8").split("\n");
    const header = JSON.parse(lines[0]!) as Record<string, unknown>;
    await nodeFs.writeFile(
      dir.fileOf("broken"),
      [JSON.stringify({ ...header, id: "broken" }), lines[1], "{not json", lines[2], ""].join("\n"),
    );
    await nodeFs.writeFile(dir.fileOf("newer"), `${JSON.stringify({ ...header, id: "newer", version: 3 })}\n`);
    const first = await listLogsCounted();
    expect(plain(first.rows)).toMatchObject([
      { name: "broken.jsonl", code: "corrupt" },
      { kind: "session", name: "good.jsonl" },
      { name: "newer.jsonl", code: "newer-version" },
    ]);
    const second = await listLogsCounted();
    expect(second.opened).toEqual(["newer.jsonl"]);
    expect(plain(second.rows)).toEqual(plain(first.rows));
    const entries = await indexEntries();
    expect(entries.find((e) => e.name === "broken.jsonl")).toMatchObject({ problem: { code: "corrupt", line: 3 } });
    expect(entries.find((e) => e.name === "newer.jsonl")).not.toHaveProperty("problem");
  });
});

describe("sharing and failing", () => {
  test("four stores listing at once (as four processes would) leave one whole index and no temp file", async () => {
    await threeSessions();
    const expected = await truth();
    const results = await Promise.all([1, 2, 3, 4].map(() => dir.open().listLogs()));
    for (const rows of results) expect(plain(rows)).toEqual(expected);
    expect((await nodeFs.readdir(dir.root)).sort()).toEqual([SESSION_INDEX_DIR, "a.jsonl", "b.jsonl", "c.jsonl"]);
    expect(await nodeFs.readdir(join(dir.root, SESSION_INDEX_DIR))).toEqual([basename(SESSION_INDEX_FILE)]);
    expect((await listLogsCounted()).opened).toEqual([]);
  });

  test("index: false reads every log on every listing and writes no index", async () => {
    await threeSessions();
    const { fs, opened } = countingFs();
    const store = withoutIndex(fs);
    await store.listLogs();
    await store.list();
    expect(opened.filter((n) => n === "a.jsonl").length).toBeGreaterThanOrEqual(2);
    expect(await nodeFs.readdir(dir.root)).not.toContain(SESSION_INDEX_DIR);
  });

  test("an index that cannot be written or read (a directory in its place) costs a full read, never the listing", async () => {
    await threeSessions();
    await nodeFs.mkdir(indexFile(), { recursive: true });
    const expected = await truth();
    for (let i = 0; i < 2; i++) {
      const { rows, opened } = await listLogsCounted();
      expect(plain(rows)).toEqual(expected);
      expect(opened).toEqual(["a.jsonl", "b.jsonl", "c.jsonl"]);
    }
    expect((await nodeFs.readdir(dir.root)).sort()).toEqual([SESSION_INDEX_DIR, "a.jsonl", "b.jsonl", "c.jsonl"]);
  });

  test("a failing index write leaves no temp file and the listing stands", async () => {
    await threeSessions();
    const failing: StoreFileSystem = {
      ...nodeFs,
      rename: async () => {
        throw Object.assign(new Error("EROFS: read-only file system, rename"), { code: "EROFS" });
      },
    };
    expect(plain(await dir.open(failing).listLogs())).toEqual(await truth());
    expect((await nodeFs.readdir(dir.root)).sort()).toEqual([SESSION_INDEX_DIR, "a.jsonl", "b.jsonl", "c.jsonl"]);
    expect(await nodeFs.readdir(join(dir.root, SESSION_INDEX_DIR))).toEqual([]);
  });
});

describe("an unchanged sessions directory", () => {
  const PAST = new Date("2024-01-01T00:00:00Z");
  /** Lists once (the index's directory is created), backdates the sessions directory, lists again: the index records it. */
  async function settle(): Promise<void> {
    await dir.open().listLogs();
    await nodeFs.utimes(dir.root, PAST, PAST);
    await dir.open().listLogs();
  }

  test("spares the stat of every log not locked by a writer; a locked one is stat'ed and its change seen", async () => {
    await threeSessions();
    const writer = dir.open();
    const { session } = await writer.load("b"); // b.lock now exists
    await settle();

    const quiet = countingFs();
    const rows = await dir.open(quiet.fs).listLogs();
    expect([...new Set(quiet.statted)].sort()).toEqual(["b.jsonl"]);
    expect(quiet.opened).toEqual([]);
    expect(plain(rows)).toEqual(await truth());

    // The writer appends: the directory does not change, but b is locked, so it is stat'ed and re-read.
    const persistence = writer.attach(session);
    new LogDriver(session).turn({ prompt: "while listed", steps: [{ text: "ok" }] });
    await persistence.flush();
    const after = await listLogsCounted();
    expect(after.opened).toEqual(["b.jsonl"]);
    expect(after.rows.find((r) => r.name === "b.jsonl")).toMatchObject({
      digest: { turns: 3, lastPrompt: "while listed" },
    });
    await writer.release("b");
  });

  test("a change to the directory (a log created, a lock released) makes the next listing stat every log again", async () => {
    await threeSessions();
    await settle();
    await oneMoreTurn("c", "released since"); // its lock came and went: the directory's mtime moved
    const counted = countingFs();
    const rows = await dir.open(counted.fs).listLogs();
    expect([...new Set(counted.statted)].sort()).toEqual(["a.jsonl", "b.jsonl", "c.jsonl"]);
    expect(counted.opened).toEqual(["c.jsonl"]);
    expect(rows.find((r) => r.name === "c.jsonl")).toMatchObject({
      digest: { turns: 3, lastPrompt: "released since" },
    });
    expect(plain(rows)).toEqual(await truth());
  });

  test("a directory changed within the last 2 s is not trusted by the next listing (its mtime may not move again)", async () => {
    await threeSessions(); // the directory was just written
    await dir.open().listLogs();
    const counted = countingFs();
    await dir.open(counted.fs).listLogs();
    expect([...new Set(counted.statted)].sort()).toEqual(["a.jsonl", "b.jsonl", "c.jsonl"]);
  });
});
