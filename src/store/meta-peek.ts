// Reading a log's meta line without loading the log: the session summaries `list()` returns,
// and the version check before a writable load takes the lock. Both go through the same
// regular-file and size checks as a load, so a FIFO in the sessions directory never blocks.
import { SessionError, validateSessionMeta } from "../session/index.js";
import { decodeStoredMetaLine } from "./jsonl-codec.js";
import { isNotFound } from "./fs-error-text.js";
import type { StoreFileSystem } from "./store-file-system.js";
import { openLogFile } from "./read-log-file.js";
import type { SeedFrom } from "./seed-reference.js";
import { type SessionSummary, StoreError } from "./types.js";

/** How much of a log's start is read for its meta line. */
const META_PEEK_BYTES = 64 * 1024;

/**
 * The raw header from the first line of `file` (undefined when no complete line fits in the
 * first 64 KiB), the seed reference of a fork stored by reference, and the file's mtime.
 */
export async function peekMeta(
  fs: StoreFileSystem,
  file: string,
  maxLogBytes: number,
): Promise<{ header: unknown; seedFrom: SeedFrom | undefined; mtimeMs: number } | undefined> {
  const { handle, info } = await openLogFile(fs, file, maxLogBytes);
  try {
    const buf = Buffer.alloc(Math.min(META_PEEK_BYTES, info.size));
    const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
    const nl = buf.subarray(0, bytesRead).indexOf(0x0a);
    if (nl < 0) return undefined;
    return { ...decodeStoredMetaLine(buf.toString("utf8", 0, nl), file), mtimeMs: info.mtimeMs };
  } finally {
    await handle.close();
  }
}

/** The summary of the log in `file`, or undefined for a foreign, broken, newer or vanished file. */
export async function peekSummary(
  fs: StoreFileSystem,
  file: string,
  maxLogBytes: number,
): Promise<SessionSummary | undefined> {
  try {
    const peeked = await peekMeta(fs, file, maxLogBytes);
    if (peeked === undefined) return undefined;
    const { header, mtimeMs } = peeked;
    validateSessionMeta(header);
    return {
      id: header.id,
      createdAt: header.createdAt,
      updatedAt: Math.floor(mtimeMs),
      ...(header.cwd === undefined ? {} : { cwd: header.cwd }),
      ...(header.parentSession === undefined ? {} : { parentSession: header.parentSession }),
    };
  } catch (e) {
    if (e instanceof StoreError || e instanceof SessionError || isNotFound(e)) return undefined;
    throw e;
  }
}
