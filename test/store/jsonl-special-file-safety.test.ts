// Issue #12 D5: the store reads session logs from regular files only, up to a size limit. A
// FIFO, a device, a directory or an oversized file named `<id>.jsonl` is refused with a clear
// StoreError naming the file — promptly: a FIFO never blocks a load or `list`, a device is never
// read (`keelson verify /dev/zero` is the CLI's test).
import { execFileSync } from "node:child_process";
import { mkdir, readdir, symlink, truncate, writeFile } from "node:fs/promises";
import { afterEach, describe, expect, test } from "vitest";
import * as nodeFs from "node:fs/promises";
import { JsonlSessionStore, MAX_LOG_BYTES, readLogFile } from "../../src/store/index.js";
import { newSession, twoTurnLog } from "../support/builders.js";
import { storeSession } from "../support/store-contract.js";
import { expectStoreError } from "../support/store-expect.js";
import { type TempJsonlRoot, tempJsonlRoot } from "./jsonl-harness.js";

let dir: TempJsonlRoot | undefined;
afterEach(async () => {
  await dir?.cleanup();
  dir = undefined;
});

/** Fails with "hung" instead of waiting forever: the property under test is that `run` returns. */
async function promptly<T>(run: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("hung: the call did not return within 4 s")), 4_000);
  });
  try {
    return await Promise.race([run(), hung]);
  } finally {
    clearTimeout(timer);
  }
}

const mkfifo = (path: string): void => {
  execFileSync("mkfifo", [path]);
};

describe("the store refuses special files named <id>.jsonl", () => {
  test.each([
    ["a FIFO", "a FIFO (named pipe)", async (path: string) => mkfifo(path)],
    ["a directory", "a directory", async (path: string) => mkdir(path)],
    // /dev/null, not /dev/zero: a regression would read /dev/zero without end inside this process.
    ["a symlink to /dev/null", "a character device", async (path: string) => symlink("/dev/null", path)],
  ])(
    "%s is refused with 'not-a-file' by both loads, promptly, and the directory is unchanged",
    async (_n, kind, make) => {
      dir = await tempJsonlRoot();
      const root = dir;
      await make(root.fileOf("special"));
      const before = await readdir(root.root);
      for (const readOnly of [true, false]) {
        const error = await promptly(() =>
          expectStoreError(() => root.open().load("special", { readOnly }), "not-a-file"),
        );
        expect(error.message).toBe(
          `${root.fileOf("special")} is ${kind}, not a regular file; session logs are read from regular files only`,
        );
        expect(error.file).toBe(root.fileOf("special"));
      }
      expect(await readdir(root.root)).toEqual(before);
    },
  );

  test("list skips a FIFO without blocking, and still lists the real sessions", async () => {
    dir = await tempJsonlRoot();
    const root = dir;
    const writer = root.open();
    await storeSession(writer, twoTurnLog(newSession("real")));
    await writer.release("real");
    mkfifo(root.fileOf("pipe"));

    const listed = await promptly(() => root.open().list());
    expect(listed.map((s) => s.id)).toEqual(["real"]);
  });
});

describe("the store refuses a special file where a lock should be", () => {
  test("a FIFO named <id>.lock: a writable load fails with 'not-a-file' promptly, leaving the log and the FIFO", async () => {
    dir = await tempJsonlRoot();
    const root = dir;
    const session = twoTurnLog(newSession("fifo-lock"));
    const writer = root.open();
    await storeSession(writer, session);
    await writer.release(session.id);
    const lock = `${root.root}/fifo-lock.lock`;
    mkfifo(lock);

    const error = await promptly(() => expectStoreError(() => root.open().load(session.id), "not-a-file"));
    expect(error.file).toBe(lock);
    expect((await readdir(root.root)).sort()).toEqual(["fifo-lock.jsonl", "fifo-lock.lock"]);
  });
});

describe("the store refuses logs over the size limit", () => {
  test("the default limit is 1 GiB", () => {
    expect(MAX_LOG_BYTES).toBe(1024 ** 3);
  });

  test("a log over maxLogBytes is refused with 'too-large' naming the file, size and limit; one at the limit loads", async () => {
    dir = await tempJsonlRoot();
    const root = dir;
    const session = twoTurnLog(newSession("sized"));
    const writer = root.open();
    await storeSession(writer, session);
    await writer.release(session.id);
    const size = (await root.bytesOf(session.id)).length;

    const atLimit = new JsonlSessionStore({ root: root.root, maxLogBytes: size });
    expect((await atLimit.load(session.id, { readOnly: true })).session.events).toEqual(session.events);

    const under = new JsonlSessionStore({ root: root.root, maxLogBytes: size - 1 });
    for (const readOnly of [true, false]) {
      const error = await expectStoreError(() => under.load(session.id, { readOnly }), "too-large");
      expect(error.message).toBe(
        `${root.fileOf(session.id)} is ${size} bytes, over the ${size - 1}-byte limit for a session log; it was not read`,
      );
    }
    expect(await readdir(root.root)).toEqual([`${session.id}.jsonl`]);
  });

  test("readLogFile refuses a sparse file one byte over 1 GiB without reading it", async () => {
    dir = await tempJsonlRoot();
    const file = dir.fileOf("huge");
    await writeFile(file, "");
    await truncate(file, MAX_LOG_BYTES + 1); // sparse: no disk blocks, no memory
    const error = await promptly(() => expectStoreError(() => readLogFile(nodeFs, file), "too-large"));
    expect(error.message).toContain(`is ${MAX_LOG_BYTES + 1} bytes, over the ${MAX_LOG_BYTES}-byte limit`);
  });
});
