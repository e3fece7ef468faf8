// Path confinement: every path a built-in tool touches must resolve inside the workspace root or
// an explicitly allowed root — lexically and through symbolic links.
import { readFile, symlink } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { ToolFailure, Workspace } from "../../src/builtin-tools/index.js";
import { put, tempDir, textOf, toolRig } from "./support.js";

describe("Workspace.resolve", () => {
  test("resolves relative paths against the root", async () => {
    const root = await tempDir();
    expect(await new Workspace({ root }).resolve("a/b.txt")).toBe(join(root, "a/b.txt"));
    expect(await new Workspace({ root }).resolve(join(root, "x"))).toBe(join(root, "x"));
  });

  test("refuses ../ escapes with a ToolFailure naming the path and the root", async () => {
    const root = await tempDir();
    const error = await new Workspace({ root }).resolve("../x").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolFailure);
    expect((error as ToolFailure).code).toBe("outside-workspace");
    expect((error as ToolFailure).message).toBe(
      `../x is outside the workspace (root ${root}); paths must stay inside it`,
    );
  });

  test("a sibling whose name starts with the root's name is still outside", async () => {
    const root = await tempDir();
    await expect(new Workspace({ root }).resolve(`${root}-other/x`)).rejects.toThrow(/outside the workspace/);
  });

  test("an extra allowed root admits paths below it", async () => {
    const root = await tempDir();
    const extra = await tempDir("extra");
    const ws = new Workspace({ root, allow: [extra] });
    expect(await ws.resolve(join(extra, "f"))).toBe(join(extra, "f"));
    await expect(ws.resolve("/etc/passwd")).rejects.toThrow(/outside the workspace \(roots /);
  });

  test("a dangling symlink inside the root is refused (its target cannot be checked)", async () => {
    const root = await tempDir();
    await symlink("/nonexistent-keelson-target", join(root, "dangling"));
    await expect(new Workspace({ root }).resolve("dangling")).rejects.toThrow(/dangling symbolic link/);
  });

  test("a symlink pointing inside the root is fine", async () => {
    const root = await tempDir();
    await put(root, "real/f.txt", "hi");
    await symlink(join(root, "real"), join(root, "alias"));
    expect(await new Workspace({ root }).resolve("alias/f.txt")).toBe(join(root, "alias/f.txt"));
  });
});

describe("tools refuse paths outside the workspace", () => {
  test("read ../x is an error result", async () => {
    const rig = await toolRig();
    const outcome = await rig.call("read", { path: "../x" });
    expect(outcome.isError).toBe(true);
    expect(textOf(outcome)).toMatch(/^\.\.\/x is outside the workspace/);
    expect(outcome.meta).toEqual({ code: "outside-workspace" });
  });

  test("read /etc/passwd is an error result", async () => {
    const rig = await toolRig();
    const outcome = await rig.call("read", { path: "/etc/passwd" });
    expect(outcome.isError).toBe(true);
    expect(textOf(outcome)).toMatch(/outside the workspace/);
  });

  test("a symlink inside the root pointing outside is refused by read, write, edit, ls and grep", async () => {
    const rig = await toolRig();
    const outside = await tempDir("outside");
    await put(outside, "secret.txt", "secret");
    await symlink(outside, join(rig.root, "escape"));
    await symlink(join(outside, "secret.txt"), join(rig.root, "secret-link"));
    const calls: [string, object][] = [
      ["read", { path: "secret-link" }],
      ["read", { path: "escape/secret.txt" }],
      ["write", { path: "escape/new.txt", content: "x" }],
      ["edit", { path: "secret-link", oldString: "secret", newString: "public" }],
      ["ls", { path: "escape" }],
      ["grep", { pattern: "secret", path: "escape" }],
      ["glob", { pattern: "*", path: "escape" }],
    ];
    for (const [name, args] of calls) {
      const outcome = await rig.call(name, args);
      expect(outcome.isError, `${name} ${JSON.stringify(args)}`).toBe(true);
      expect(textOf(outcome)).toMatch(/symbolic link to .*outside the workspace/);
    }
    expect(await readFile(join(outside, "secret.txt"), "utf8")).toBe("secret");
  });

  test("walks do not follow symlinks out of the root", async () => {
    const rig = await toolRig();
    const outside = await tempDir("outside");
    await put(outside, "secret.txt", "secret");
    await symlink(outside, join(rig.root, "escape"));
    await put(rig.root, "mine.txt", "mine");
    expect(textOf(await rig.call("glob", { pattern: "**/*.txt" }))).toBe("mine.txt");
    expect(textOf(await rig.call("grep", { pattern: "secret|mine" }))).toBe("mine.txt:1: mine");
  });
});
