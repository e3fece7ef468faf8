// write and edit on a real workspace: they never change a byte they were not asked to change
// (edit keeps every untouched byte; non-UTF-8 and binary files are refused and left identical),
// refuse special files without blocking, refuse files with other hard links, never follow a
// symlink, and a path flipped to a symlink out of the workspace never gets the outside file written.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, link, mkdir, readdir, readFile, rename, rm, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { put, tempDir, textOf, toolRig, settlesWithin } from "./support.js";

const procFd = existsSync("/proc/self/fd");
if (!procFd) console.log("write-edit-safety: /proc/self/fd is missing; the race tests need Linux and are skipped");

const latin1 = Buffer.from("caf\xe9 au lait\nline two: r\xe9sum\xe9\n", "latin1");
/** An ELF header, some zeros and a string an edit could match. */
const elf = Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]), Buffer.alloc(56), Buffer.from("needle")]);

describe("edit changes only the bytes it replaces", () => {
  test("every byte before and after the replacement is identical (BOM, CRLF, multibyte text)", async () => {
    const rig = await toolRig();
    const before = Buffer.from("\ufeffhéllo wörld\r\n😀 keep — this\r\nTARGET\r\nçà et là\r\n", "utf8");
    await put(rig.root, "f.txt", before);
    const outcome = await rig.call("edit", { path: "f.txt", oldString: "TARGET", newString: "replaced ✓" });
    expect(outcome.isError).toBe(false);
    const after = await readFile(join(rig.root, "f.txt"));
    const at = before.indexOf("TARGET");
    const tail = before.subarray(at + "TARGET".length);
    expect(after.subarray(0, at).equals(before.subarray(0, at))).toBe(true);
    expect(after.subarray(after.length - tail.length).equals(tail)).toBe(true);
    expect(after.subarray(at, after.length - tail.length).toString("utf8")).toBe("replaced ✓");
  });

  test("a Latin-1 file is refused (not-utf8) and left byte-identical", async () => {
    const rig = await toolRig();
    await put(rig.root, "latin1.txt", latin1);
    const outcome = await rig.call("edit", { path: "latin1.txt", oldString: "line two", newString: "line 2" });
    expect(outcome.isError).toBe(true);
    expect(outcome.meta).toEqual({ code: "not-utf8" });
    expect(textOf(outcome)).toMatch(/^latin1\.txt is not valid UTF-8 text/);
    expect((await readFile(join(rig.root, "latin1.txt"))).equals(latin1)).toBe(true);
  });

  test("a binary (ELF) file is refused (binary-file) and left byte-identical", async () => {
    const rig = await toolRig();
    await put(rig.root, "prog", elf);
    const outcome = await rig.call("edit", { path: "prog", oldString: "needle", newString: "pinned" });
    expect(outcome.meta).toEqual({ code: "binary-file" });
    expect((await readFile(join(rig.root, "prog"))).equals(elf)).toBe(true);
  });

  test("a file truncated inside a multibyte sequence is refused", async () => {
    const rig = await toolRig();
    const cut = Buffer.from("abc é", "utf8").subarray(0, -1);
    await put(rig.root, "cut.txt", cut);
    const outcome = await rig.call("edit", { path: "cut.txt", oldString: "abc", newString: "xyz" });
    expect(outcome.meta).toEqual({ code: "not-utf8" });
    expect((await readFile(join(rig.root, "cut.txt"))).equals(cut)).toBe(true);
  });
});

describe("write refuses to overwrite what is not UTF-8 text", () => {
  test("overwriting a Latin-1 file is refused and the file is left byte-identical", async () => {
    const rig = await toolRig();
    await put(rig.root, "latin1.txt", latin1);
    const outcome = await rig.call("write", { path: "latin1.txt", content: "new" });
    expect(outcome.meta).toEqual({ code: "not-utf8" });
    expect((await readFile(join(rig.root, "latin1.txt"))).equals(latin1)).toBe(true);
  });

  test("overwriting a binary file is refused and the file is left byte-identical", async () => {
    const rig = await toolRig();
    await put(rig.root, "prog", elf);
    const outcome = await rig.call("write", { path: "prog", content: "#!/bin/sh\n" });
    expect(outcome.meta).toEqual({ code: "binary-file" });
    expect((await readFile(join(rig.root, "prog"))).equals(elf)).toBe(true);
  });

  test("overwriting keeps the file itself: same inode, same mode", async () => {
    const rig = await toolRig();
    const path = await put(rig.root, "run.sh", "echo old\n");
    await chmod(path, 0o750);
    const before = await stat(path);
    expect(textOf(await rig.call("write", { path: "run.sh", content: "echo new\n" }))).toBe(
      "Overwrote run.sh (9 bytes)",
    );
    const after = await stat(path);
    expect([after.ino, after.mode]).toEqual([before.ino, before.mode]);
    expect(await readFile(path, "utf8")).toBe("echo new\n");
  });
});

describe("write and edit refuse special files without blocking", () => {
  test("a FIFO is refused by edit and write at once", async () => {
    const rig = await toolRig();
    execFileSync("mkfifo", [join(rig.root, "pipe")]);
    const edit = await settlesWithin(rig.call("edit", { path: "pipe", oldString: "a", newString: "b" }));
    const write = await settlesWithin(rig.call("write", { path: "pipe", content: "x" }));
    expect([edit.meta, write.meta]).toEqual([{ code: "not-a-regular-file" }, { code: "not-a-regular-file" }]);
  });

  test.skipIf(!existsSync("/dev/null"))("a device is refused by write", async () => {
    const rig = await toolRig({ allow: ["/dev"] });
    const outcome = await settlesWithin(rig.call("write", { path: "/dev/null", content: "x" }));
    expect(outcome.meta).toEqual({ code: "not-a-regular-file" });
  });
});

describe("write and edit refuse hard links and symlinks", () => {
  test("a file hard-linked from outside the workspace is refused, and the outside file is unchanged", async () => {
    const rig = await toolRig();
    const outside = await tempDir("outside");
    const secret = await put(outside, "secret.txt", "secret\n");
    await link(secret, join(rig.root, "linked.txt"));
    const edit = await rig.call("edit", { path: "linked.txt", oldString: "secret", newString: "public" });
    const write = await rig.call("write", { path: "linked.txt", content: "public\n" });
    expect([edit.meta, write.meta]).toEqual([{ code: "hard-link" }, { code: "hard-link" }]);
    expect(textOf(write)).toMatch(/^linked\.txt has 2 hard links; write refuses it because changing it would also/);
    expect(await readFile(secret, "utf8")).toBe("secret\n");
  });

  test("a symlink is not followed even when it points inside the workspace", async () => {
    const rig = await toolRig();
    await put(rig.root, "real.txt", "real\n");
    await symlink(join(rig.root, "real.txt"), join(rig.root, "alias"));
    const write = await rig.call("write", { path: "alias", content: "x" });
    const edit = await rig.call("edit", { path: "alias", oldString: "real", newString: "fake" });
    expect([write.meta, edit.meta]).toEqual([{ code: "symbolic-link" }, { code: "symbolic-link" }]);
    expect(await readFile(join(rig.root, "real.txt"), "utf8")).toBe("real\n");
  });
});

describe("write and edit are race-free", () => {
  /** Flips `name` in `root` between a regular file and a symlink to `outsideFile` until stopped. */
  function flipFile(root: string, name: string, outsideFile: string) {
    let stopped = false;
    const done = (async () => {
      for (let i = 0; !stopped; i++) {
        if (i % 2 === 0) await symlink(outsideFile, join(root, "next"));
        else await writeFile(join(root, "next"), "inside\n");
        await rename(join(root, "next"), join(root, name));
      }
    })();
    return async () => {
      stopped = true;
      await done;
    };
  }

  test.skipIf(!procFd)("write never changes an outside file a flipped path points to", async () => {
    const rig = await toolRig();
    const outside = await tempDir("outside");
    const secret = await put(outside, "secret.txt", "secret\n");
    await put(rig.root, "flip.txt", "inside\n");
    const stop = flipFile(rig.root, "flip.txt", secret);
    try {
      for (let i = 0; i < 200; i++) await rig.call("write", { path: "flip.txt", content: "PWNED\n" });
    } finally {
      await stop();
    }
    expect(await readFile(secret, "utf8")).toBe("secret\n");
  });

  test.skipIf(!procFd)("edit never changes an outside file a flipped path points to", async () => {
    const rig = await toolRig();
    const outside = await tempDir("outside");
    const secret = await put(outside, "secret.txt", "inside\n");
    await put(rig.root, "flip.txt", "inside\n");
    const stop = flipFile(rig.root, "flip.txt", secret);
    try {
      for (let i = 0; i < 200; i++)
        await rig.call("edit", { path: "flip.txt", oldString: "inside", newString: "PWNED" });
    } finally {
      await stop();
    }
    expect(await readFile(secret, "utf8")).toBe("inside\n");
  });

  test.skipIf(!procFd)("write never creates a file in an outside directory a flipped parent points to", async () => {
    const rig = await toolRig();
    const outside = await tempDir("outside");
    const dir = join(rig.root, "d");
    let stopped = false;
    const flipper = (async () => {
      for (let i = 0; !stopped; i++) {
        // write may fill `d` while rm empties it (ENOTEMPTY) or recreate it between the two
        // steps; either way this flip is skipped and the next one tries again.
        await rm(dir, { recursive: true, force: true }).catch(() => {});
        await (i % 2 === 0 ? symlink(outside, dir) : mkdir(dir)).catch(() => {});
      }
    })();
    try {
      for (let i = 0; i < 200; i++) await rig.call("write", { path: "d/new.txt", content: "PWNED\n" });
    } finally {
      stopped = true;
      await flipper;
    }
    expect(await readdir(outside)).toEqual([]);
  });
});
