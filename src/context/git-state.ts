// What the baseline says about git: the branch, read straight from `HEAD` (no child process),
// and — only when asked (`gitStatus: true`) — whether the tree is dirty, from `git status
// --porcelain` pinned to the repository found (GIT_DIR/GIT_WORK_TREE, so git never discovers a
// different one). The repository is not trusted: its `.git/config` can name programs git runs
// during a status (`core.fsmonitor`; a `filter.<driver>.clean`/`process` for files whose stat
// changed), so the call overrides every such key it knows of. Residual risk, and why it is
// opt-in: a program-running key this list does not know (a future git's), or a git bug.
import { execFile } from "node:child_process";
import { lstat, readFile } from "node:fs/promises";
import { join, resolve } from "node:path";

export type GitHead = { readonly branch: string } | { readonly detached: string };

/** The git directory of the repository rooted at `root` (following a worktree's `.git` file), or undefined. */
export async function gitDirectory(root: string): Promise<string | undefined> {
  const dotGit = join(root, ".git");
  try {
    const info = await lstat(dotGit);
    if (info.isDirectory()) return dotGit;
    if (!info.isFile()) return undefined;
    const match = /^gitdir:\s*(.+?)\s*$/m.exec(await readFile(dotGit, "utf8"));
    return match === null ? undefined : resolve(root, match[1]!);
  } catch {
    return undefined;
  }
}

/** The checked-out branch, or the short sha of a detached HEAD; undefined when HEAD is unreadable or odd. */
export async function readGitHead(gitDir: string): Promise<GitHead | undefined> {
  let head: string;
  try {
    head = (await readFile(join(gitDir, "HEAD"), "utf8")).trim();
  } catch {
    return undefined;
  }
  const ref = /^ref:\s*(\S+)$/.exec(head);
  if (ref !== null) return { branch: ref[1]!.replace(/^refs\/heads\//, "") };
  if (/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(head)) return { detached: head.slice(0, 7) };
  return undefined;
}

/** The environment of every git call: pinned to the repository, no system config, no prompts or locks. */
function gitEnvironment(root: string, gitDir: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    GIT_DIR: gitDir,
    GIT_WORK_TREE: root,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_OPTIONAL_LOCKS: "0",
    GIT_TERMINAL_PROMPT: "0",
    // A partial clone's lazy fetch of a missing blob runs the promisor remote's transport (an
    // `ext::sh -c …` one runs a program; found from outside): never fetch during a status.
    GIT_NO_LAZY_FETCH: "1",
    LC_ALL: "C",
  };
}

/** Runs git: its stdout, or its exit code (-1: absent, killed or timed out). */
function runGit(
  args: readonly string[],
  root: string,
  gitDir: string,
  timeoutMs: number,
): Promise<{ readonly stdout: string } | { readonly failed: number }> {
  const options = { cwd: root, env: gitEnvironment(root, gitDir), timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 };
  return new Promise((done) => {
    try {
      execFile("git", args, { ...options, windowsHide: true }, (error, stdout) => {
        if (error === null) done({ stdout });
        else done({ failed: typeof error.code === "number" && error.signal == null ? error.code : -1 });
      });
    } catch {
      done({ failed: -1 });
    }
  });
}

/** Overrides that keep `git status` from starting a program the repository's config names. */
const HARDENING = [
  "core.fsmonitor=", // empty: off, both as a bool (git ≥ 2.36) and as a hook path (older)
  "core.hooksPath=/dev/null",
  "core.untrackedCache=false",
  "core.attributesFile=/dev/null",
  "diff.external=",
  "protocol.allow=never", // no transport at all (a git older than GIT_NO_LAZY_FETCH, 2.44, still fetches lazily)
];

/**
 * `-c` overrides emptying every filter driver the config defines (all scopes, includes followed:
 * `git config` reads config and runs nothing). An empty command is no filter; `required=false`
 * so git reads the file as it is instead of failing. Undefined when a driver's name cannot be
 * passed safely on the command line (then no status is run at all).
 */
async function filterOverrides(root: string, gitDir: string, timeoutMs: number): Promise<string[] | undefined> {
  const listed = await runGit(
    ["config", "--null", "--name-only", "--get-regexp", "^filter\\."],
    root,
    gitDir,
    timeoutMs,
  );
  if ("failed" in listed) return listed.failed === 1 ? [] : undefined; // 1: no filter defined
  const names = new Set<string>();
  for (const key of listed.stdout.split("\0")) {
    if (key === "") continue;
    const driver = key.slice("filter.".length, key.lastIndexOf("."));
    if (driver === "" || /[=\n\0]/.test(driver)) return undefined;
    names.add(driver);
  }
  return [...names].flatMap((driver) =>
    ["clean=", "smudge=", "process=", "required=false"].map((setting) => `filter.${driver}.${setting}`),
  );
}

/**
 * True when `git status --porcelain` lists anything; undefined when git is absent, fails or times
 * out. Runs with every program-starting key it knows of overridden (see the module comment) and
 * without recursing into submodules (their configs are not read by the override pass).
 */
export async function gitTreeDirty(root: string, gitDir: string, timeoutMs: number): Promise<boolean | undefined> {
  const filters = await filterOverrides(root, gitDir, timeoutMs);
  if (filters === undefined) return undefined;
  const overrides = [...HARDENING, ...filters].flatMap((setting) => ["-c", setting]);
  const status = await runGit(
    [...overrides, "status", "--porcelain", "--untracked-files=normal", "--ignore-submodules=all"],
    root,
    gitDir,
    timeoutMs,
  );
  return "failed" in status ? undefined : status.stdout.trim() !== "";
}
