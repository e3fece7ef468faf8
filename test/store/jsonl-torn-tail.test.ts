// JsonlSessionStore after a crash: a torn final line (a write cut at any byte) is dropped and,
// on a writable load, truncated away; an open final turn is closed by durable crash-repair
// closers (ARCHITECTURE.md §8, PROPERTIES.md P23).
import { writeFile } from "node:fs/promises";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { verifyLog } from "../../src/reconstruct/index.js";
import type { Session } from "../../src/session/index.js";
import { forwardCommits } from "../../src/store/index.js";
import { LogDriver, newSession, text, twoTurnLog } from "../support/builders.js";
import { storeSession } from "../support/store-contract.js";
import { expectedClosers, typeAndData } from "../support/store-expect.js";
import { jsonLines, lineStarts, type TempJsonlRoot, tempJsonlRoot } from "./jsonl-harness.js";

let dir: TempJsonlRoot;
beforeEach(async () => {
  dir = await tempJsonlRoot();
});
afterEach(async () => {
  await dir.cleanup();
});

/** Stores `session`, flushes and releases it; returns the file's bytes and where its last line starts. */
async function storedBytes(session: Session): Promise<{ full: Buffer; lastStart: number }> {
  const writer = dir.open();
  await storeSession(writer, session, 2);
  await writer.release(session.id);
  const full = await dir.bytesOf(session.id);
  return { full, lastStart: lineStarts(full).at(-1)! };
}

/** A log whose last line is a user message in an open turn, with multi-byte UTF-8 text. */
function openTurnWithUnicodeTail(): Session {
  const session = new LogDriver(newSession("unicode-tail")).turn({ prompt: "Hello", steps: [{ text: "Hi." }] }).session;
  session.append("turn/start", { turn: 2, trigger: "send" });
  session.append("user/message", { content: [text("naïve café ☃ 日本語 🚢")], source: "user" });
  return session;
}

/**
 * For every k short of the full last line (its "\n" included): cut the file k bytes into its
 * last line, load writable, and check the load dropped exactly that torn line, kept the rest
 * byte for byte, repaired the turn the drop left open, and left a file that takes appends.
 */
async function checkTornTailAtEveryOffset(session: Session): Promise<void> {
  const { full, lastStart } = await storedBytes(session);
  const lastLineLength = full.length - lastStart;
  expect(lastLineLength).toBeGreaterThan(40); // the sweep covers a real line, not a stub
  const kept = session.events.slice(0, -1);
  for (let k = 0; k < lastLineLength; k++) {
    const at = `last line cut after ${k} of ${lastLineLength} bytes`;
    await writeFile(dir.fileOf(session.id), full.subarray(0, lastStart + k));

    const store = dir.open();
    const loaded = await store.load(session.id);
    expect(loaded.droppedBytes, at).toBe(k);
    expect(loaded.session.events.slice(0, kept.length), at).toEqual(kept);
    expect(typeAndData(loaded.repaired), at).toEqual(expectedClosers(session.header, kept));
    expect(loaded.session.length, at).toBe(kept.length + loaded.repaired.length);

    const onDisk = await dir.bytesOf(session.id);
    expect(onDisk.subarray(0, lastStart).equals(full.subarray(0, lastStart)), at).toBe(true);
    expect(onDisk.subarray(lastStart).toString("utf8"), at).toBe(jsonLines(loaded.repaired));

    const live = loaded.session;
    forwardCommits(live, store);
    const turn = live.lastTurn + 1;
    live.append("turn/start", { turn, trigger: "send" });
    live.append("user/message", { content: [text(`after a cut at ${k}`)], source: "user" });
    live.append("turn/end", { turn, reason: { kind: "completed" } });
    await store.close();

    const reloaded = await dir.open().load(session.id, { readOnly: true });
    expect(reloaded.session.events, at).toEqual(live.events);
    expect(reloaded.droppedBytes, at).toBe(0);
  }
}

// A few hundred load/append/flush rounds with fsyncs: this bounds a slow disk, it is not a wait.
const EVERY_OFFSET_TIMEOUT_MS = 60_000;

describe("JSONL torn final line", () => {
  test(
    "a final turn/end torn at any byte is dropped, truncated away, its turn repaired, and the log stays appendable",
    async () => {
      await checkTornTailAtEveryOffset(twoTurnLog(newSession("torn-turn-end")));
    },
    EVERY_OFFSET_TIMEOUT_MS,
  );

  test(
    "a final line of multi-byte UTF-8 text torn at any byte (mid-character too) is dropped the same way",
    async () => {
      await checkTornTailAtEveryOffset(openTurnWithUnicodeTail());
    },
    EVERY_OFFSET_TIMEOUT_MS,
  );

  test("a read-only load reports a torn final line without truncating it", async () => {
    const session = twoTurnLog(newSession("torn-read-only"));
    const { full, lastStart } = await storedBytes(session);
    const torn = full.subarray(0, lastStart + 7);
    await writeFile(dir.fileOf(session.id), torn);

    const loaded = await dir.open().load(session.id, { readOnly: true });
    expect(loaded).toMatchObject({ droppedBytes: 7, needsRepair: true, repaired: [] });
    expect(loaded.session.events).toEqual(session.events.slice(0, -1));
    expect(await dir.bytesOf(session.id)).toEqual(torn);
  });
});

describe("JSONL crash repair", () => {
  /** A turn whose second step asked for three tools: one logged call, two only in the message, no results. */
  const crashedMidStep = (): Session =>
    new LogDriver(newSession("crashed-mid-step")).turn({ prompt: "Hello", steps: [{ text: "Hi." }] }).openTurn(
      "Read three files.",
      [{ text: "First, notes.", toolCalls: [{ name: "read", args: '{"path":"notes"}' }] }],
      [
        { name: "read", args: '{"path":"a"}' },
        { name: "read", args: '{"path":"b"}' },
        { name: "read", args: '{"path":"c"}' },
      ],
    ).session;

  test("a writable load writes error results for unanswered calls, step/end and turn/end{interrupted} to the file", async () => {
    const session = crashedMidStep();
    await storedBytes(session);

    const loaded = await dir.open().load(session.id);
    const closers = loaded.repaired;
    expect(closers.filter((e) => e.type === "tool/result").map((e) => e.data)).toEqual(
      ["a", "b", "c"].map((_, i) =>
        expect.objectContaining({ turn: 2, step: 2, callId: `call_${session.id}_${i + 2}`, isError: true }),
      ),
    );
    expect(closers.slice(-2).map((e) => [e.type, e.data])).toEqual([
      ["step/end", { turn: 2, step: 2 }],
      ["turn/end", { turn: 2, reason: { kind: "interrupted" } }],
    ]);

    const lines = (await dir.bytesOf(session.id)).toString("utf8").slice(0, -1).split("\n");
    expect(lines.slice(-closers.length).map((l) => JSON.parse(l) as unknown)).toEqual(closers);
    expect(lines).toHaveLength(1 + session.length + closers.length);
  });

  test("the repaired log, as loaded and as read back from disk, passes verifyLog with no issues", async () => {
    const session = crashedMidStep();
    await storedBytes(session);
    expect(verifyLog(session.events).issues.map((i) => i.code)).toEqual(["open-turn"]);

    const loaded = await dir.open().load(session.id);
    expect(verifyLog(loaded.session.events).issues).toEqual([]);
    const fromDisk = await dir.open().load(session.id, { readOnly: true });
    expect(fromDisk.needsRepair).toBe(false);
    expect(verifyLog(fromDisk.session.events).issues).toEqual([]);
  });
});
