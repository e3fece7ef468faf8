// read on a real workspace: special files (FIFOs, devices, sockets) are refused at once without
// blocking, a path flipped between a file and a symlink out of the workspace never leaks the
// outside file, and a huge file is streamed — a few lines of a 2 GB file cost neither the file's
// memory nor a count of its lines. ls reports a FIFO or a device as not a directory.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { open, rename, rm, symlink, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { put, tempDir, textOf, toolRig, settlesWithin } from "./support.js";

const procFd = existsSync("/proc/self/fd");
if (!procFd) console.log("read-safety: /proc/self/fd is missing; the race test needs Linux and is skipped");

describe("read refuses special files without blocking", () => {
  test("a FIFO is an error result (not-a-regular-file), returned promptly", async () => {
    const rig = await toolRig();
    execFileSync("mkfifo", [join(rig.root, "pipe")]);
    const outcome = await settlesWithin(rig.call("read", { path: "pipe" }));
    expect(outcome.isError).toBe(true);
    expect(outcome.meta).toEqual({ code: "not-a-regular-file" });
    expect(textOf(outcome)).toBe("pipe is a named pipe (FIFO), not a regular file; read works on regular files only");
  });

  test.skipIf(!existsSync("/dev/zero"))("/dev/zero is refused, not read forever", async () => {
    const rig = await toolRig({ allow: ["/dev"] });
    const outcome = await settlesWithin(rig.call("read", { path: "/dev/zero" }));
    expect(outcome.meta).toEqual({ code: "not-a-regular-file" });
    expect(textOf(outcome)).toMatch(/^\/dev\/zero is a character device, not a regular file/);
  });

  test("a Unix socket is refused", async () => {
    const rig = await toolRig();
    const server = createServer();
    await new Promise<void>((done) => server.listen(join(rig.root, "sock"), done));
    try {
      const outcome = await settlesWithin(rig.call("read", { path: "sock" }));
      expect(outcome.meta).toEqual({ code: "not-a-regular-file" });
    } finally {
      await new Promise((done) => server.close(done));
    }
  });
});

describe("ls on special files", () => {
  test("a FIFO is not a directory, reported without blocking", async () => {
    const rig = await toolRig();
    execFileSync("mkfifo", [join(rig.root, "pipe")]);
    const outcome = await settlesWithin(rig.call("ls", { path: "pipe" }));
    expect(outcome.meta).toEqual({ code: "not-a-directory" });
  });

  test.skipIf(!existsSync("/dev/zero"))("a device is not a directory", async () => {
    const rig = await toolRig({ allow: ["/dev"] });
    const outcome = await settlesWithin(rig.call("ls", { path: "/dev/zero" }));
    expect(outcome.meta).toEqual({ code: "not-a-directory" });
  });
});

describe("read is race-free", () => {
  test.skipIf(!procFd)(
    "a path flipped between an inside file and a symlink to an outside file never yields the outside content",
    async () => {
      const rig = await toolRig();
      const outside = await tempDir("outside");
      const secret = await put(outside, "secret.txt", "OUTSIDE-SECRET\n");
      const target = join(rig.root, "flip.txt");
      await put(rig.root, "flip.txt", "inside\n");
      let done = false;
      const flipper = (async () => {
        for (let i = 0; !done; i++) {
          // Each step replaces the name atomically (rename), so it always exists.
          if (i % 2 === 0) {
            await symlink(secret, join(rig.root, "next"));
          } else {
            await writeFile(join(rig.root, "next"), "inside\n");
          }
          await rename(join(rig.root, "next"), target);
        }
      })();
      const texts: string[] = [];
      try {
        for (let i = 0; i < 200; i++) texts.push(textOf(await rig.call("read", { path: "flip.txt" })));
      } finally {
        done = true;
        await flipper;
      }
      expect(texts.filter((text) => text.includes("OUTSIDE-SECRET"))).toEqual([]);
      expect(texts.some((text) => text.includes("inside"))).toBe(true);
    },
  );
});

describe("read streams", () => {
  test("three lines of a 2 GB (sparse) file come back without reading or counting the file", async () => {
    const rig = await toolRig();
    const path = join(rig.root, "huge.log");
    // More than 8 KiB of text first, so the binary sniff sees text; the rest is a sparse hole.
    const head = Array.from({ length: 1000 }, (_, i) => `line ${i + 1} of the log`).join("\n");
    const handle = await open(path, "w");
    try {
      await handle.write(`${head}\n`);
      await handle.truncate(2 * 1024 ** 3);
    } finally {
      await handle.close();
    }
    const before = process.memoryUsage().rss;
    const outcome = await settlesWithin(rig.call("read", { path: "huge.log", offset: 1, limit: 3 }), 60);
    const grown = process.memoryUsage().rss - before;
    expect(textOf(outcome)).toBe(
      [
        "     1\tline 1 of the log",
        "     2\tline 2 of the log",
        "     3\tline 3 of the log",
        "[… more lines follow; continue with offset 4 …]",
      ].join("\n"),
    );
    expect(grown).toBeLessThan(100 * 1024 * 1024);
    await rm(path);
  });

  test("a line far longer than the cap is cut, and the marker says the count is a lower bound", async () => {
    const rig = await toolRig({ outputCap: 1000 });
    await put(rig.root, "one-line.txt", "x".repeat(5 * 1024 * 1024));
    const text = textOf(await rig.call("read", { path: "one-line.txt" }));
    expect(text.startsWith(`     1\t${"x".repeat(993)}\n[… output truncated: more than `)).toBe(true);
    expect(text).toMatch(/\[… output truncated: more than \d+ more characters …\]$/);
  });

  test("a range ending within the count-ahead window still counts the remaining lines", async () => {
    const rig = await toolRig();
    await put(rig.root, "crlf.txt", "a\r\nb\r\nc\r\nd");
    expect(textOf(await rig.call("read", { path: "crlf.txt", limit: 2 }))).toBe(
      "     1\ta\n     2\tb\n[… 2 more lines; continue with offset 3 …]",
    );
  });

  test("a NUL in the first 8 KiB is still refused as binary", async () => {
    const rig = await toolRig();
    await put(rig.root, "late-nul.bin", Buffer.concat([Buffer.from("text\n".repeat(1000)), Buffer.from([0])]));
    const outcome = await rig.call("read", { path: "late-nul.bin", limit: 1 });
    expect(outcome.meta).toEqual({ code: "binary-file" });
  });
});
