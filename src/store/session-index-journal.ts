// The release journal of the session summary index (`<sessions dir>/.sessions-index/released`):
// one line, `<id>.jsonl`, appended by a JSONL store each time it gives up a session's writer
// lock — after every byte it wrote to the log, before the lock file goes. A listing reads the
// lines added since the index was written and stats those logs (plus the ones locked now and
// the ones new to the index) instead of every log: a Keelson writes a log only while it holds
// the lock, so a log that was neither locked nor released since cannot have changed.
//
// Why the order holds (session-index-scan.ts lists the directory, then reads the journal, then
// stats): a release journaled before the journal read is seen and its log stat'ed after every
// write; a lock still held at the directory listing is seen as `<id>.lock` and its log stat'ed;
// anything later is journaled past the offset the new index records, so the next listing sees
// it. The journal is only appended to when it exists (a listing creates it, before its full stat
// of every log), so a directory that is never listed never grows one. Its first line is a random
// tag the index records with its offset: a journal removed and made again (even on the same
// inode number) is told apart. A writer that cannot
// append removes the journal instead: a missing or replaced journal makes the next listing stat
// every log. A listing replaces a journal grown past `ROTATE_BYTES` with an empty one (a rename:
// a writer still appending to the old one wrote its log before it opened it, and the listing
// that rotates stats every log after the rename).
import { constants } from "node:fs";
import { randomBytes } from "node:crypto";
import { dirname, join } from "node:path";
import type { StoreFileSystem } from "./store-file-system.js";
import { PRIVATE_DIR, PRIVATE_FILE } from "./file-modes.js";

/** The journal, relative to the sessions directory (in the index's directory). */
export const JOURNAL_FILE = join(".sessions-index", "released");
/** A listing that finds the journal this long replaces it with an empty one (and stats every log). */
export const ROTATE_BYTES = 64 * 1024;
const LOG_SUFFIX = ".jsonl";

/**
 * Where a listing's index stands in the journal: the journal's name (a random tag on its first
 * line — not its inode number, which a new file may reuse at once) and the bytes read.
 */
export interface JournalMark {
  readonly tag: string;
  /** Bytes already read: the first line and complete lines after it (the next listing reads from here). */
  readonly offset: number;
}

/** The first line of a journal: `keelson-release-journal <16 hex digits>`. */
const TAG_PREFIX = "keelson-release-journal ";
const TAG_LINE_BYTES = TAG_PREFIX.length + 16 + 1;

const isCode = (e: unknown, code: string): boolean => (e as NodeJS.ErrnoException)?.code === code;

/**
 * Records that the writer of session `id` in `root` is releasing its lock (every write done).
 * Appends only to an existing journal; one that cannot be appended to is removed, so the next
 * listing stats every log. Never throws: a release must not fail for the index.
 */
export async function journalRelease(fs: StoreFileSystem, root: string, id: string): Promise<void> {
  const file = join(root, JOURNAL_FILE);
  try {
    const handle = await fs.open(file, constants.O_WRONLY | constants.O_APPEND);
    try {
      await handle.write(`${id}${LOG_SUFFIX}\n`);
    } finally {
      await handle.close();
    }
  } catch (e) {
    if (isCode(e, "ENOENT")) return; // no listing keeps an index here (yet): nothing to tell
    await fs.unlink(file).catch(() => undefined);
  }
}

/** What a listing read of the journal: where it now stands, and the logs released since `since`. */
export interface JournalRead {
  readonly mark: JournalMark;
  /** Log file names released since the mark read from, or undefined: that mark no longer holds (stat every log). */
  readonly released: ReadonlySet<string> | undefined;
}

/**
 * Reads the journal in `root` from `since` (the index's mark). Creates the journal when missing
 * and replaces it when it is over `ROTATE_BYTES`; in both cases, as when `since` is not this
 * journal's or lies past its end, `released` is undefined: the caller stats every log (after this
 * call). Undefined when the journal cannot be kept at all (then no mark is recorded either).
 */
export async function readJournal(
  fs: StoreFileSystem,
  root: string,
  since: JournalMark | undefined,
): Promise<JournalRead | undefined> {
  const file = join(root, JOURNAL_FILE);
  try {
    let handle: Awaited<ReturnType<StoreFileSystem["open"]>>;
    try {
      handle = await fs.open(file, constants.O_RDONLY | constants.O_NONBLOCK);
    } catch (e) {
      if (!isCode(e, "ENOENT")) throw e;
      return await create(fs, file, false);
    }
    try {
      const info = await handle.stat();
      if (!info.isFile()) return undefined;
      if (info.size > ROTATE_BYTES) return await create(fs, file, true);
      const head = (await read(handle, 0, TAG_LINE_BYTES)).toString("utf8");
      if (!head.startsWith(TAG_PREFIX) || !head.endsWith("\n")) return await create(fs, file, true);
      const tag = head.slice(TAG_PREFIX.length, -1);
      if (since === undefined || since.tag !== tag || since.offset < TAG_LINE_BYTES || since.offset > info.size) {
        const rest = await read(handle, TAG_LINE_BYTES, info.size - TAG_LINE_BYTES);
        return { mark: { tag, offset: TAG_LINE_BYTES + completeLines(rest) }, released: undefined };
      }
      const bytes = await read(handle, since.offset, info.size - since.offset);
      const end = completeLines(bytes);
      const released = new Set<string>();
      for (const line of bytes.toString("utf8", 0, end).split("\n")) if (line.endsWith(LOG_SUFFIX)) released.add(line);
      return { mark: { tag, offset: since.offset + end }, released };
    } finally {
      await handle.close();
    }
  } catch {
    return undefined;
  }
}

/**
 * A new journal with a new tag, from a private temp file: linked into place when there is none
 * (another listing's, made meanwhile, is kept: then the caller's next listing stats every log
 * again), renamed over the old one when `replace`.
 */
async function create(fs: StoreFileSystem, file: string, replace: boolean): Promise<JournalRead | undefined> {
  const tag = randomBytes(8).toString("hex");
  const temp = `${file}.${process.pid}-${tag}.tmp`;
  try {
    await fs.mkdir(dirname(file), { recursive: true, mode: PRIVATE_DIR });
    const handle = await fs.open(temp, "wx", PRIVATE_FILE);
    try {
      await handle.write(`${TAG_PREFIX}${tag}\n`);
    } finally {
      await handle.close();
    }
    if (replace) await fs.rename(temp, file);
    else await fs.link(temp, file);
    return { mark: { tag, offset: TAG_LINE_BYTES }, released: undefined };
  } catch {
    return undefined;
  } finally {
    await fs.unlink(temp).catch(() => undefined);
  }
}

async function read(
  handle: Awaited<ReturnType<StoreFileSystem["open"]>>,
  from: number,
  length: number,
): Promise<Buffer> {
  const buffer = Buffer.alloc(Math.max(0, length));
  let filled = 0;
  while (filled < buffer.length) {
    const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, from + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}

/** The length of the complete lines in `bytes` (a line still being appended is read next time). */
const completeLines = (bytes: Buffer): number => bytes.lastIndexOf(0x0a) + 1;
