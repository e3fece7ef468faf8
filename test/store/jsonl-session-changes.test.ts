// `JsonlSessionStore.listLogChanges(since)` (decision record 0031): a mirror of `listLogs()`'s
// rows kept by applying the changes since its generation equals the rows a store without the
// index gives (every log read), through every kind of change; only the changed logs are read;
// a changed row goes to the delta, not into a rewrite of the index.
import { constants } from "node:fs";
import * as nodeFs from "node:fs/promises";
import { basename, join } from "node:path";
import { afterEach, beforeEach, expect, test, vi } from "vitest";
import { forkSession, Session } from "../../src/session/index.js";
import {
  JsonlSessionStore,
  type ListedLog,
  type LogChanges,
  SESSION_INDEX_FILE,
  moreRecent,
  type SessionSummary,
  StoreError,
  type StoreFileSystem,
} from "../../src/store/index.js";
import { DELTA_FILE } from "../../src/store/session-index-delta.js";
import { JOURNAL_FILE } from "../../src/store/session-index-journal.js";
import { FULL_STAT_MS } from "../../src/store/session-index-scan.js";
import { COMPACT_AT } from "../../src/store/session-index-view.js";
import { newSession, twoTurnLog } from "../support/builders.js";
import { storeSession } from "../support/store-contract.js";
import { oneMoreTurnIn, type TempJsonlRoot, tempJsonlRoot } from "./jsonl-harness.js";

let dir: TempJsonlRoot;
beforeEach(async () => {
  dir = await tempJsonlRoot();
});
afterEach(async () => {
  await dir.cleanup();
});

/** A file system that records the `*.jsonl` files opened. */
function countingFs(): { fs: StoreFileSystem; opened: string[] } {
  const opened: string[] = [];
  const fs: StoreFileSystem = {
    ...nodeFs,
    open: ((path: Parameters<typeof nodeFs.open>[0], ...rest: unknown[]) => {
      if (String(path).endsWith(".jsonl")) opened.push(basename(String(path)));
      return (nodeFs.open as (...a: unknown[]) => ReturnType<typeof nodeFs.open>)(path, ...rest);
    }) as typeof nodeFs.open,
  };
  return { fs, opened };
}

const plainRow = (r: ListedLog): unknown =>
  r.kind === "session"
    ? { name: r.name, ...r.digest, updatedAt: undefined }
    : { name: r.name, code: r.error instanceof StoreError ? r.error.code : "?", message: (r.error as Error).message };

/** What the full read of every log lists (updatedAt aside: `keelson sessions` does not show it). */
const truth = async (): Promise<unknown[]> =>
  (await new JsonlSessionStore({ root: dir.root, index: false }).listLogs()).map(plainRow);

/** `listLogs()`'s rows kept by applying `listLogChanges` answers, as a caller keeping a rendering does. */
class Mirror {
  rows = new Map<string, ListedLog>();
  generation: string | undefined;
  last: LogChanges | undefined;
  opened: string[] = [];

  async refresh(): Promise<void> {
    const { fs, opened } = countingFs();
    const changes = await dir.open(fs).listLogChanges(this.generation);
    this.opened = [...new Set(opened)].sort();
    this.last = changes;
    if (changes.kind === "all") this.rows = new Map(changes.logs.map((r) => [r.name, r]));
    else {
      for (const name of changes.removed) this.rows.delete(name);
      for (const row of changes.changed) this.rows.set(row.name, row);
    }
    this.generation = changes.generation;
  }

  plain(): unknown[] {
    return [...this.rows.values()].sort((a, b) => (a.name < b.name ? -1 : 1)).map(plainRow);
  }
}

async function stored(session: Session): Promise<void> {
  const store = dir.open();
  await storeSession(store, session);
  await store.release(session.id);
}

const oneMoreTurn = (id: string, prompt: string): Promise<void> => oneMoreTurnIn(dir, id, prompt);

/** Appends `<id>.jsonl` to the release journal, as a Keelson writer does when it lets a log go. */
async function journal(id: string): Promise<void> {
  const handle = await nodeFs.open(join(dir.root, JOURNAL_FILE), constants.O_WRONLY | constants.O_APPEND);
  await handle.write(`${id}.jsonl\n`);
  await handle.close();
}

/** latest() agrees with the newest of the full read's list(). */
async function latestAgrees(): Promise<void> {
  const newest = (await new JsonlSessionStore({ root: dir.root, index: false }).list()).reduce<
    SessionSummary | undefined
  >((best, s) => (best === undefined || moreRecent(s, best) ? s : best), undefined);
  expect(await dir.open().latest()).toEqual(newest);
}

const changedNames = (m: Mirror): string[] =>
  m.last?.kind === "changes" ? m.last.changed.map((r) => r.name).sort() : ["(all)"];

test("a mirror kept by the changes equals the full read through every kind of change, reading only what changed", async () => {
  for (const id of ["a", "b", "c"]) await stored(twoTurnLog(newSession(id)));
  const m = new Mirror();
  await m.refresh();
  expect(m.last?.kind).toBe("all");
  expect(m.generation).toMatch(/^[0-9a-f]{16}$/);
  expect(m.plain()).toEqual(await truth());
  await latestAgrees();

  // Nothing changed: no row, no log read, the same generation, nothing written.
  const indexBefore = await nodeFs.stat(join(dir.root, SESSION_INDEX_FILE));
  const generation = m.generation;
  await m.refresh();
  expect(m.last).toEqual({ kind: "changes", generation, changed: [], removed: [] });
  expect(m.opened).toEqual([]);

  // One more turn on b: b's row alone, b alone read, into the delta (the index file stays as it was).
  await oneMoreTurn("b", "one more");
  await m.refresh();
  expect(changedNames(m)).toEqual(["b.jsonl"]);
  expect(m.opened).toEqual(["b.jsonl"]);
  expect(m.generation).not.toBe(generation);
  expect(m.plain()).toEqual(await truth());
  await latestAgrees();
  expect((await nodeFs.stat(join(dir.root, SESSION_INDEX_FILE))).mtimeMs).toBe(indexBefore.mtimeMs);
  expect(JSON.parse(await nodeFs.readFile(join(dir.root, DELTA_FILE), "utf8"))).toMatchObject({ gens: [m.generation] });

  // A new session, a removed log, a foreign file under a new name.
  await stored(twoTurnLog(newSession("d")));
  await nodeFs.rm(dir.fileOf("a"));
  await nodeFs.writeFile(dir.fileOf("zz"), "not a log\n");
  await m.refresh();
  expect(m.last).toMatchObject({ kind: "changes", removed: ["a.jsonl"] });
  expect(changedNames(m)).toEqual(["d.jsonl", "zz.jsonl"]);
  expect(m.plain()).toEqual(await truth());
  await latestAgrees();

  // c replaced by a corrupt file and by a newer Keelson's log, each announced in the journal.
  await nodeFs.writeFile(dir.fileOf("c"), "{ torn");
  await journal("c");
  await m.refresh();
  expect(changedNames(m)).toEqual(["c.jsonl"]);
  expect(m.plain()).toEqual(await truth());
  await latestAgrees();
  const lines = (await dir.bytesOf("d")).toString("utf8").split("\n");
  await nodeFs.writeFile(
    dir.fileOf("c"),
    [JSON.stringify({ ...JSON.parse(lines[0]!), version: 99 }), ...lines.slice(1)].join("\n"),
  );
  await journal("c");
  await m.refresh();
  expect(m.plain()).toEqual(await truth());
  await latestAgrees();
  // A newer Keelson's log is read on every listing: it is in every answer.
  await m.refresh();
  expect(changedNames(m)).toEqual(["c.jsonl"]);
  expect(m.plain()).toEqual(await truth());
  await latestAgrees();

  // A mirror of an older generation gets everything changed since it.
  const old = new Mirror();
  old.generation = generation;
  old.rows = new Map(
    (await new JsonlSessionStore({ root: dir.root, index: false }).listLogs()).map((r) => [r.name, r]),
  );
  await old.refresh();
  expect(old.last?.kind).toBe("changes");
  expect(old.plain()).toEqual(await truth());
});

test("an unknown generation: every row; a garbled delta, a removed journal: the mirror still equals the full read", async () => {
  for (const id of ["a", "b"]) await stored(twoTurnLog(newSession(id)));
  const m = new Mirror();
  await m.refresh();
  await oneMoreTurn("a", "x");
  await m.refresh();
  expect(m.last?.kind).toBe("changes");

  const stranger = new Mirror();
  stranger.generation = "0123456789abcdef";
  await stranger.refresh();
  expect(stranger.last?.kind).toBe("all");

  await nodeFs.writeFile(join(dir.root, DELTA_FILE), '{"format":"keelson-session-index-delta","base":');
  await oneMoreTurn("b", "y");
  await m.refresh();
  expect(m.plain()).toEqual(await truth());
  await latestAgrees();

  await nodeFs.rm(join(dir.root, JOURNAL_FILE));
  await m.refresh();
  expect(m.last?.kind).toBe("changes"); // every log stat'ed against the columns (see the full-stat test)
  expect(m.plain()).toEqual(await truth());
  await latestAgrees();
});

test("a delta past its bound is folded into a new base by the next listing", async () => {
  await stored(twoTurnLog(newSession("a")));
  const m = new Mirror();
  await m.refresh();
  const gens = Array.from({ length: 3 }, (_, i) => `${i}`.padStart(16, "0"));
  const raw = JSON.parse(await nodeFs.readFile(join(dir.root, DELTA_FILE), "utf8").catch(() => "null"));
  expect(raw).toBeNull(); // nothing changed yet: no delta
  // A delta of more entries than the bound (forged: tombstones of logs long gone).
  const facts = JSON.parse((await nodeFs.readFile(join(dir.root, SESSION_INDEX_FILE), "utf8")).split("\n")[0]!);
  const changes = Array.from({ length: COMPACT_AT + 1 }, (_, i) => ({ at: 2, gone: `gone-${i}.jsonl` }));
  await nodeFs.writeFile(
    join(dir.root, DELTA_FILE),
    JSON.stringify({
      format: "keelson-session-index-delta",
      base: facts.gen,
      gens,
      journal: facts.journal,
      verifiedAt: facts.verifiedAt,
      names: facts.names,
      changes,
    }),
  );
  m.generation = gens[2];
  await m.refresh();
  expect(m.last?.kind).toBe("all");
  await expect(nodeFs.stat(join(dir.root, DELTA_FILE))).rejects.toThrow();
  expect(m.plain()).toEqual(await truth());
  await latestAgrees();
});

test("latest() over more logs than line 1 repeats: the newest in the delta, in the base, or past the bound", async () => {
  const ids = Array.from({ length: 20 }, (_, i) => `s${String(i).padStart(2, "0")}`);
  for (const [i, id] of ids.entries()) {
    await stored(twoTurnLog(newSession(id)));
    await nodeFs.utimes(dir.fileOf(id), 1_700_000_000 + i, 1_700_000_000 + i);
  }
  const m = new Mirror();
  await m.refresh();
  await latestAgrees(); // the newest base entry, from line 1
  await oneMoreTurn("s03", "now the newest");
  await m.refresh();
  await latestAgrees(); // from the delta
  // The 17 newest all made foreign (announced as rewritten): the answer lies past line 1's entries.
  for (const id of ids.slice(3)) {
    await nodeFs.writeFile(dir.fileOf(id), "not a log\n");
    await nodeFs.utimes(dir.fileOf(id), 1_800_000_000, 1_800_000_000);
    await journal(id);
  }
  await latestAgrees();
  await m.refresh();
  await latestAgrees();
  expect(m.plain()).toEqual(await truth());
});

test("latest() with equal mtimes past line 1's entries: the later created wins though it is listed last", async () => {
  const ids = Array.from({ length: 20 }, (_, i) => `t${String(i).padStart(2, "0")}`);
  for (const [i, id] of ids.entries()) {
    const createdAt = 1_700_000_000_000 + i; // t19 created last: the newest by list()'s order
    await stored(twoTurnLog(Session.create({ id, createdAt, cwd: "/work" }, { clock: () => createdAt })));
    await nodeFs.utimes(dir.fileOf(id), 1_700_000_000, 1_700_000_000);
  }
  await new Mirror().refresh(); // the index: t00…t15 in line 1 (same mtime: by name), t19 past it
  await latestAgrees();
  expect((await dir.open().latest())?.id).toBe("t19");
});

test("a fork stored by reference: its row follows its parent's log (the columns decoded only then)", async () => {
  const store = dir.open();
  await storeSession(store, twoTurnLog(newSession("parent")));
  await store.release("parent");
  const child = forkSession((await store.load("parent", { readOnly: true })).session, { id: "child" });
  await store.create(child.header, child.events);
  await store.release("child");
  await stored(twoTurnLog(newSession("other")));
  const m = new Mirror();
  await m.refresh();
  expect(m.plain()).toEqual(await truth());

  await oneMoreTurn("child", "on the fork"); // a fork read again: its seed's identity comes from the columns
  await m.refresh();
  expect(changedNames(m)).toEqual(["child.jsonl"]);
  expect(m.plain()).toEqual(await truth());

  const parentBytes = await dir.bytesOf("parent");
  await nodeFs.rm(dir.fileOf("parent"));
  await m.refresh();
  expect(changedNames(m)).toEqual(["child.jsonl"]); // unreadable now: its seed is gone
  expect(m.plain()).toEqual(await truth());
  await nodeFs.writeFile(dir.fileOf("parent"), parentBytes);
  await m.refresh();
  expect(m.plain()).toEqual(await truth());
  await oneMoreTurn("parent", "on the parent");
  await m.refresh();
  expect(m.plain()).toEqual(await truth());
  await latestAgrees();
});

test("a full stat (journal gone, or the last one too old) compares every identity without a full listing", async () => {
  for (const id of ["a", "b", "c"]) await stored(twoTurnLog(newSession(id)));
  const m = new Mirror();
  await m.refresh();
  const generation = m.generation;
  // The last full stat 11 minutes ago: every log stat'ed, none read, nothing changed, the same generation.
  const now = Date.now();
  const clock = vi.spyOn(Date, "now").mockReturnValue(now + FULL_STAT_MS + 60_000);
  try {
    await m.refresh();
  } finally {
    clock.mockRestore();
  }
  expect(m.last).toEqual({ kind: "changes", generation, changed: [], removed: [] });
  expect(m.opened).toEqual([]);
  // A log rewritten without its writer's release (not journaled) and the journal removed: seen by the full stat.
  await nodeFs.appendFile(dir.fileOf("b"), "");
  const lines = (await dir.bytesOf("b")).toString("utf8");
  await nodeFs.writeFile(dir.fileOf("b"), lines.replace('"Thanks!"', '"Rewritten"'));
  await nodeFs.rm(join(dir.root, JOURNAL_FILE));
  await m.refresh();
  expect(m.last?.kind).toBe("changes");
  expect(changedNames(m)).toEqual(["b.jsonl"]);
  expect(m.opened).toEqual(["b.jsonl"]);
  expect(m.plain()).toEqual(await truth());
  await latestAgrees();
});
