// The JSONL store's session summary index (src/store/session-index*.ts, issue #20): listings
// read only the logs whose file changed since the last listing; the index is rebuilt where it is
// missing, torn, foreign or stale, and never makes a listing differ from what the logs say.
// Log reads are counted through an injected file system (every `open` of a `*.jsonl` file).
import { execFile } from "node:child_process";
import * as nodeFs from "node:fs/promises";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { forkSession, Session } from "../../src/session/index.js";
import {
  JsonlSessionStore,
  type ListedLog,
  moreRecent,
  SESSION_INDEX_DIR,
  SESSION_INDEX_FILE,
  type SessionSummary,
  StoreError,
  type StoreFileSystem,
} from "../../src/store/index.js";
import { readIndex } from "../../src/store/session-index-file.js";
import { FULL_STAT_MS } from "../../src/store/session-index-scan.js";
import { JOURNAL_FILE, ROTATE_BYTES } from "../../src/store/session-index-journal.js";
import { MAX_LOG_BYTES } from "../../src/store/read-log-file.js";
import { LogDriver, newSession, twoTurnLog } from "../support/builders.js";
import { storeSession } from "../support/store-contract.js";
import { oneMoreTurnIn, type TempJsonlRoot, tempJsonlRoot } from "./jsonl-harness.js";
import { compiledScript } from "../../reliability/fixtures/compiled-script.js";

let dir: TempJsonlRoot;
beforeEach(async () => {
  dir = await tempJsonlRoot();
});
afterEach(async () => {
  await dir.cleanup();
});

const indexFile = (): string => join(dir.root, SESSION_INDEX_FILE);
const repoRoot = fileURLToPath(new URL("../..", import.meta.url));
// Spawning node with the tsx loader takes a moment; this bounds a hung child, it is not a wait.
const CHILD_TEST_TIMEOUT_MS = 30_000;

/** Runs a command to its end: exit code and output. */
function run(file: string, args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd: repoRoot }, (error, stdout, stderr) =>
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr }),
    );
  });
}

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

const oneMoreTurn = (id: string, prompt: string): Promise<void> => oneMoreTurnIn(dir, id, prompt);

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

/** The index's entries as the store decodes them, in file order (newest log first). */
async function indexEntries(): Promise<Record<string, unknown>[]> {
  const index = await readIndex(nodeFs, dir.root, MAX_LOG_BYTES);
  index.details();
  return [...index.entries.values()] as unknown as Record<string, unknown>[];
}

/** The index file's three JSON lines (facts, heads, details), to edit by hand. */
async function indexLines(): Promise<Record<string, unknown>[]> {
  const text = await nodeFs.readFile(indexFile(), "utf8");
  return text
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line));
}

async function writeIndexLines(lines: readonly unknown[]): Promise<void> {
  await nodeFs.writeFile(indexFile(), `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
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
        const [facts, ...rest] = await indexLines();
        await writeIndexLines([{ ...facts, version: 99 }, ...rest]);
      },
    ],
    [
      "an index of version 1 (one JSON object)",
      async () => {
        const [facts] = await indexLines();
        await writeIndexLines([{ ...facts, version: 1, entries: [] }]);
      },
    ],
    [
      "for a different size limit",
      async () => {
        const [facts, ...rest] = await indexLines();
        await writeIndexLines([{ ...facts, maxLogBytes: 5 }, ...rest]);
      },
    ],
    [
      "a count that is not its columns' length",
      async () => {
        const [facts, ...rest] = await indexLines();
        await writeIndexLines([{ ...facts, count: 2 }, ...rest]);
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
    const [facts, heads, details] = await indexLines();
    const column = (line: Record<string, unknown> | undefined, name: string): unknown[] => line?.[name] as unknown[];
    const a = column(heads, "names").indexOf("a.jsonl");
    const b = column(heads, "names").indexOf("b.jsonl");
    column(heads, "size")[a] = "twelve"; // malformed
    // well-formed, but not b.jsonl's identity: as if b had been rewritten since
    column(heads, "size")[b] = (column(heads, "size")[b] as number) + 1;
    column(details, "turns")[b] = 99;
    column(details, "prompt")[b] = "forged";
    await writeIndexLines([facts, heads, details]);
    await nodeFs.rm(join(dir.root, JOURNAL_FILE)); // so that every log is stat'ed: identities compared
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
    expect((await nodeFs.readdir(join(dir.root, SESSION_INDEX_DIR))).sort()).toEqual([
      basename(SESSION_INDEX_FILE),
      basename(JOURNAL_FILE),
    ]);
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
    expect(await nodeFs.readdir(join(dir.root, SESSION_INDEX_DIR))).toEqual([basename(JOURNAL_FILE)]);
  });
});

describe("which logs a listing stats (the release journal)", () => {
  /** The `*.jsonl` names a listing through a counting file system stat'ed and opened, and its rows. */
  async function counted(): Promise<{ statted: string[]; opened: string[]; rows: ListedLog[] }> {
    const c = countingFs();
    const rows = await dir.open(c.fs).listLogs();
    return { statted: [...new Set(c.statted)].sort(), opened: [...new Set(c.opened)].sort(), rows };
  }

  test("after a full listing, the next one stats no log; a log released since is stat'ed and re-read alone", async () => {
    await threeSessions();
    expect((await counted()).statted).toEqual(["a.jsonl", "b.jsonl", "c.jsonl"]); // no index yet
    expect((await counted()).statted).toEqual([]);
    await oneMoreTurn("c", "released since"); // its lock came and went; the release was journaled
    const after = await counted();
    expect(after.statted).toEqual(["c.jsonl"]);
    expect(after.opened).toEqual(["c.jsonl"]);
    expect(after.rows.find((r) => r.name === "c.jsonl")).toMatchObject({
      digest: { turns: 3, lastPrompt: "released since" },
    });
    expect(plain(after.rows)).toEqual(await truth());
    expect((await counted()).statted).toEqual([]);
  });

  test(
    "an append by another process is seen by the next listing",
    async () => {
      await threeSessions();
      await dir.open().listLogs();
      await dir.open().list();
      const script = fileURLToPath(new URL("./fixtures/append-turn.ts", import.meta.url));
      const result = await run(process.execPath, [await compiledScript(script), dir.root, "b", "from another process"]);
      expect(result).toMatchObject({ code: 0, stderr: "" });
      const after = await counted();
      expect(after.statted).toEqual(["b.jsonl"]);
      expect(after.rows.find((r) => r.name === "b.jsonl")).toMatchObject({
        digest: { turns: 3, lastPrompt: "from another process" },
      });
      expect(plain(after.rows)).toEqual(await truth());
      const summaries = await dir.open().list();
      expect(summaries).toEqual(await withoutIndex().list());
      expect(summaries.find((s) => s.id === "b")?.updatedAt).toBe(
        Math.floor((await nodeFs.stat(dir.fileOf("b"))).mtimeMs),
      );
    },
    CHILD_TEST_TIMEOUT_MS,
  );

  test("a log locked by a writer is stat'ed on every listing, and its appends seen before the release", async () => {
    await threeSessions();
    const writer = dir.open();
    const { session } = await writer.load("b"); // b.lock now exists
    await dir.open().listLogs();
    const quiet = await counted();
    expect(quiet.statted).toEqual(["b.jsonl"]);
    expect(quiet.opened).toEqual([]);

    const persistence = writer.attach(session);
    new LogDriver(session).turn({ prompt: "while listed", steps: [{ text: "ok" }] });
    await persistence.flush();
    const after = await counted();
    expect(after.opened).toEqual(["b.jsonl"]);
    expect(after.rows.find((r) => r.name === "b.jsonl")).toMatchObject({
      digest: { turns: 3, lastPrompt: "while listed" },
    });
    await writer.release("b");
  });

  const fullStat: [string, () => Promise<void>][] = [
    ["the journal was removed", () => nodeFs.rm(join(dir.root, JOURNAL_FILE))],
    [
      "the journal was replaced by another (another tag)",
      () => nodeFs.writeFile(join(dir.root, JOURNAL_FILE), "keelson-release-journal 0123456789abcdef\n"),
    ],
    ["the journal is garbled", () => nodeFs.writeFile(join(dir.root, JOURNAL_FILE), "c.jsonl\n")],
    [
      "the journal grew past its limit (it is replaced)",
      () => nodeFs.appendFile(join(dir.root, JOURNAL_FILE), `${"x".repeat(ROTATE_BYTES)}\n`),
    ],
    [
      "the last full stat is too old",
      async () => {
        const [facts, ...rest] = await indexLines();
        await writeIndexLines([{ ...facts, verifiedAt: (facts!.verifiedAt as number) - FULL_STAT_MS - 1 }, ...rest]);
      },
    ],
  ];
  test.each(fullStat)("%s: every log is stat'ed (none re-read), and the next listing stats none", async (_, change) => {
    await threeSessions();
    await dir.open().listLogs();
    await change();
    const full = await counted();
    expect(full.statted).toEqual(["a.jsonl", "b.jsonl", "c.jsonl"]);
    expect(full.opened).toEqual([]);
    expect(plain(full.rows)).toEqual(await truth());
    expect((await counted()).statted).toEqual([]);
  });

  test("a release that cannot be journaled removes the journal: the next listing stats every log and sees it", async () => {
    await threeSessions();
    await dir.open().listLogs();
    const full: StoreFileSystem = {
      ...nodeFs,
      open: ((path: Parameters<typeof nodeFs.open>[0], ...rest: unknown[]) => {
        if (String(path).endsWith(JOURNAL_FILE))
          throw Object.assign(new Error("ENOSPC: no space left"), { code: "ENOSPC" });
        return (nodeFs.open as (...a: unknown[]) => ReturnType<typeof nodeFs.open>)(path, ...rest);
      }) as typeof nodeFs.open,
    };
    const store = dir.open(full);
    const { session } = await store.load("a");
    const persistence = store.attach(session);
    new LogDriver(session).turn({ prompt: "not journaled", steps: [{ text: "ok" }] });
    await persistence.flush();
    persistence.dispose();
    await store.release("a");
    expect(await nodeFs.readdir(join(dir.root, SESSION_INDEX_DIR))).toEqual([basename(SESSION_INDEX_FILE)]);
    const after = await counted();
    expect(after.statted).toEqual(["a.jsonl", "b.jsonl", "c.jsonl"]);
    expect(after.rows.find((r) => r.name === "a.jsonl")).toMatchObject({ digest: { lastPrompt: "not journaled" } });
  });

  test("a directory never listed gets no journal: releases append nothing", async () => {
    await threeSessions();
    await oneMoreTurn("a", "unlisted");
    expect(await nodeFs.readdir(dir.root)).not.toContain(SESSION_INDEX_DIR);
  });
});

describe("latest(): the most recently written session without a summary per log", () => {
  /** The newest of `list()` by `moreRecent`: what latest() must give. */
  const newestListed = async (): Promise<SessionSummary | undefined> =>
    (await withoutIndex().list()).reduce<SessionSummary | undefined>(
      (best, s) => (best === undefined || moreRecent(s, best) ? s : best),
      undefined,
    );

  const touch = (id: string, seconds: number): Promise<void> => nodeFs.utimes(dir.fileOf(id), seconds, seconds);

  test("agrees with the newest of list() as logs change, appear, vanish or turn foreign — and peeks only the winner", async () => {
    expect(await dir.open().latest()).toBeUndefined();
    await threeSessions();
    await touch("a", 1_700_000_300);
    await touch("b", 1_700_000_100);
    await touch("c", 1_700_000_200);
    expect(await dir.open().latest()).toEqual(await newestListed()); // no index yet: a peek of the winner
    await dir.open().listLogs(); // indexed
    const { fs, opened } = countingFs();
    expect((await dir.open(fs).latest())?.id).toBe("a");
    expect(opened).toEqual([]); // the index's header facts: no log opened
    await oneMoreTurn("b", "again"); // b is now the newest (its mtime is now)
    expect((await dir.open().latest())?.id).toBe("b");
    expect(await dir.open().latest()).toEqual(await newestListed());
    // A foreign file written last is left out, as list() leaves it out; so is a log that vanished.
    await nodeFs.writeFile(dir.fileOf("zz"), "not a log\n");
    expect((await dir.open().latest())?.id).toBe("b");
    await nodeFs.rm(dir.fileOf("b"));
    expect((await dir.open().latest())?.id).toBe("a");
    expect(await dir.open().latest()).toEqual(await newestListed());
  });

  test("equal mtimes: the later created wins, then the smaller id — as list() orders them", async () => {
    for (const [id, createdAt] of [
      ["p", 2000],
      ["q", 3000],
      ["r", 3000],
    ] as const)
      await stored(twoTurnLog(Session.create({ id, createdAt, cwd: "/w" }, { clock: () => createdAt })));
    for (const id of ["p", "q", "r"]) await touch(id, 1_700_000_000);
    await dir.open().listLogs();
    expect((await dir.open().latest())?.id).toBe("q");
    expect(await dir.open().latest()).toEqual(await newestListed());
    // (A touch outside Keelson's lock is not journaled: seen at the next full stat, here a new index.)
    await touch("p", 1_700_000_001);
    await nodeFs.rm(join(dir.root, SESSION_INDEX_DIR), { recursive: true });
    expect((await dir.open().latest())?.id).toBe("p");
  });

  test("with many logs it stays exact when the newest ones are all left out", async () => {
    for (let i = 0; i < 20; i++) await stored(twoTurnLog(newSession(`s${String(i).padStart(2, "0")}`)));
    for (let i = 0; i < 20; i++) await touch(`s${String(i).padStart(2, "0")}`, 1_700_000_000 + i);
    // The twelve newest turn foreign (more than latest()'s single passes): s07 is the newest left.
    for (let i = 8; i < 20; i++) await nodeFs.writeFile(dir.fileOf(`s${String(i).padStart(2, "0")}`), "{}\n");
    for (let i = 8; i < 20; i++) await touch(`s${String(i).padStart(2, "0")}`, 1_700_000_000 + i);
    expect((await dir.open().latest())?.id).toBe("s07");
    expect(await dir.open().latest()).toEqual(await newestListed());
  });
});
