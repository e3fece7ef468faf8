// A JSONL store's files are its user's (found from outside: logs were 0644 in a 0755 directory —
// every prompt and tool result readable by any local user): the root it creates is 0700, a log,
// its lock and the listing index 0600, whatever the umask lets through. And a log is read or
// appended only as the regular file the root holds: a symbolic link placed there is `not-a-file`,
// its target neither read nor written.
import { lstat, mkdtemp, readdir, readFile, rename, rm, stat, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { JsonlSessionStore } from "../../src/store/index.js";
import { newSession, twoTurnLog } from "../support/builders.js";
import { storeSession } from "../support/store-contract.js";
import { expectStoreError } from "../support/store-expect.js";

let dir: string;
let umask: number;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "keelson-private-"));
  umask = process.umask(0o022); // the usual default: it lets 0644 / 0755 through
});
afterEach(async () => {
  process.umask(umask);
  await rm(dir, { recursive: true, force: true });
});

const mode = async (path: string): Promise<number> => (await lstat(path)).mode & 0o777;

describe("what the store creates is private", () => {
  test("root 0700, log and lock 0600, the listing index 0600 in a 0700 directory", async () => {
    const root = join(dir, "home", "sessions"); // parents the store creates too
    const store = new JsonlSessionStore({ root });
    const session = twoTurnLog(newSession("private"));
    await storeSession(store, session);
    expect(await mode(root)).toBe(0o700);
    expect(await mode(join(dir, "home"))).toBe(0o700);
    expect(await mode(join(root, "private.jsonl"))).toBe(0o600);
    const lock = (await readdir(root)).find((name) => name.endsWith(".lock"));
    expect(lock).toBeDefined(); // held while the session is open
    expect(await mode(join(root, lock!))).toBe(0o600);
    await store.release("private");
    await store.list();
    const entries = await readdir(root, { recursive: true, withFileTypes: true });
    const index = entries.filter((e) => e.parentPath !== root);
    expect(index.length).toBeGreaterThan(0);
    for (const entry of index) {
      const path = join(entry.parentPath, entry.name);
      expect([path, await mode(path)]).toEqual([path, entry.isDirectory() ? 0o700 : 0o600]);
    }
    for (const entry of entries.filter((e) => e.isDirectory()))
      expect(await mode(join(entry.parentPath, entry.name))).toBe(0o700);
    await store.close();
  });
});

describe("a symbolic link in the root is never followed", () => {
  test("loading, resuming (writable) or listing a linked log neither reads nor appends to its target", async () => {
    const root = join(dir, "sessions");
    const store = new JsonlSessionStore({ root });
    const session = twoTurnLog(newSession("linked"));
    await storeSession(store, session);
    await store.release("linked");
    await store.close();
    const elsewhere = join(dir, "elsewhere.jsonl");
    await rename(join(root, "linked.jsonl"), elsewhere);
    await symlink(elsewhere, join(root, "linked.jsonl"));
    const before = await readFile(elsewhere);
    const fresh = new JsonlSessionStore({ root });
    const error = await expectStoreError(() => fresh.load("linked", { readOnly: true }), "not-a-file");
    expect(error.message).toContain("symbolic link");
    await expectStoreError(() => fresh.load("linked"), "not-a-file");
    await fresh.list();
    expect(await readFile(elsewhere)).toEqual(before);
    expect((await stat(elsewhere)).size).toBe(before.length);
    await fresh.close();
  });
});
