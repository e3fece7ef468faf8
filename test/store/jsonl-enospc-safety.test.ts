// Issue #12 D6: a full disk (ENOSPC, injected through JsonlStoreOptions.fs) while taking the
// writer lock or publishing a new log leaves no temp file, no lock and no log behind, and fails
// with StoreError('write-failed') whose message — as the CLI prints it (describeError) — says
// the errno code once, not `ENOSPC: ENOSPC: …`.
import * as nodeFs from "node:fs/promises";
import { afterEach, describe, expect, test } from "vitest";
import { describeError } from "../../src/cli/errors.js";
import type { StoreFileSystem } from "../../src/store/index.js";
import { newSession, twoTurnLog } from "../support/builders.js";
import { storeSession } from "../support/store-contract.js";
import { expectStoreError } from "../support/store-expect.js";
import { type TempJsonlRoot, tempJsonlRoot } from "./jsonl-harness.js";

let dir: TempJsonlRoot | undefined;
afterEach(async () => {
  await dir?.cleanup();
  dir = undefined;
});

/** An error shaped exactly like the one Node throws on a full disk. */
const enospc = (syscall: string): NodeJS.ErrnoException =>
  Object.assign(new Error(`ENOSPC: no space left on device, ${syscall}`), { code: "ENOSPC", errno: -28, syscall });

type Step = "lock write" | "log write" | "log sync" | "log link" | "lock link";

/** node:fs/promises whose `step` fails with ENOSPC (lock files end in `.lock`, their temp files in `.tmp`). */
function fullDiskAt(step: Step): StoreFileSystem {
  const isLockTemp = (path: unknown): boolean => /\.lock\.[0-9a-f]+\.tmp$/.test(String(path));
  const isLogTemp = (path: unknown): boolean => /\.jsonl\.tmp-/.test(String(path));
  const failing = (handle: nodeFs.FileHandle, prop: "writeFile" | "sync"): nodeFs.FileHandle =>
    new Proxy(handle, {
      get(target, key) {
        if (key === prop)
          return async () => {
            throw enospc(prop === "sync" ? "fsync" : "write");
          };
        const value: unknown = Reflect.get(target, key, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  return {
    ...nodeFs,
    open: async (path, flags, mode) => {
      const handle = await nodeFs.open(path, flags, mode);
      if (step === "lock write" && isLockTemp(path)) return failing(handle, "writeFile");
      if (step === "log write" && isLogTemp(path)) return failing(handle, "writeFile");
      if (step === "log sync" && isLogTemp(path)) return failing(handle, "sync");
      return handle;
    },
    link: async (from, to) => {
      if (step === "log link" && isLogTemp(from)) throw enospc("link");
      if (step === "lock link" && isLockTemp(from)) throw enospc("link");
      return nodeFs.link(from, to);
    },
  };
}

const once = (text: string, word: string): number => text.split(word).length - 1;

describe("ENOSPC while creating a session", () => {
  test.each<[Step]>([["lock write"], ["lock link"], ["log write"], ["log sync"], ["log link"]])(
    "at %s: 'write-failed' with ENOSPC said once, and nothing is left in the directory",
    async (step) => {
      dir = await tempJsonlRoot();
      const session = twoTurnLog(newSession("full-disk"));
      const store = dir.open(fullDiskAt(step));

      const error = await expectStoreError(() => store.create(session.header, session.events), "write-failed");
      expect(once(error.message, "ENOSPC"), error.message).toBe(1);
      expect(once(describeError(error), "ENOSPC"), describeError(error)).toBe(1);
      expect(describeError(error)).toMatch(/^write-failed: .*ENOSPC: no space left on device/);
      expect(await nodeFs.readdir(dir.root)).toEqual([]);

      // The disk has room again: the same id can be created.
      const retry = dir.open();
      await storeSession(retry, session);
      expect(await nodeFs.readdir(dir.root)).toEqual(["full-disk.jsonl", "full-disk.lock"]);
    },
  );
});

describe("ENOSPC while taking the lock of a stored session", () => {
  test.each<[Step]>([["lock write"], ["lock link"]])(
    "at %s: a writable load fails with 'write-failed', leaves no temp file and no lock, and the log unchanged",
    async (step) => {
      dir = await tempJsonlRoot();
      const session = twoTurnLog(newSession("stored"));
      const writer = dir.open();
      await storeSession(writer, session);
      await writer.release(session.id);
      const bytes = await dir.bytesOf(session.id);

      const error = await expectStoreError(() => dir!.open(fullDiskAt(step)).load(session.id), "write-failed");
      expect(once(describeError(error), "ENOSPC")).toBe(1);
      expect(await nodeFs.readdir(dir.root)).toEqual(["stored.jsonl"]);
      expect(await dir.bytesOf(session.id)).toEqual(bytes);
    },
  );
});

describe("the errno code is said once", () => {
  test("a failed flush's message carries Node's message as is, not 'Error: ENOSPC: …'", async () => {
    dir = await tempJsonlRoot();
    const session = twoTurnLog(newSession("flush-full"));
    let full = false;
    const fs: StoreFileSystem = {
      ...nodeFs,
      open: async (path, flags, mode) => {
        const handle = await nodeFs.open(path, flags, mode);
        return new Proxy(handle, {
          get(target, key) {
            if (key === "write" && full)
              return async () => {
                throw enospc("write");
              };
            const value: unknown = Reflect.get(target, key, target);
            return typeof value === "function" ? value.bind(target) : value;
          },
        });
      },
    };
    const store = dir.open(fs);
    await store.create(session.header, session.events.slice(0, 2));
    store.append(session.id, session.events.slice(2));
    full = true;

    const error = await expectStoreError(() => store.flush(session.id), "write-failed");
    expect(error.message).toMatch(/rolled back: ENOSPC: no space left on device, write$/);
    expect(once(describeError(error), "ENOSPC")).toBe(1);
    full = false;
  });

  test("describeError says a Node errno error's code once", () => {
    expect(describeError(enospc("write"))).toBe("ENOSPC: no space left on device, write");
    // An error whose message does not start with its code still gets it, once.
    expect(describeError(Object.assign(new Error("disk quota exceeded"), { code: "EDQUOT" }))).toBe(
      "EDQUOT: disk quota exceeded",
    );
  });
});
