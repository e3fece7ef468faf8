// The workspace baseline never runs a program the repository names: a workspace's .git/config is
// the workspace author's, and `core.fsmonitor` or a `filter.<driver>.clean` in it would run on
// every `keelson run`/`chat` — even with every tool denied — if composing the prefix ran a plain
// `git status`. The test repositories are built with git pointed at a temp HOME and no system
// config, so the user's own git configuration is neither read nor touched by the setup.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { describeWorkspace, workspaceBaseline } from "../../src/context/index.js";
import { put, runTurn, sentPrefix, tempDir, textOf } from "./support.js";

const hasGit = (() => {
  try {
    execFileSync("git", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();
if (!hasGit) console.log("git-safety: skipped, git is not installed");

interface TrapRepo {
  readonly root: string;
  /** Created by the fsmonitor hook / the clean filter if git ever runs them. */
  readonly fsmonitorMarker: string;
  readonly filterMarker: string;
  /** Runs git in the repository with a temp HOME and no system config. */
  git(...args: string[]): string;
}

/**
 * A repository whose config runs a marker-writing program from `core.fsmonitor` and from a clean
 * filter applied to every file (`* filter=evil`), with a tracked file modified at the same size
 * (so git must hash it, through the filter, to know it changed). The traps are set after the
 * commit, so building the repository does not spring them.
 */
async function trapRepo(): Promise<TrapRepo> {
  const root = await tempDir("trap-repo");
  const outside = await tempDir("trap-markers");
  const env = { PATH: process.env.PATH ?? "", HOME: outside, GIT_CONFIG_NOSYSTEM: "1", LC_ALL: "C" };
  const git = (...args: string[]): string =>
    execFileSync("git", args, { cwd: root, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  git("init", "-q", "-b", "main");
  git("config", "user.email", "test@example.invalid");
  git("config", "user.name", "test");
  await put(root, "a.txt", "one\n");
  await put(root, ".gitattributes", "* filter=evil\n");
  git("add", "-A");
  git("commit", "-q", "-m", "init");
  const fsmonitorMarker = join(outside, "fsmonitor-ran");
  const filterMarker = join(outside, "filter-ran");
  const hook = join(outside, "fsmonitor.sh");
  await writeFile(hook, `#!/bin/sh\ntouch '${fsmonitorMarker}'\n`);
  await chmod(hook, 0o755);
  git("config", "core.fsmonitor", hook);
  git("config", "filter.evil.clean", `sh -c "touch '${filterMarker}'; cat"`);
  await put(root, "a.txt", "two\n");
  return { root, fsmonitorMarker, filterMarker, git };
}

describe.skipIf(!hasGit)("the baseline runs no repository-controlled program", () => {
  test("the trap is armed: a plain git status runs both the fsmonitor hook and the clean filter", async () => {
    const repo = await trapRepo();
    repo.git("status", "--porcelain");
    expect(existsSync(repo.fsmonitorMarker)).toBe(true);
    expect(existsSync(repo.filterMarker)).toBe(true);
  });

  test("by default the baseline runs no git at all: branch from HEAD, no dirty flag, nothing ran", async () => {
    const repo = await trapRepo();
    const text = textOf(sentPrefix(await runTurn(repo.root, [workspaceBaseline()]))[0]);
    expect(text.split("\n")).toContain("Git branch: main");
    expect(existsSync(repo.fsmonitorMarker)).toBe(false);
    expect(existsSync(repo.filterMarker)).toBe(false);
  });

  test("gitStatus: true still reports the modified file, with the fsmonitor and the filter neutralized", async () => {
    const repo = await trapRepo();
    const text = await describeWorkspace(repo.root, { gitStatus: true });
    expect(text.split("\n")).toContain("Git branch: main (uncommitted changes)");
    expect(existsSync(repo.fsmonitorMarker)).toBe(false);
    expect(existsSync(repo.filterMarker)).toBe(false);
  });

  test("gitStatus: true on the trapped repository restored to its commit says clean, still running nothing", async () => {
    const repo = await trapRepo();
    await put(repo.root, "a.txt", "one\n"); // same bytes as committed, newer mtime: git must hash it
    const text = await describeWorkspace(repo.root, { gitStatus: true });
    expect(text.split("\n")).toContain("Git branch: main (clean)");
    expect(existsSync(repo.fsmonitorMarker)).toBe(false);
    expect(existsSync(repo.filterMarker)).toBe(false);
  });

  test("a partial clone's lazy fetch through an ext:: promisor remote runs nothing during the status", async () => {
    // Found from outside: an inexact rename staged, the old blob deleted, and a promisor remote
    // `ext::sh -c touch …` made the hardened status fetch the blob — running sh on the host.
    const root = await tempDir("lazy-fetch-repo");
    const outside = await tempDir("lazy-fetch-marker");
    const marker = join(outside, "lazy-fetch-ran");
    const env = { PATH: process.env.PATH ?? "", HOME: outside, GIT_CONFIG_NOSYSTEM: "1", LC_ALL: "C" };
    const git = (...args: string[]): string =>
      execFileSync("git", args, { cwd: root, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    git("init", "-q", "-b", "main");
    await put(root, "a.txt", `${Array.from({ length: 200 }, (_, i) => i + 1).join("\n")}\n`);
    git("add", "a.txt");
    git("-c", "user.email=t@example.invalid", "-c", "user.name=t", "commit", "-q", "-m", "a");
    git("mv", "a.txt", "b.txt");
    await put(root, "b.txt", `${Array.from({ length: 200 }, (_, i) => i + 1).join("\n")}\nextra\n`);
    git("add", "b.txt");
    const blob = git("rev-parse", "HEAD:a.txt").trim();
    await rm(join(root, ".git", "objects", blob.slice(0, 2), blob.slice(2)));
    git("config", "core.repositoryformatversion", "1");
    git("config", "extensions.partialClone", "origin");
    git("config", "remote.origin.promisor", "true");
    git("config", "protocol.ext.allow", "always");
    git("config", "remote.origin.url", `ext::sh -c touch% ${marker}`);
    try {
      git("status", "--porcelain"); // the trap is armed: a plain status fetches, and so runs sh
    } catch {
      // the fetch "fails" (sh speaks no git protocol) after it ran
    }
    expect(existsSync(marker)).toBe(true);
    await rm(marker);
    await describeWorkspace(root, { gitStatus: true });
    expect(existsSync(marker)).toBe(false);
  });

  test("a filter driver whose name cannot be overridden safely means no status at all", async () => {
    const repo = await trapRepo();
    await rm(repo.filterMarker, { force: true });
    repo.git("config", "filter.a=b.clean", `sh -c "touch '${repo.filterMarker}'; cat"`);
    const text = await describeWorkspace(repo.root, { gitStatus: true });
    expect(text.split("\n")).toContain("Git branch: main");
    expect(existsSync(repo.fsmonitorMarker)).toBe(false);
    expect(existsSync(repo.filterMarker)).toBe(false);
  });
});
