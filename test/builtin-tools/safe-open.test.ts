// safe-open: openForRead and openForRewrite open regular files only, never block on a FIFO, and
// check the opened descriptor — not just the path — against the workspace. A workspace whose
// `resolve` skips its checks stands in for a path swapped right after it was checked, so the
// post-open verification is exercised deterministically.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { link, mkdir, readFile, stat, symlink } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { ToolFailure, Workspace } from "../../src/builtin-tools/index.js";
import { openForRead, openForRewrite, readUtf8Text } from "../../src/builtin-tools/safe-open.js";
import { put, tempDir, settlesWithin } from "./support.js";

/** A workspace whose `resolve` trusts any path: as if the path changed just after the check. */
class UncheckedWorkspace extends Workspace {
  override async resolve(path: string): Promise<string> {
    return join(this.root, path);
  }
}

async function failureCode(promise: Promise<unknown>): Promise<string> {
  const error = await settlesWithin(
    promise.then(
      () => undefined,
      (e: unknown) => e,
    ),
  );
  expect(error).toBeInstanceOf(ToolFailure);
  return (error as ToolFailure).code;
}

const procFd = existsSync("/proc/self/fd");
if (!procFd) console.log("safe-open: /proc/self/fd is missing; the create-through-a-swapped-parent test needs Linux");

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((done) => server.close(done));
});

describe("openForRead", () => {
  test("opens a regular file inside the workspace: handle, absolute path and stat", async () => {
    const root = await tempDir();
    await put(root, "a.txt", "alpha");
    const opened = await openForRead(new Workspace({ root }), "a.txt");
    try {
      expect(opened.path).toBe(join(root, "a.txt"));
      expect(opened.stat.isFile()).toBe(true);
      expect(opened.stat.size).toBe(5);
      expect((await opened.handle.readFile()).toString()).toBe("alpha");
    } finally {
      await opened.handle.close();
    }
  });

  test("follows a symlink whose target stays inside the workspace", async () => {
    const root = await tempDir();
    await put(root, "real.txt", "real");
    await symlink(join(root, "real.txt"), join(root, "alias"));
    const opened = await openForRead(new Workspace({ root }), "alias");
    await opened.handle.close();
    expect(opened.stat.size).toBe(4);
  });

  test("a directory is not-a-file", async () => {
    const root = await tempDir();
    await mkdir(join(root, "d"));
    expect(await failureCode(openForRead(new Workspace({ root }), "d"))).toBe("not-a-file");
  });

  test("a FIFO is refused at once, without blocking on the open", async () => {
    const root = await tempDir();
    execFileSync("mkfifo", [join(root, "pipe")]);
    expect(await failureCode(openForRead(new Workspace({ root }), "pipe"))).toBe("not-a-regular-file");
  });

  test.skipIf(!existsSync("/dev/zero"))("a character device (/dev/zero) is refused", async () => {
    const root = await tempDir();
    const workspace = new Workspace({ root, allow: ["/dev"] });
    expect(await failureCode(openForRead(workspace, "/dev/zero"))).toBe("not-a-regular-file");
  });

  test("a Unix socket is refused", async () => {
    const root = await tempDir();
    const server = createServer();
    servers.push(server);
    await new Promise<void>((done) => server.listen(join(root, "sock"), done));
    expect(await failureCode(openForRead(new Workspace({ root }), "sock"))).toBe("not-a-regular-file");
  });

  test("a symlink to an outside file is refused after the open, even when the path check passed", async () => {
    const root = await tempDir();
    const outside = await tempDir("outside");
    await put(outside, "secret.txt", "secret");
    await symlink(join(outside, "secret.txt"), join(root, "link"));
    const error = await openForRead(new UncheckedWorkspace({ root }), "link").catch((e: unknown) => e);
    expect((error as ToolFailure).code).toBe("outside-workspace");
    expect((error as ToolFailure).message).toBe(
      `link resolves to ${join(outside, "secret.txt")}, outside the workspace (root ${root}); paths must stay inside it`,
    );
  });
});

describe("openForRewrite", () => {
  test("creates missing parent directories and the file, reporting created", async () => {
    const root = await tempDir();
    const opened = await openForRewrite(new Workspace({ root }), "a/b/c.txt", "write", { create: true });
    await opened.handle.close();
    expect(opened.created).toBe(true);
    expect(opened.path).toBe(join(root, "a/b/c.txt"));
    expect((await stat(opened.path)).isFile()).toBe(true);
  });

  test("opens an existing file without truncating it", async () => {
    const root = await tempDir();
    await put(root, "f.txt", "keep");
    const opened = await openForRewrite(new Workspace({ root }), "f.txt", "edit", { create: false });
    await opened.handle.close();
    expect(opened.created).toBe(false);
    expect(await readFile(join(root, "f.txt"), "utf8")).toBe("keep");
  });

  // Without /proc/self/fd the fallback may mkdir through the swapped parent before refusing.
  test.skipIf(!procFd)(
    "a parent directory that is a symlink out of the workspace is refused before anything is created",
    async () => {
      const root = await tempDir();
      const outside = await tempDir("outside");
      await symlink(outside, join(root, "escape"));
      const workspace = new UncheckedWorkspace({ root });
      expect(await failureCode(openForRewrite(workspace, "escape/new/x.txt", "write", { create: true }))).toBe(
        "outside-workspace",
      );
      expect(existsSync(join(outside, "new"))).toBe(false);
    },
  );

  test("a final-component symlink is refused even when it points inside (links are never followed)", async () => {
    const root = await tempDir();
    await put(root, "real.txt", "real");
    await symlink(join(root, "real.txt"), join(root, "alias"));
    const error = await openForRewrite(new Workspace({ root }), "alias", "write", { create: true }).catch(
      (e: unknown) => e,
    );
    expect((error as ToolFailure).code).toBe("symbolic-link");
    expect((error as ToolFailure).message).toMatch(/^alias is a symbolic link; write does not follow links/);
  });

  test("a file with more than one hard link is refused", async () => {
    const root = await tempDir();
    await put(root, "a.txt", "shared");
    await link(join(root, "a.txt"), join(root, "b.txt"));
    const error = await openForRewrite(new Workspace({ root }), "a.txt", "edit", { create: false }).catch(
      (e: unknown) => e,
    );
    expect((error as ToolFailure).code).toBe("hard-link");
    expect((error as ToolFailure).message).toMatch(/^a\.txt has 2 hard links; edit refuses it/);
  });

  test("a FIFO is refused without blocking", async () => {
    const root = await tempDir();
    execFileSync("mkfifo", [join(root, "pipe")]);
    expect(await failureCode(openForRewrite(new Workspace({ root }), "pipe", "write", { create: true }))).toBe(
      "not-a-regular-file",
    );
  });

  test("a missing file without create is ENOENT naming the path, not the /proc path", async () => {
    const root = await tempDir();
    const error = await openForRewrite(new Workspace({ root }), "none.txt", "edit", { create: false }).catch(
      (e: unknown) => e,
    );
    expect((error as { code?: string }).code).toBe("ENOENT");
    expect((error as Error).message).toContain(join(root, "none.txt"));
    expect((error as Error).message).not.toContain("/proc/");
  });
});

describe("readUtf8Text", () => {
  test("keeps a byte-order mark, so a rewrite writes it back", async () => {
    const root = await tempDir();
    await put(root, "bom.txt", Buffer.from([0xef, 0xbb, 0xbf, 0x61]));
    const opened = await openForRewrite(new Workspace({ root }), "bom.txt", "edit", { create: false });
    try {
      expect(await readUtf8Text(opened, "bom.txt", "edit")).toBe("\ufeffa");
    } finally {
      await opened.handle.close();
    }
  });
});
