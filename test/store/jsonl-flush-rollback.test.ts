// JsonlSessionStore's failed flush: a write that dies halfway is rolled back to the committed
// bytes and the batch stays buffered, so a retry writes every seq exactly once, in order. The
// failure is injected through JsonlStoreOptions.fs.
import * as nodeFs from "node:fs/promises";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import type { StoreFileSystem } from "../../src/store/index.js";
import { newSession, twoTurnLog } from "../support/builders.js";
import { expectStoreError } from "../support/store-expect.js";
import { type TempJsonlRoot, tempJsonlRoot } from "./jsonl-harness.js";

/**
 * A file system whose next handle write, once armed, writes half its bytes and then throws;
 * with `rollbackFails`, the truncate that follows throws too (the partial bytes stay).
 */
function tornWriteFs(): {
  fs: StoreFileSystem;
  failNextWrite(options?: { rollbackFails?: boolean }): void;
  readonly failures: number;
} {
  let armed = false;
  let failTruncate = false;
  let failures = 0;
  const wrap = (handle: nodeFs.FileHandle): nodeFs.FileHandle =>
    new Proxy(handle, {
      get(target, prop) {
        if (prop === "write") {
          return async (buffer: Buffer, offset: number, length: number, position: number) => {
            if (!armed) return target.write(buffer, offset, length, position);
            armed = false;
            failures++;
            await target.write(buffer, offset, Math.ceil(length / 2), position);
            throw Object.assign(new Error("ENOSPC: no space left on device (injected)"), { code: "ENOSPC" });
          };
        }
        if (prop === "truncate" && failTruncate) {
          return async () => {
            failTruncate = false;
            throw Object.assign(new Error("EIO: i/o error (injected)"), { code: "EIO" });
          };
        }
        const value: unknown = Reflect.get(target, prop, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  return {
    fs: { ...nodeFs, open: async (path, flags, mode) => wrap(await nodeFs.open(path, flags, mode)) },
    failNextWrite: (options = {}) => {
      armed = true;
      failTruncate = options.rollbackFails ?? false;
    },
    get failures() {
      return failures;
    },
  };
}

/** The seqs of the event lines of `bytes` (line 1 is the header). */
const seqsOf = (bytes: Buffer): number[] =>
  bytes
    .toString("utf8")
    .slice(0, -1)
    .split("\n")
    .slice(1)
    .map((line) => (JSON.parse(line) as { seq: number }).seq);

let dir: TempJsonlRoot;
beforeEach(async () => {
  dir = await tempJsonlRoot();
});
afterEach(async () => {
  await dir.cleanup();
});

describe("JSONL failed flush", () => {
  test("a flush whose write fails halfway rejects with 'write-failed' and leaves only the committed bytes on disk", async () => {
    const injected = tornWriteFs();
    const store = dir.open(injected.fs);
    const session = twoTurnLog(newSession("rolled-back"));
    await store.create(session.header, session.events.slice(0, 3));
    store.append(session.id, session.events.slice(3, 8));
    await store.flush(session.id);
    const committed = await dir.bytesOf(session.id);

    store.append(session.id, session.events.slice(8));
    injected.failNextWrite();
    const error = await expectStoreError(() => store.flush(session.id), "write-failed");

    expect(injected.failures).toBe(1);
    expect(error.file).toBe(dir.fileOf(session.id));
    expect(await dir.bytesOf(session.id)).toEqual(committed);
  });

  test("a retried flush after a failed one writes every seq exactly once, in order", async () => {
    const injected = tornWriteFs();
    const store = dir.open(injected.fs);
    const session = twoTurnLog(newSession("retried"));
    await store.create(session.header, session.events.slice(0, 3));
    store.append(session.id, session.events.slice(3));
    injected.failNextWrite();
    await expectStoreError(() => store.flush(session.id), "write-failed");

    await store.flush(session.id);
    expect(seqsOf(await dir.bytesOf(session.id))).toEqual(session.events.map((_, i) => i));
    await store.release(session.id);
    expect((await dir.open().load(session.id)).session.events).toEqual(session.events);
  });

  test("events appended after a failed flush follow the failed batch on retry", async () => {
    const injected = tornWriteFs();
    const store = dir.open(injected.fs);
    const session = twoTurnLog(newSession("appended-meanwhile"));
    await store.create(session.header, session.events.slice(0, 3));
    store.append(session.id, session.events.slice(3, 9));
    injected.failNextWrite();
    await expectStoreError(() => store.flush(session.id), "write-failed");

    store.append(session.id, session.events.slice(9));
    await store.flush(session.id);
    expect(seqsOf(await dir.bytesOf(session.id))).toEqual(session.events.map((_, i) => i));
  });
  test("a retry after a failed flush whose rollback also failed writes over the partial bytes: every seq once, in order", async () => {
    const injected = tornWriteFs();
    const store = dir.open(injected.fs);
    const session = twoTurnLog(newSession("rollback-failed"));
    await store.create(session.header, session.events.slice(0, 3));
    store.append(session.id, session.events.slice(3));
    injected.failNextWrite({ rollbackFails: true });
    await expectStoreError(() => store.flush(session.id), "write-failed");

    await store.flush(session.id);
    await store.release(session.id);
    expect((await dir.open().load(session.id, { readOnly: true })).session.events).toEqual(session.events);
  });
});

describe("JSONL release after a failed flush", () => {
  test("a release whose flush fails throws 'write-failed' and keeps the session open with its buffer for a later release", async () => {
    const injected = tornWriteFs();
    const store = dir.open(injected.fs);
    const session = twoTurnLog(newSession("kept-open"));
    await store.create(session.header, session.events.slice(0, 3));
    store.append(session.id, session.events.slice(3));
    injected.failNextWrite();

    await expectStoreError(() => store.release(session.id), "write-failed");
    await expectStoreError(() => dir.open().load(session.id), "locked");
    await store.release(session.id);

    expect((await dir.open().load(session.id)).session.events).toEqual(session.events);
  });
});

describe("JSONL close after a failed flush", () => {
  test("a close whose flush fails throws 'write-failed', and closing again writes the kept buffer and releases the lock", async () => {
    const injected = tornWriteFs();
    const store = dir.open(injected.fs);
    const session = twoTurnLog(newSession("close-retried"));
    await store.create(session.header, session.events.slice(0, 3));
    store.append(session.id, session.events.slice(3));
    injected.failNextWrite();

    await expectStoreError(() => store.close(), "write-failed");
    await store.close();

    expect((await dir.open().load(session.id)).session.events).toEqual(session.events);
  });
});
