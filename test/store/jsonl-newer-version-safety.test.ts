// Issue #12 D4: a log written by a newer Keelson — header `version: 3` (version 2 is a fork by reference), or a version-1 log with
// an event type or envelope key this Keelson does not know — is refused with 'newer-version'
// (not 'corrupt'), saying so, and is never modified: no repair, no torn-tail truncation, no
// lock taken or taken over, the bytes and the mtime exactly as they were.
import { existsSync } from "node:fs";
import { readdir, readFile, stat, utimes, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { afterEach, describe, expect, test } from "vitest";
import { JSONL_FORMAT } from "../../src/store/index.js";
import { newSession, text } from "../support/builders.js";
import { expectStoreError } from "../support/store-expect.js";
import { jsonLines, type TempJsonlRoot, tempJsonlRoot } from "./jsonl-harness.js";

let dir: TempJsonlRoot | undefined;
afterEach(async () => {
  await dir?.cleanup();
  dir = undefined;
});

const PAST = new Date("2020-01-02T03:04:05Z");

/**
 * Writes `<id>.jsonl` by hand: the header (with `headerExtra`), a completed turn and an open
 * one (a writable load would repair it), `extra` event lines after them, and a torn tail (a
 * writable load would truncate it); mtime set to 2020. Returns the bytes written.
 */
async function writeLog(
  root: TempJsonlRoot,
  id: string,
  headerExtra: Record<string, unknown>,
  extra: (seq: number) => Record<string, unknown>[] = () => [],
): Promise<Buffer> {
  const session = newSession(id);
  session.append("turn/start", { turn: 1, trigger: "send" });
  session.append("user/message", { content: [text("hello")], source: "user" });
  session.append("turn/end", { turn: 1, reason: { kind: "completed" } });
  session.append("turn/start", { turn: 2, trigger: "send" });
  session.append("user/message", { content: [text("and then?")], source: "user" });
  const lines = jsonLines([
    { format: JSONL_FORMAT, ...session.header, ...headerExtra },
    ...session.events,
    ...extra(session.length),
  ]);
  const bytes = Buffer.from(`${lines}{"type":"turn/end","seq":`);
  await writeFile(root.fileOf(id), bytes);
  await utimes(root.fileOf(id), PAST, PAST);
  return bytes;
}

/** Both loads refuse with 'newer-version' at `line`, and the file, its mtime and the directory are untouched. */
async function expectRefusedUntouched(root: TempJsonlRoot, id: string, bytes: Buffer, line: number, says: string) {
  const before = await readdir(root.root);
  for (const readOnly of [true, false]) {
    const error = await expectStoreError(() => root.open().load(id, { readOnly }), "newer-version");
    expect(error.message).toContain(says);
    expect(error.file).toBe(root.fileOf(id));
    expect(error.line).toBe(line);
  }
  expect((await readFile(root.fileOf(id))).equals(bytes)).toBe(true);
  expect((await stat(root.fileOf(id))).mtimeMs).toBe(PAST.getTime());
  expect(await readdir(root.root)).toEqual(before);
}

describe("a log written by a newer Keelson is refused with 'newer-version' and left untouched", () => {
  test("header version 3: both loads say 'written by a newer Keelson (log version 3)', on line 1", async () => {
    dir = await tempJsonlRoot();
    const bytes = await writeLog(dir, "v3", { version: 3 });
    await expectRefusedUntouched(dir, "v3", bytes, 1, "written by a newer Keelson (log version 3)");
  });

  test("header version 3 with a stale lock (dead pid on this host): a writable load neither takes it over nor removes it", async () => {
    dir = await tempJsonlRoot();
    const bytes = await writeLog(dir, "v3-locked", { version: 3 });
    const lock = `${dir.root}/v3-locked.lock`;
    const stale = JSON.stringify({ pid: 2 ** 22 + 12345, host: hostname(), since: 0, nonce: "x" });
    await writeFile(lock, stale);

    await expectRefusedUntouched(dir, "v3-locked", bytes, 1, "log version 3");
    expect(await readFile(lock, "utf8")).toBe(stale);
  });

  test("an unknown event type in a version-1 log: 'written by a newer Keelson, or corrupt', naming the type and line", async () => {
    dir = await tempJsonlRoot();
    const bytes = await writeLog(dir, "new-type", {}, (seq) => [
      { type: "tool/progress", seq, time: 1_700_000_000_100, data: { percent: 50 } },
    ]);
    // header + 5 events: the unknown event is line 7
    await expectRefusedUntouched(
      dir,
      "new-type",
      bytes,
      7,
      'written by a newer Keelson, or corrupt: unknown event type "tool/progress" at line 7',
    );
    expect(existsSync(`${dir.root}/new-type.lock`)).toBe(false);
  });

  test("an unknown envelope key in a version-1 log: 'written by a newer Keelson, or corrupt', naming the key and line", async () => {
    dir = await tempJsonlRoot();
    const bytes = await writeLog(dir, "new-key", {}, (seq) => [
      {
        type: "user/message",
        seq,
        time: 1_700_000_000_100,
        data: { content: [text("more")], source: "user" },
        surfaceOp: "append",
        priority: 1,
      },
    ]);
    await expectRefusedUntouched(
      dir,
      "new-key",
      bytes,
      7,
      'written by a newer Keelson, or corrupt: unknown envelope key "priority" at line 7',
    );
  });

  test("list does not list a newer log, and does not fail on it", async () => {
    dir = await tempJsonlRoot();
    await writeLog(dir, "v3", { version: 3 });
    expect(await dir.open().list()).toEqual([]);
  });

  test.each([
    ["version 0", 0],
    ["a string version", "2"],
    ["a fractional version", 1.5],
  ])("a header with %s is corrupt, not newer", async (_name, version) => {
    dir = await tempJsonlRoot();
    await writeLog(dir, "bad-version", { version });
    const error = await expectStoreError(() => dir!.open().load("bad-version", { readOnly: true }), "corrupt");
    expect(error.line).toBe(1);
  });
});
