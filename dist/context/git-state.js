// What the baseline says about git: the branch, read straight from `HEAD` (no child process),
// and — optionally — whether the tree is dirty, from one `git status --porcelain` call pinned
// to the repository found (GIT_DIR/GIT_WORK_TREE, so git never discovers a different one).
import { execFile } from "node:child_process";
import { lstat, readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
/** The git directory of the repository rooted at `root` (following a worktree's `.git` file), or undefined. */
export async function gitDirectory(root) {
    const dotGit = join(root, ".git");
    try {
        const info = await lstat(dotGit);
        if (info.isDirectory())
            return dotGit;
        if (!info.isFile())
            return undefined;
        const match = /^gitdir:\s*(.+?)\s*$/m.exec(await readFile(dotGit, "utf8"));
        return match === null ? undefined : resolve(root, match[1]);
    }
    catch {
        return undefined;
    }
}
/** The checked-out branch, or the short sha of a detached HEAD; undefined when HEAD is unreadable or odd. */
export async function readGitHead(gitDir) {
    let head;
    try {
        head = (await readFile(join(gitDir, "HEAD"), "utf8")).trim();
    }
    catch {
        return undefined;
    }
    const ref = /^ref:\s*(\S+)$/.exec(head);
    if (ref !== null)
        return { branch: ref[1].replace(/^refs\/heads\//, "") };
    if (/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(head))
        return { detached: head.slice(0, 7) };
    return undefined;
}
/** True when `git status --porcelain` lists anything; undefined when git is absent, fails or times out. */
export function gitTreeDirty(root, gitDir, timeoutMs) {
    return new Promise((done) => {
        const env = { ...process.env, GIT_DIR: gitDir, GIT_WORK_TREE: root, GIT_OPTIONAL_LOCKS: "0", LC_ALL: "C" };
        try {
            execFile("git", ["status", "--porcelain", "--untracked-files=normal"], { cwd: root, env, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024, windowsHide: true }, (error, stdout) => {
                done(error === null ? stdout.trim() !== "" : undefined);
            });
        }
        catch {
            done(undefined);
        }
    });
}
//# sourceMappingURL=git-state.js.map