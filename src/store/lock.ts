// The single-writer lock for one session: `<id>.lock`, created exclusively, holding the owner's
// pid and host. A lock whose pid is dead on this host is stale and is taken over; a live owner
// (any process, this one included) refuses a second writer.
import type * as fsp from "node:fs/promises";
import { hostname } from "node:os";
import { StoreError } from "./types.js";

type Fs = Pick<typeof fsp, "open" | "readFile" | "unlink">;

interface LockOwner {
  readonly pid: number;
  readonly host: string;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM"; // exists, owned by someone else
  }
}

async function readOwner(fs: Fs, path: string): Promise<LockOwner | undefined> {
  try {
    const raw = JSON.parse(await fs.readFile(path, "utf8")) as Partial<LockOwner>;
    return typeof raw.pid === "number" && typeof raw.host === "string" ? { pid: raw.pid, host: raw.host } : undefined;
  } catch {
    return undefined; // empty or half-written: its writer died between create and write
  }
}

/** Takes the lock at `path` for this process, or throws `StoreError('locked')`. */
export async function acquireLock(fs: Fs, path: string, sessionId: string): Promise<void> {
  const me = JSON.stringify({ pid: process.pid, host: hostname(), since: Date.now() });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await fs.open(path, "wx");
      try {
        await handle.writeFile(me);
        await handle.sync();
      } finally {
        await handle.close();
      }
      return;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    }
    const owner = await readOwner(fs, path);
    const stale = owner === undefined || (owner.host === hostname() && !isAlive(owner.pid));
    if (!stale) {
      const who = owner === undefined ? "an unknown writer" : `pid ${owner.pid} on ${owner.host}`;
      throw new StoreError("locked", `session ${sessionId} is already open for writing by ${who} (lock file ${path})`, { file: path });
    }
    await fs.unlink(path).catch((e: NodeJS.ErrnoException) => {
      if (e.code !== "ENOENT") throw e;
    });
  }
  throw new StoreError("locked", `session ${sessionId}: could not take the lock ${path}`, { file: path });
}

export async function releaseLock(fs: Fs, path: string): Promise<void> {
  await fs.unlink(path).catch((e: NodeJS.ErrnoException) => {
    if (e.code !== "ENOENT") throw e;
  });
}
