// JsonlSessionStore: the shared SessionStore contract, then what is particular to the JSONL
// format — file layout, atomic publication, foreign files and corruption in the committed region.
// Torn tails, flush rollback and the cross-process lock have files of their own.
import { readdir, writeFile } from "node:fs/promises";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import type { SessionEvent } from "../../src/session/index.js";
import { JSONL_FORMAT, forwardCommits } from "../../src/store/index.js";
import { newSession, twoTurnLog } from "../support/builders.js";
import { describeSessionStoreContract, storeSession } from "../support/store-contract.js";
import { expectStoreError, sessionHeader } from "../support/store-expect.js";
import { jsonLines, jsonlHarness, lineStarts, type TempJsonlRoot, tempJsonlRoot } from "./jsonl-harness.js";

describeSessionStoreContract("JsonlSessionStore", jsonlHarness);

let dir: TempJsonlRoot;
beforeEach(async () => {
  dir = await tempJsonlRoot();
});
afterEach(async () => {
  await dir.cleanup();
});

describe("JSONL file layout", () => {
  test("a session is <root>/<id>.jsonl: the format-tagged header line, then one event per line, each ending in a newline", async () => {
    const session = twoTurnLog(newSession("layout"));
    await storeSession(dir.open(), session, 3);

    const text = (await dir.bytesOf(session.id)).toString("utf8");
    expect(text.endsWith("\n")).toBe(true);
    const lines = text.slice(0, -1).split("\n");
    expect(lines).toHaveLength(1 + session.length);
    expect(lines[0]!.startsWith(`{"format":"${JSONL_FORMAT}",`)).toBe(true);
    expect(JSON.parse(lines[0]!)).toEqual({ format: JSONL_FORMAT, ...session.header });
    expect(lines.slice(1).map((l) => JSON.parse(l) as unknown)).toEqual(session.events);
  });

  test("create publishes the log whole and leaves no temp file behind, even when it refuses an existing id", async () => {
    const store = dir.open();
    const session = twoTurnLog(newSession("published"));
    await store.create(session.header, session.events);
    expect((await readdir(dir.root)).sort()).toEqual(["published.jsonl", "published.lock"]);

    await store.release(session.id);
    await expectStoreError(() => dir.open().create(sessionHeader("published")), "exists");
    expect(await readdir(dir.root)).toEqual(["published.jsonl"]);
    expect((await dir.bytesOf(session.id)).toString()).toBe(
      jsonLines([{ format: JSONL_FORMAT, ...session.header }, ...session.events]),
    );
  });

  test("appended events reach the file only at flush", async () => {
    const store = dir.open();
    const session = newSession("buffered");
    await store.create(session.header);
    const created = await dir.bytesOf(session.id);
    const persistence = forwardCommits(session, store);
    twoTurnLog(session);
    expect(await dir.bytesOf(session.id)).toEqual(created);

    await persistence.flush();
    expect((await dir.bytesOf(session.id)).subarray(created.length).toString()).toBe(jsonLines(session.events));
  });
});

describe("JSONL foreign files", () => {
  const foreign: [string, string][] = [
    ["a non-JSON first line", "hello, world\n"],
    ["a JSON first line without the format tag", `${JSON.stringify(sessionHeader("notes"))}\n`],
    [
      "a JSON first line with another format",
      `${JSON.stringify({ format: "other-tool", ...sessionHeader("notes") })}\n`,
    ],
    ["an empty file", ""],
  ];

  test.each(foreign)("a file with %s is refused with 'foreign' and is not listed", async (_, content) => {
    await writeFile(dir.fileOf("notes"), content);
    const store = dir.open();

    const error = await expectStoreError(() => store.load("notes"), "foreign");
    expect(error.message).toContain(dir.fileOf("notes"));
    expect(await store.list()).toEqual([]);
  });

  test("a file whose header names another session is refused with 'corrupt' on line 1", async () => {
    await writeFile(dir.fileOf("mine"), jsonLines([{ format: JSONL_FORMAT, ...sessionHeader("theirs") }]));

    const error = await expectStoreError(() => dir.open().load("mine"), "corrupt");
    expect(error.file).toBe(dir.fileOf("mine"));
    expect(error.line).toBe(1);
    expect(error.message).toContain(dir.fileOf("mine"));
  });
});

describe("JSONL corruption inside the committed region", () => {
  type Corruption = [string, (line: Buffer, event: SessionEvent) => Buffer];
  // Each damages the line of the first assistant/message, well before the last line.
  const corruptions: Corruption[] = [
    [
      "a control byte in the middle of the line (invalid JSON)",
      (line) => {
        const damaged = Buffer.from(line);
        damaged[Math.floor(line.length / 2)] = 0x01;
        return damaged;
      },
    ],
    ["valid JSON with the wrong seq", (_, event) => Buffer.from(jsonLines([{ ...event, seq: event.seq + 1 }]))],
    ["an envelope field of the wrong type", (_, event) => Buffer.from(jsonLines([{ ...event, time: "noon" }]))],
    [
      "a payload field of the wrong type",
      (_, event) => Buffer.from(jsonLines([{ ...event, data: { ...(event.data as object), turn: "1" } }])),
    ],
  ];

  test.each(corruptions)(
    "%s refuses to load with 'corrupt' naming the file and line, and leaves the file unchanged",
    async (_, corrupt) => {
      const session = twoTurnLog(newSession("damaged"));
      const writer = dir.open();
      await storeSession(writer, session);
      await writer.release(session.id);
      const seq = session.events.findIndex((e) => e.type === "assistant/message");
      const lineNumber = seq + 2; // line 1 is the header
      const intact = await dir.bytesOf(session.id);
      const starts = lineStarts(intact);
      const [from, to] = [starts[lineNumber - 1]!, starts[lineNumber]!];
      const damaged = Buffer.concat([
        intact.subarray(0, from),
        corrupt(intact.subarray(from, to), session.events[seq]!),
        intact.subarray(to),
      ]);
      await writeFile(dir.fileOf(session.id), damaged);

      for (const readOnly of [false, true]) {
        const error = await expectStoreError(() => dir.open().load(session.id, { readOnly }), "corrupt");
        expect(error.file).toBe(dir.fileOf(session.id));
        expect(error.line).toBe(lineNumber);
        expect(error.message).toContain(dir.fileOf(session.id));
        expect(error.message).toContain(`line ${lineNumber}`);
      }
      expect(await dir.bytesOf(session.id)).toEqual(damaged);
      expect(await readdir(dir.root)).toEqual([`${session.id}.jsonl`]);
    },
  );
});
