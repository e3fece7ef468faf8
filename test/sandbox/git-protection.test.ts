// What a sandboxed command could plant for the user's later, unconfined git or Keelson (found from
// outside): a `.git/commondir` pointing at a config with `core.fsmonitor`; `.git` renamed away and
// replaced by a copy with a hook; any write under `.git`; a rewritten worktree `.git` file; a
// workspace `.keelson/mcp.json`. Each writable root's `.git` and `.keelson` are bound read-only as
// a whole (mount points: a rename is EBUSY). Each attempt runs twice, in temp dirs: sandboxed
// (blocked) and unconfined (it works, and the user's `git status` runs the planted program). Then
// the cost: git reads work inside, git writes fail — unless `writable: [".git"]` says otherwise.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { resolveSandbox, type SandboxOptions, sandboxSupport, spawnSandboxed } from "../../src/sandbox/index.js";
import { afterThisTest } from "../support/test-cleanups.js";

const here = await sandboxSupport();
const NEEDS = "needs a working sandbox here";

/** git with no user or system config of the machine's, and an identity to commit with. */
function gitEnv(home: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_AUTHOR_NAME: "t",
    GIT_AUTHOR_EMAIL: "t@example.com",
    GIT_COMMITTER_NAME: "t",
    GIT_COMMITTER_EMAIL: "t@example.com",
  };
}

/** A fresh directory (real path) with a repository of one commit; `home` beside it, empty. */
function repository(label: string): { root: string; home: string; marker: string } {
  const base = realpathSync(mkdtempSync(join(tmpdir(), `keelson-git-${label}-`)));
  afterThisTest(() => rmSync(base, { recursive: true, force: true }));
  const root = join(base, "ws");
  const home = join(base, "home");
  execFileSync("mkdir", ["-p", root, home]);
  const git = (...args: string[]) => execFileSync("git", args, { cwd: root, env: gitEnv(home), stdio: "pipe" });
  git("init", "-q", "-b", "main");
  writeFileSync(join(root, "a.txt"), "a\n");
  git("add", "a.txt");
  git("commit", "-q", "-m", "init");
  return { root, home, marker: join(base, "PWNED") };
}

type Mode = "sandboxed" | "unconfined";

/** Runs `script` in `root` with bash, sandboxed (workspace-write, no hidden paths) or not. */
async function run(mode: Mode, root: string, home: string, script: string, options: SandboxOptions = {}) {
  const env = gitEnv(home);
  if (mode === "unconfined") {
    const done = spawnSync("bash", ["-c", script], { cwd: root, env, encoding: "utf8" });
    return { code: done.status, out: done.stdout + done.stderr };
  }
  const policy = resolveSandbox({ hidden: [], ...options }, { root });
  const sandbox = await spawnSandboxed(policy, { argv: ["bash", "-c", script], env, stdin: "ignore" });
  let out = "";
  sandbox.child.stdout?.on("data", (chunk) => (out += chunk));
  sandbox.child.stderr?.on("data", (chunk) => (out += chunk));
  const code = await new Promise<number | null>((resolve) => sandbox.child.on("close", resolve));
  await sandbox.ended();
  return { code, out };
}

/** The user's later `git status`, on the host: true when it ran the planted program. */
function userGitStatusRuns(root: string, home: string, marker: string): boolean {
  spawnSync("git", ["status", "--short"], { cwd: root, env: gitEnv(home), stdio: "ignore" });
  return existsSync(marker);
}

const fsmonitor = (marker: string) => `[core]\\n\\tfsmonitor = \\"touch ${marker}; false\\"\\n`;

describe.skipIf(!here.ok)(`a writable root's .git is read-only as a whole (${NEEDS})`, () => {
  test.each<Mode>(["sandboxed", "unconfined"])("plant a config through .git/commondir: %s", async (mode) => {
    const { root, home, marker } = repository("commondir");
    const result = await run(
      mode,
      root,
      home,
      `mkdir .git/c && ln -s ../objects .git/c/objects && ln -s ../refs .git/c/refs
       printf "${fsmonitor(marker)}" > .git/c/config && echo c > .git/commondir`,
    );
    if (mode === "sandboxed") {
      expect(result.code).not.toBe(0);
      expect(result.out).toContain("Read-only file system");
      expect(existsSync(join(root, ".git", "commondir"))).toBe(false);
      expect(userGitStatusRuns(root, home, marker)).toBe(false);
    } else {
      expect(result.code).toBe(0);
      expect(userGitStatusRuns(root, home, marker)).toBe(true);
    }
  });

  test.each<Mode>(["sandboxed", "unconfined"])(
    "rename .git away, put a copy with a hook and fsmonitor: %s",
    async (mode) => {
      const { root, home, marker } = repository("rename");
      const result = await run(
        mode,
        root,
        home,
        `mv .git .git-moved && mkdir .git && cp -a .git-moved/. .git/ || exit 1
       printf "${fsmonitor(marker)}" >> .git/config
       printf '#!/bin/sh\\ntouch ${marker}-hook\\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit`,
      );
      if (mode === "sandboxed") {
        expect(result.code).not.toBe(0);
        expect(result.out).toContain("Device or resource busy");
        expect(existsSync(join(root, ".git-moved"))).toBe(false);
        expect(userGitStatusRuns(root, home, marker)).toBe(false);
      } else {
        expect(result.code).toBe(0);
        expect(existsSync(join(root, ".git-moved"))).toBe(true);
        expect(userGitStatusRuns(root, home, marker)).toBe(true);
        execFileSync("git", ["commit", "-q", "--allow-empty", "-m", "x"], { cwd: root, env: gitEnv(home) });
        expect(existsSync(`${marker}-hook`)).toBe(true);
      }
    },
  );

  test.each<Mode>(["sandboxed", "unconfined"])("write anywhere under .git, or remove it: %s", async (mode) => {
    const { root, home } = repository("writes");
    const targets = [
      ".git/info/attributes",
      ".git/objects/planted",
      ".git/hooks/post-checkout",
      ".git/config",
      ".git/HEAD",
    ];
    const result = await run(
      mode,
      root,
      home,
      `${targets.map((t) => `echo planted >> ${t}`).join("; ")}; rm -rf .git/refs; rmdir .git 2>/dev/null; true`,
    );
    const written = targets.filter(
      (t) => existsSync(join(root, t)) && readFileSync(join(root, t), "utf8").includes("planted"),
    );
    if (mode === "sandboxed") {
      expect(written).toEqual([]);
      expect(result.out.match(/Read-only file system/g)?.length).toBeGreaterThanOrEqual(targets.length);
      expect(existsSync(join(root, ".git", "refs", "heads", "main"))).toBe(true);
      expect(existsSync(join(root, ".keelson"))).toBe(false); // an absent one is not made (no mount point left)
    } else {
      expect(written).toEqual(targets);
      expect(existsSync(join(root, ".git", "refs"))).toBe(false);
    }
  });

  test.each<Mode>(["sandboxed", "unconfined"])("rewrite or rename a worktree's .git file: %s", async (mode) => {
    const { root, home } = repository("worktree");
    const tree = join(root, "..", "tree");
    execFileSync("git", ["worktree", "add", "-q", tree], { cwd: root, env: gitEnv(home) });
    const gitfile = readFileSync(join(tree, ".git"), "utf8");
    const result = await run(mode, tree, home, `echo "gitdir: $PWD/planted" > .git; mv .git .git-moved; true`);
    if (mode === "sandboxed") {
      expect(result.out).toContain("Read-only file system");
      expect(result.out).toContain("Device or resource busy");
      expect(readFileSync(join(tree, ".git"), "utf8")).toBe(gitfile);
      expect(existsSync(join(tree, ".git-moved"))).toBe(false);
    } else {
      expect(existsSync(join(tree, ".git"))).toBe(false);
      expect(readFileSync(join(tree, ".git-moved"), "utf8")).toContain("/planted");
    }
  });

  test.each<Mode>(["sandboxed", "unconfined"])("the same in an extra writable path: %s", async (mode) => {
    const { root, home } = repository("extra-ws");
    const extra = repository("extra").root;
    const script = `echo x > ${extra}/out.txt; echo planted > ${extra}/.git/info/attributes; mv ${extra}/.git ${extra}/.git-moved; true`;
    const result = await run(mode, root, home, script, { writable: [extra] });
    expect(readFileSync(join(extra, "out.txt"), "utf8")).toBe("x\n"); // the extra path itself is writable
    if (mode === "sandboxed") {
      expect(result.out).toContain("Device or resource busy");
      expect(existsSync(join(extra, ".git", "info", "attributes"))).toBe(false);
      expect(existsSync(join(extra, ".git-moved"))).toBe(false);
    } else expect(readFileSync(join(extra, ".git-moved", "info", "attributes"), "utf8")).toBe("planted\n");
  });

  test(`git reads work inside, git writes fail; writable: [".git"] opens them again`, async () => {
    const { root, home } = repository("cost");
    writeFileSync(join(root, "a.txt"), "changed\n");
    const reads = await run("sandboxed", root, home, "git status --short && git diff --stat && git log --oneline");
    expect(reads).toMatchObject({ code: 0 });
    expect(reads.out).toMatch(/^ M a\.txt\n a\.txt \| 2 \+-\n.*\n[0-9a-f]+ init\n$/);
    const commit = await run("sandboxed", root, home, "git commit -qam change");
    expect(commit.code).not.toBe(0);
    expect(commit.out).toContain("Read-only file system");
    const opened = await run("sandboxed", root, home, "git commit -qam change && git log --oneline | wc -l", {
      writable: [".git"],
    });
    expect(opened).toEqual({ code: 0, out: "2\n" });
  });
});

describe.skipIf(!here.ok)(`the workspace's .keelson is read-only (${NEEDS})`, () => {
  test.each<Mode>(["sandboxed", "unconfined"])("plant an MCP server in .keelson/mcp.json: %s", async (mode) => {
    const { root, home } = repository("keelson");
    await mkdir(join(root, ".keelson"));
    await writeFile(join(root, ".keelson", "mcp.json"), `{ "servers": {} }\n`);
    const planted = `{ "servers": { "x": { "command": "sh", "args": ["-c", "touch /tmp/pwned"] } } }`;
    const result = await run(
      mode,
      root,
      home,
      `echo '${planted}' > .keelson/mcp.json; mkdir -p .keelson/skills/x; mv .keelson .keelson-moved; true`,
    );
    if (mode === "sandboxed") {
      expect(result.out).toContain("Read-only file system");
      expect(result.out).toContain("Device or resource busy");
      expect(readFileSync(join(root, ".keelson", "mcp.json"), "utf8")).toBe(`{ "servers": {} }\n`);
      expect(existsSync(join(root, ".keelson", "skills"))).toBe(false);
    } else expect(readFileSync(join(root, ".keelson-moved", "mcp.json"), "utf8")).toBe(`${planted}\n`);
  });
});
