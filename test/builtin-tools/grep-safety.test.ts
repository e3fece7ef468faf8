// grep under hostile input (issue #12): a catastrophically backtracking pattern is matched off the
// main thread and stopped by an abort or the per-call deadline while the event loop keeps turning
// (T2); FIFOs and other special files are refused or skipped without ever blocking (T4); files
// not searched — over the size limit, binary — are named in the answer (T7).
import { execFileSync } from "node:child_process";
import { closeSync, constants, openSync } from "node:fs";
import { truncate, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { grepTool } from "../../src/builtin-tools/grep.js";
import { Workspace } from "../../src/builtin-tools/index.js";
import type { ToolOutput } from "../../src/tools/index.js";
import { put, tempDir, textOf, toolRig } from "./support.js";

const CATASTROPHIC = "^(a+)+$";
const EXPLOSIVE_LINE = `${"a".repeat(41)}!`;
/** A generous bound: the property is "does not hang", not a speed. */
const HANG_GUARD_MS = 20_000; // a loaded box (load 15+) starts the grep worker slowly

/** Counts turns of the main event loop (setImmediate callbacks) until stopped. */
function heartbeat(): { readonly ticks: () => number; stop(): void } {
  let ticks = 0;
  let running = true;
  const beat = (): void => {
    if (!running) return;
    ticks++;
    setImmediate(beat);
  };
  setImmediate(beat);
  return {
    ticks: () => ticks,
    stop: () => {
      running = false;
    },
  };
}

/** `promise`, or a rejection naming `what` once HANG_GUARD_MS has passed. */
async function withinGuard<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const guard = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not settle within ${HANG_GUARD_MS} ms`)), HANG_GUARD_MS);
  });
  try {
    return await Promise.race([promise, guard]);
  } finally {
    clearTimeout(timer);
  }
}

const textOfOutput = (output: ToolOutput): string =>
  typeof output === "string" ? output : output.content.map((p) => (p.type === "text" ? p.text : "")).join("");

// A FIFO a test made: opened for writing (non-blocking, synchronous — no libuv thread needed)
// after the test, so a reader stuck on it on a regressed build gets EOF and frees its thread.
const fifos: string[] = [];
afterEach(() => {
  for (const path of fifos.splice(0)) {
    try {
      closeSync(openSync(path, constants.O_WRONLY | constants.O_NONBLOCK));
    } catch {
      // ENXIO: nobody is reading it, nothing to release.
    }
  }
});

function mkfifo(path: string): string {
  execFileSync("mkfifo", [path]);
  fifos.push(path);
  return path;
}

describe("grep: a catastrophic pattern (T2)", () => {
  test("an abort stops the search with an error result while the event loop keeps turning", async () => {
    const rig = await toolRig();
    await put(rig.root, "redos.txt", `${EXPLOSIVE_LINE}\n`);
    const controller = new AbortController();
    const beat = heartbeat();
    let ticksAtAbort = 0;
    const timer = setTimeout(() => {
      ticksAtAbort = beat.ticks();
      controller.abort(new Error("user pressed Ctrl-C"));
    }, 100);
    try {
      const outcome = await withinGuard(
        rig.call("grep", { pattern: CATASTROPHIC }, { signal: controller.signal }),
        "the aborted grep",
      );
      expect(outcome.isError).toBe(true);
      expect(outcome.error).toBe("aborted");
      // The main thread kept turning while the regex ran (a blocked loop would show ~0 turns).
      expect(ticksAtAbort).toBeGreaterThan(10);
    } finally {
      clearTimeout(timer);
      beat.stop();
    }
  });

  test("the tool itself settles after an abort: the worker running the pattern is terminated", async () => {
    const root = await tempDir();
    await put(root, "redos.txt", `${EXPLOSIVE_LINE}\n`);
    const tool = grepTool({ workspace: new Workspace({ root }) });
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new Error("turn cancelled")), 100);
    try {
      const output = await withinGuard(
        Promise.resolve(
          tool.execute({ pattern: CATASTROPHIC }, { callId: "c1", sessionId: "s1", signal: controller.signal }),
        ),
        "grep's execute after an abort",
      );
      expect(output).toMatchObject({ isError: true });
      expect(textOfOutput(output)).toBe("grep was aborted: turn cancelled");
    } finally {
      clearTimeout(timer);
    }
  });

  test("the per-call deadline stops the search with a bad-pattern error naming the file", async () => {
    const root = await tempDir();
    // One file: the deadline may fire while the worker is still starting, and the file named is
    // the oldest one sent and unanswered.
    await put(root, "redos.txt", `${EXPLOSIVE_LINE}\n`);
    const tool = grepTool({ workspace: new Workspace({ root }), deadlineMs: 300 });
    const beat = heartbeat();
    try {
      const output = await withinGuard(
        Promise.resolve(
          tool.execute(
            { pattern: CATASTROPHIC },
            { callId: "c1", sessionId: "s1", signal: new AbortController().signal },
          ),
        ),
        "grep past its deadline",
      );
      expect(output).toMatchObject({ isError: true, meta: { code: "bad-pattern" } });
      expect(textOfOutput(output)).toMatch(
        /^grep stopped after 300 ms matching \/\^\(a\+\)\+\$\/ against redos\.txt: the pattern may backtrack catastrophically/,
      );
      expect(beat.ticks()).toBeGreaterThan(10);
    } finally {
      beat.stop();
    }
  });

  test("an ordinary search in the worker keeps the output format: file:line: text, lines cut at 500", async () => {
    const rig = await toolRig();
    await put(rig.root, "a.txt", `skip\nneedle ${"x".repeat(600)}\r\nneedle again\n`);
    expect(textOf(await rig.call("grep", { pattern: "needle" }))).toBe(
      `a.txt:2: ${`needle ${"x".repeat(600)}`.slice(0, 500)}…\na.txt:3: needle again`,
    );
  });
});

describe("grep: the worker loads from the sources and from the build", () => {
  test("the compiled grep in dist/ starts its compiled worker", async () => {
    // dist/ is rebuilt from src/ before the suite (test/support/fresh-build.ts); grep's code sits in
    // a shared chunk (dist/chunks/), its worker in dist/builtin-tools/ (scripts/build-bundle.mjs).
    const compiled = new URL("../../dist/builtin-tools/index.js", import.meta.url).href;
    const { grepTool: compiledGrep } = (await import(compiled)) as typeof import("../../src/builtin-tools/index.js");
    const root = await tempDir();
    await put(root, "a.txt", "one\nneedle\n");
    const output = await compiledGrep({ workspace: new Workspace({ root }) }).execute(
      { pattern: "needle" },
      { callId: "c1", sessionId: "s1", signal: new AbortController().signal },
    );
    expect(output).toBe("a.txt:2: needle");
  });
});

describe("grep: regular files only (T4)", () => {
  test("a FIFO named as the path is refused at once", async () => {
    const rig = await toolRig();
    mkfifo(join(rig.root, "pipe"));
    const outcome = await withinGuard(rig.call("grep", { pattern: "x", path: "pipe" }), "grep on a FIFO");
    expect(outcome.isError).toBe(true);
    expect(outcome.meta).toEqual({ code: "not-a-regular-file" });
    expect(textOf(outcome)).toMatch(/^pipe is a named pipe \(FIFO\), not a regular file/);
  });

  test("greps on a FIFO tie up no libuv thread: file I/O afterwards still completes", async () => {
    const rig = await toolRig();
    mkfifo(join(rig.root, "pipe"));
    // More calls than the default libuv pool (4 threads): a blocking open in each would starve it.
    const outcomes = await withinGuard(
      Promise.all(Array.from({ length: 6 }, () => rig.call("grep", { pattern: "x", path: "pipe" }))),
      "six greps on a FIFO",
    );
    expect(outcomes.every((outcome) => outcome.isError)).toBe(true);
    await withinGuard(writeFile(join(rig.root, "saved.txt"), "saved"), "a file save after the greps");
  });

  test("a walk over a directory skips FIFOs and sockets without opening them", async () => {
    const rig = await toolRig();
    await put(rig.root, "a.txt", "needle\n");
    mkfifo(join(rig.root, "b-pipe"));
    const server: Server = createServer();
    await new Promise<void>((resolve) => server.listen(join(rig.root, "c-socket"), resolve));
    try {
      expect(textOf(await withinGuard(rig.call("grep", { pattern: "needle" }), "grep over a FIFO"))).toBe(
        "a.txt:1: needle",
      );
      expect(textOf(await withinGuard(rig.call("glob", { pattern: "**" }), "glob over a FIFO"))).toBe("a.txt");
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe("grep: files not searched are named (T7)", () => {
  async function rigWithSkippedFiles() {
    const rig = await toolRig();
    await put(rig.root, "a.bin", Buffer.from([0x6e, 0, 0x65]));
    // Sparse: 12 MB on paper, no disk used; refused on its size before a byte is read.
    await truncate(await put(rig.root, "big.log"), 12 * 1024 * 1024);
    return rig;
  }

  test("when nothing matches, the answer says which files were skipped and why", async () => {
    const rig = await rigWithSkippedFiles();
    await put(rig.root, "c.txt", "hay\n");
    expect(await rig.call("grep", { pattern: "needle" })).toEqual({
      content: [
        {
          type: "text",
          text: "No matches for /needle/\n[skipped 2 files: a.bin (binary), big.log (12 MB, over the 10 MB limit)]",
        },
      ],
      isError: false,
    });
  });

  test("when lines match, the skipped files follow the matches", async () => {
    const rig = await rigWithSkippedFiles();
    await put(rig.root, "c.txt", "needle\n");
    expect(textOf(await rig.call("grep", { pattern: "needle" }))).toBe(
      "c.txt:1: needle\n[skipped 2 files: a.bin (binary), big.log (12 MB, over the 10 MB limit)]",
    );
  });

  test("a size just over the limit never reads as the limit itself", async () => {
    const rig = await toolRig();
    await truncate(await put(rig.root, "edge.log"), 10 * 1024 * 1024 + 1);
    expect(textOf(await rig.call("grep", { pattern: "x" }))).toBe(
      "No matches for /x/\n[skipped 1 file: edge.log (10.1 MB, over the 10 MB limit)]",
    );
  });

  test("a file named as the path is reported the same way", async () => {
    const rig = await rigWithSkippedFiles();
    expect(textOf(await rig.call("grep", { pattern: "n", path: "a.bin" }))).toBe(
      "No matches for /n/\n[skipped 1 file: a.bin (binary)]",
    );
  });

  test("at most five skipped files are named; the rest are counted", async () => {
    const rig = await toolRig();
    for (let i = 1; i <= 7; i++) await put(rig.root, `b${i}.bin`, Buffer.from([0]));
    expect(textOf(await rig.call("grep", { pattern: "x" }))).toBe(
      "No matches for /x/\n[skipped 7 files: b1.bin (binary), b2.bin (binary), b3.bin (binary), b4.bin (binary), b5.bin (binary) and 2 more]",
    );
  });

  test("the notice survives the output cap", async () => {
    const rig = await toolRig({ outputCap: 40 });
    await put(rig.root, "a.bin", Buffer.from([0]));
    await put(rig.root, "b.txt", "needle\n".repeat(20));
    const text = textOf(await rig.call("grep", { pattern: "needle" }));
    expect(text).toMatch(/\[… output truncated: \d+ more characters …\]\n\[skipped 1 file: a\.bin \(binary\)\]$/);
  });
});
