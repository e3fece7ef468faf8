export type GitHead = {
    readonly branch: string;
} | {
    readonly detached: string;
};
/** The git directory of the repository rooted at `root` (following a worktree's `.git` file), or undefined. */
export declare function gitDirectory(root: string): Promise<string | undefined>;
/** The checked-out branch, or the short sha of a detached HEAD; undefined when HEAD is unreadable or odd. */
export declare function readGitHead(gitDir: string): Promise<GitHead | undefined>;
/** True when `git status --porcelain` lists anything; undefined when git is absent, fails or times out. */
export declare function gitTreeDirty(root: string, gitDir: string, timeoutMs: number): Promise<boolean | undefined>;
