// Where a contributor looks: the agent's cwd, the project root (nearest ancestor holding `.git`)
// and the directories from the root down to the cwd. Pure path arithmetic plus `lstat` probes.
import { lstat } from "node:fs/promises";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
/** The cwd a contributor works from: the option, else the agent's session cwd, else the process's. */
export function agentCwd(agent, cwd) {
    return resolve(cwd ?? agent.session.header.cwd ?? process.cwd());
}
/** True when `path` exists (without following a final symlink). */
export async function exists(path) {
    try {
        await lstat(path);
        return true;
    }
    catch {
        return false;
    }
}
/** The nearest ancestor of `cwd` (itself included) containing `.git` (a directory or a worktree file), else `cwd`. */
export async function findProjectRoot(cwd) {
    for (let dir = cwd;; dir = dirname(dir)) {
        if (await exists(join(dir, ".git")))
            return dir;
        if (dirname(dir) === dir)
            return cwd;
    }
}
/** True when `path` is `root` or lies below it. */
export function isWithin(root, path) {
    const rel = relative(root, path);
    return rel === "" || (!isAbsolute(rel) && rel !== ".." && !rel.startsWith(`..${sep}`));
}
/** Every directory from `root` down to `dir`, broadest first (just `[dir]` when it is not below `root`). */
export function directoriesDown(root, dir) {
    if (!isWithin(root, dir))
        return [dir];
    const parts = relative(root, dir)
        .split(sep)
        .filter((p) => p !== "");
    const dirs = [root];
    for (const part of parts)
        dirs.push(join(dirs[dirs.length - 1], part));
    return dirs;
}
/** The `code` of a Node system error (ENOENT, EACCES…), else undefined. */
export function errorCode(error) {
    const code = error?.code;
    return typeof code === "string" ? code : undefined;
}
//# sourceMappingURL=paths.js.map