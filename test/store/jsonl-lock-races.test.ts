// JsonlSessionStore's lock under interleavings two writers can hit: one writer is paused inside
// the lock protocol (through an injected file system) while the other runs to completion. The
// single-writer rule must hold for every interleaving: exactly one of the two gets the session.
import * as nodeFs from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import type { StoreFileSystem } from "../../src/store/index.js";
import { newSession, twoTurnLog } from "../support/builders.js";
import { rootWithStoredSession, type TempJsonlRoot } from "./jsonl-harness.js";

/** A point a file-system call stops at: `reached` resolves when it gets there; `proceed()` lets it go on. */
interface Gate {
  readonly reached: Promise<void>;
  proceed(): void;
}

function gate(): Gate & { arrive(): Promise<void> } {
  let arrived!: () => void;
  let release!: () => void;
  const reached = new Promise<void>((resolve) => {
    arrived = resolve;
  });
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  return {
    reached,
    proceed: () => release(),
    arrive: () => {
      arrived();
      return released;
    },
  };
}

const isLock = (path: unknown): boolean => String(path).endsWith(".lock");

/** Pauses the first write of a newly created lock file's contents, after the file exists but is still empty. */
function pauseBeforeLockContents(): { fs: StoreFileSystem; gate: Gate } {
  const g = gate();
  let paused = false;
  const open: StoreFileSystem["open"] = async (path, flags, mode) => {
    const handle = await nodeFs.open(path, flags, mode);
    if (paused || flags !== "wx" || !isLock(path)) return handle;
    paused = true;
    return new Proxy(handle, {
      get(target, prop) {
        if (prop === "writeFile")
          return async (...args: Parameters<nodeFs.FileHandle["writeFile"]>) =>
            g.arrive().then(() => target.writeFile(...args));
        const value: unknown = Reflect.get(target, prop, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  };
  return { fs: { ...nodeFs, open }, gate: g };
}

/** Pauses the first unlink of a lock file: the writer has judged the lock stale and is about to remove it. */
function pauseBeforeStaleLockRemoval(): { fs: StoreFileSystem; gate: Gate } {
  const g = gate();
  let paused = false;
  const unlink: StoreFileSystem["unlink"] = async (path) => {
    if (!paused && isLock(path)) {
      paused = true;
      await g.arrive();
    }
    return nodeFs.unlink(path);
  };
  return { fs: { ...nodeFs, unlink }, gate: g };
}

type Outcome = { readonly won: true } | { readonly won: false; readonly error: unknown };
const outcome = (load: Promise<unknown>): Promise<Outcome> =>
  load.then(
    () => ({ won: true }) as const,
    (error: unknown) => ({ won: false, error }) as const,
  );

let dir: TempJsonlRoot;
const session = twoTurnLog(newSession("contended"));
beforeEach(async () => {
  dir = await rootWithStoredSession(session);
});
afterEach(async () => {
  await dir.cleanup();
});

describe("JSONL lock races", () => {
  test("a writer that finds a lock file just created and still empty does not take it over: exactly one writer wins", async () => {
    const first = pauseBeforeLockContents();
    const firstLoad = outcome(dir.open(first.fs).load(session.id));
    await Promise.race([first.gate.reached, firstLoad]); // a lock protocol without this step runs straight through

    const second = await outcome(dir.open().load(session.id));
    first.gate.proceed();
    const results = [await firstLoad, second];

    expect(
      results.filter((r) => r.won),
      JSON.stringify(results),
    ).toHaveLength(1);
  });

  test("two writers taking over the same stale lock (dead pid) do not both win", async () => {
    const deadPid = 2 ** 31 - 1; // above any pid_max: no such process
    await nodeFs.writeFile(
      join(dir.root, `${session.id}.lock`),
      JSON.stringify({ pid: deadPid, host: hostname(), since: 0 }),
    );
    const slow = pauseBeforeStaleLockRemoval();
    const slowLoad = outcome(dir.open(slow.fs).load(session.id));
    await Promise.race([slow.gate.reached, slowLoad]);

    const fast = await outcome(dir.open().load(session.id));
    slow.gate.proceed();
    const results = [fast, await slowLoad];

    expect(
      results.filter((r) => r.won),
      JSON.stringify(results),
    ).toHaveLength(1);
  });
});

describe("one store letting go of a session", () => {
  test("close waits for a release under way: it resolves only once that release's lock is gone", async () => {
    const slow = pauseBeforeStaleLockRemoval(); // here: the release's unlock of its own lock
    const store = dir.open(slow.fs);
    await store.load(session.id);
    const releasing = store.release(session.id);
    await slow.gate.reached; // the writer has left the table; its lock file is still there
    let closed = false;
    const closing = store.close().then(() => {
      closed = true;
    });
    for (let i = 0; i < 20; i++) await Promise.resolve();
    expect(closed).toBe(false);
    slow.gate.proceed();
    await Promise.all([releasing, closing]);
    await expect(nodeFs.stat(join(dir.root, `${session.id}.lock`))).rejects.toMatchObject({ code: "ENOENT" });
    expect((await dir.open().load(session.id)).session.length).toBe(session.length);
  });

  test("a writable load while the store releases the id waits for the lock to go, then takes the session", async () => {
    const slow = pauseBeforeStaleLockRemoval();
    const store = dir.open(slow.fs);
    await store.load(session.id);
    const releasing = store.release(session.id);
    await slow.gate.reached;
    const reloading = outcome(store.load(session.id)); // would find its own lock file and say `locked`
    for (let i = 0; i < 50; i++) await new Promise((resolve) => setImmediate(resolve)); // let it get as far as it can
    slow.gate.proceed();
    await releasing;
    expect(await reloading).toEqual({ won: true });
    await store.close();
  });
});
