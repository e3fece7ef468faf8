// JsonlSessionStore.load on hostile bytes the hostile-logs reliability suite found slipping
// through: invalid UTF-8 inside a committed line (was decoded to U+FFFD and loaded silently),
// nesting deep enough to overflow the stack (was an untyped RangeError) and a number literal
// that overflows a double (was loaded as Infinity, which is not lossless JSON). Each must be
// refused as `corrupt`, naming the file and the line, and leave the file and the lock as they were.
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { afterEach, describe, expect, test } from "vitest";
import { newSession, twoTurnLog } from "../support/builders.js";
import { expectStoreError } from "../support/store-expect.js";
import { lineStarts, rootWithStoredSession, type TempJsonlRoot } from "./jsonl-harness.js";

let dir: TempJsonlRoot | undefined;
afterEach(async () => {
  await dir?.cleanup();
  dir = undefined;
});

/** Stores a two-turn log, rewrites line `line` (1-based) with `edit`, and returns the new bytes. */
async function storedWithLine(
  id: string,
  line: number,
  edit: (bytes: Buffer) => Buffer,
): Promise<{ root: TempJsonlRoot; bytes: Buffer }> {
  const root = await rootWithStoredSession(twoTurnLog(newSession(id)));
  dir = root;
  const full = await root.bytesOf(id);
  const starts = lineStarts(full);
  const start = starts[line - 1]!;
  const end = starts[line]! - 1; // the line's "\n"
  const bytes = Buffer.concat([full.subarray(0, start), edit(full.subarray(start, end)), full.subarray(end)]);
  await writeFile(root.fileOf(id), bytes);
  return { root, bytes };
}

async function expectRefusedAt(root: TempJsonlRoot, id: string, bytes: Buffer, line: number): Promise<void> {
  for (const readOnly of [true, false]) {
    const error = await expectStoreError(() => root.open().load(id, { readOnly }), "corrupt");
    expect(error.file).toBe(root.fileOf(id));
    expect(error.line).toBe(line);
  }
  expect((await readFile(root.fileOf(id))).equals(bytes)).toBe(true);
  expect(existsSync(`${root.root}/${id}.lock`)).toBe(false);
}

/** Replaces the first occurrence of `text` in a line. */
const replace =
  (text: string, by: Buffer) =>
  (line: Buffer): Buffer => {
    const at = line.indexOf(text);
    expect(at).toBeGreaterThanOrEqual(0);
    return Buffer.concat([line.subarray(0, at), by, line.subarray(at + Buffer.byteLength(text))]);
  };

describe("JsonlSessionStore refuses hostile committed lines as corrupt, naming the line", () => {
  test.each([
    ["a lone 0xFF", [0xff]],
    ["a lone continuation byte", [0x80]],
    ["an overlong encoding of '/'", [0xc0, 0xaf]],
    ["a UTF-16 surrogate encoded as UTF-8", [0xed, 0xa0, 0x80]],
    ["a cut multi-byte sequence", [0xe2, 0x82]],
  ])("invalid UTF-8 inside a string (%s) is not decoded to U+FFFD and loaded", async (_name, seq) => {
    // Line 3 is turn 1's user message: "What is in notes.txt?".
    const { root, bytes } = await storedWithLine(
      "bad-utf8",
      3,
      replace("notes", Buffer.concat([Buffer.from("no"), Buffer.from(seq), Buffer.from("es")])),
    );
    await expectRefusedAt(root, "bad-utf8", bytes, 3);
  });

  test("nesting 100,000 levels deep is refused, not a RangeError escaping the load", async () => {
    const deep = `"deep":${"[".repeat(100_000)}${"]".repeat(100_000)},`;
    const { root, bytes } = await storedWithLine("deep", 3, replace('"data":{', Buffer.from(`"data":{${deep}`)));
    await expectRefusedAt(root, "deep", bytes, 3);
  });

  test("a number literal that overflows a double (1e999, read as Infinity) is refused, not loaded as Infinity", async () => {
    const { root, bytes } = await storedWithLine(
      "overflow",
      3,
      replace('"data":{', Buffer.from('"data":{"extra":1e999,')),
    );
    await expectRefusedAt(root, "overflow", bytes, 3);
  });
});
