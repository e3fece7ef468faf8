// The single-writer lock for one session: `<id>.lock`, holding the owner's pid, host, start time
// and a nonce. A live owner (any process, this one included) refuses a second writer; a lock
// whose pid is dead on this host is stale and is taken over.
//
// The lock file is never seen half-written: its content is written to a private temp file
// (removed again whatever fails), then `link`ed into place (atomic, fails if the lock exists).
// Taking over a stale lock first renames it aside (atomic: of several contenders one gets it)
// and then checks that what it moved is the very lock it judged stale; if a contender had
// already replaced it with a fresh lock, that lock is put back and this writer is refused.
import { randomBytes } from "node:crypto";
import type * as fsp from "node:fs/promises";
import { hostname } from "node:os";
import { processAlive } from "../home/process-alive.js";
import { fsErrorText } from "./fs-error-text.js";
import { readLogFile } from "./read-log-file.js";
import { StoreError } from "./types.js";
import { PRIVATE_FILE } from "./file-modes.js";

type Fs = Pick<typeof fsp, "open" | "stat" | "unlink" | "link" | "rename">;

/** A lock file holds ~150 bytes; anything this large is not one. */
const MAX_LOCK_BYTES = 64 * 1024;

interface LockOwner {
  readonly pid: number;
  readonly host: string;
}

const isCode = (e: unknown, code: string): boolean => (e as NodeJS.ErrnoException)?.code === code;

/** A lock's content; like a log it is read from a regular file only (a FIFO here never blocks). */
async function readText(fs: Fs, path: string): Promise<string | undefined> {
  try {
    return (await readLogFile(fs, path, MAX_LOCK_BYTES)).toString("utf8");
  } catch (e) {
    if (isCode(e, "ENOENT")) return undefined;
    throw e;
  }
}

function parseOwner(text: string): LockOwner | undefined {
  try {
    const raw = JSON.parse(text) as Partial<LockOwner>;
    return typeof raw.pid === "number" && typeof raw.host === "string" ? { pid: raw.pid, host: raw.host } : undefined;
  } catch {
    return undefined;
  }
}

async function removeIfPresent(fs: Fs, path: string): Promise<void> {
  await fs.unlink(path).catch((e: unknown) => {
    if (!isCode(e, "ENOENT")) throw e;
  });
}

/**
 * Takes the lock at `path` for this process, or throws `StoreError('locked')`. A file-system
 * failure (a full disk) is `StoreError('write-failed')`; the private temp file is removed
 * whatever happens.
 */
export async function acquireLock(fs: Fs, path: string, sessionId: string): Promise<void> {
  const nonce = randomBytes(6).toString("hex");
  const temp = `${path}.${nonce}.tmp`;
  try {
    const handle = await fs.open(temp, "wx", PRIVATE_FILE);
    try {
      // No fsync: after a machine crash the owner is gone anyway, and an empty or garbled lock
      // reads as stale.
      await handle.writeFile(JSON.stringify({ pid: process.pid, host: hostname(), since: Date.now(), nonce }));
    } finally {
      await handle.close();
    }
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        await fs.link(temp, path);
        return;
      } catch (e) {
        if (!isCode(e, "EEXIST")) throw e;
      }
      const text = await readText(fs, path);
      if (text === undefined) continue; // released meanwhile: try again
      const owner = parseOwner(text);
      const stale = owner === undefined || (owner.host === hostname() && !processAlive(owner.pid));
      if (!stale) {
        throw new StoreError(
          "locked",
          `session ${sessionId} is already open for writing by pid ${owner.pid} on ${owner.host} (lock file ${path})`,
          { file: path },
        );
      }
      await takeOverStale(fs, path, text, nonce);
    }
    throw new StoreError("locked", `session ${sessionId}: could not take the lock ${path} (contended)`, { file: path });
  } catch (e) {
    if (e instanceof StoreError) throw e;
    throw new StoreError(
      "write-failed",
      `session ${sessionId}: taking the writer lock ${path} failed: ${fsErrorText(e)}`,
      {
        file: path,
        cause: e,
      },
    );
  } finally {
    // Never masks the outcome: a temp file that cannot be removed is only litter.
    await removeIfPresent(fs, temp).catch(() => undefined);
  }
}

/** Moves the stale lock (whose content was `judged`) out of the way, unless it was replaced. */
async function takeOverStale(fs: Fs, path: string, judged: string, nonce: string): Promise<void> {
  const aside = `${path}.${nonce}.stale`;
  try {
    await fs.rename(path, aside);
  } catch (e) {
    if (isCode(e, "ENOENT")) return;
    throw e;
  }
  const moved = await readText(fs, aside);
  if (moved !== judged && moved !== undefined) {
    // A contender replaced the stale lock before us: put its live lock back.
    await fs.link(aside, path).catch((e: unknown) => {
      if (!isCode(e, "EEXIST")) throw e;
    });
  }
  await removeIfPresent(fs, aside);
}

export async function releaseLock(fs: Fs, path: string): Promise<void> {
  await removeIfPresent(fs, path);
}
