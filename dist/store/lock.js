// The single-writer lock for one session: `<id>.lock`, holding the owner's pid, host, start time
// and a nonce. A live owner (any process, this one included) refuses a second writer; a lock
// whose pid is dead on this host is stale and is taken over.
//
// The lock file is never seen half-written: its content is written to a private temp file,
// fsynced, then `link`ed into place (atomic, fails if the lock exists). Taking over a stale lock
// first renames it aside (atomic: of several contenders one gets it) and then checks that what
// it moved is the very lock it judged stale; if a contender had already replaced it with a
// fresh lock, that lock is put back and this writer is refused.
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { StoreError } from "./types.js";
const isCode = (e, code) => e?.code === code;
function isAlive(pid) {
    try {
        process.kill(pid, 0);
        return true;
    }
    catch (e) {
        return isCode(e, "EPERM"); // exists, owned by someone else
    }
}
async function readText(fs, path) {
    try {
        return await fs.readFile(path, "utf8");
    }
    catch (e) {
        if (isCode(e, "ENOENT"))
            return undefined;
        throw e;
    }
}
function parseOwner(text) {
    try {
        const raw = JSON.parse(text);
        return typeof raw.pid === "number" && typeof raw.host === "string" ? { pid: raw.pid, host: raw.host } : undefined;
    }
    catch {
        return undefined;
    }
}
async function removeIfPresent(fs, path) {
    await fs.unlink(path).catch((e) => {
        if (!isCode(e, "ENOENT"))
            throw e;
    });
}
/** Takes the lock at `path` for this process, or throws `StoreError('locked')`. */
export async function acquireLock(fs, path, sessionId) {
    const nonce = randomBytes(6).toString("hex");
    const temp = `${path}.${nonce}.tmp`;
    const handle = await fs.open(temp, "wx");
    try {
        // No fsync: after a machine crash the owner is gone anyway, and an empty or garbled lock
        // reads as stale.
        await handle.writeFile(JSON.stringify({ pid: process.pid, host: hostname(), since: Date.now(), nonce }));
    }
    finally {
        await handle.close();
    }
    try {
        for (let attempt = 0; attempt < 3; attempt++) {
            try {
                await fs.link(temp, path);
                return;
            }
            catch (e) {
                if (!isCode(e, "EEXIST"))
                    throw e;
            }
            const text = await readText(fs, path);
            if (text === undefined)
                continue; // released meanwhile: try again
            const owner = parseOwner(text);
            const stale = owner === undefined || (owner.host === hostname() && !isAlive(owner.pid));
            if (!stale) {
                throw new StoreError("locked", `session ${sessionId} is already open for writing by pid ${owner.pid} on ${owner.host} (lock file ${path})`, { file: path });
            }
            await takeOverStale(fs, path, text, nonce);
        }
        throw new StoreError("locked", `session ${sessionId}: could not take the lock ${path} (contended)`, { file: path });
    }
    finally {
        await removeIfPresent(fs, temp);
    }
}
/** Moves the stale lock (whose content was `judged`) out of the way, unless it was replaced. */
async function takeOverStale(fs, path, judged, nonce) {
    const aside = `${path}.${nonce}.stale`;
    try {
        await fs.rename(path, aside);
    }
    catch (e) {
        if (isCode(e, "ENOENT"))
            return;
        throw e;
    }
    const moved = await readText(fs, aside);
    if (moved !== judged && moved !== undefined) {
        // A contender replaced the stale lock before us: put its live lock back.
        await fs.link(aside, path).catch((e) => {
            if (!isCode(e, "EEXIST"))
                throw e;
        });
    }
    await removeIfPresent(fs, aside);
}
export async function releaseLock(fs, path) {
    await removeIfPresent(fs, path);
}
//# sourceMappingURL=lock.js.map