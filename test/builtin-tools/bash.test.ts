// The bash tool: runs in the workspace root, interleaves stdout and stderr, reports the exit code
// (non-zero → isError), caps output, and kills the whole process group on timeout and on abort.
import { execFileSync } from "node:child_process";
import { closeSync, constants, existsSync, openSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { bashTool, Workspace } from "../../src/builtin-tools/index.js";
import { textOf, toolRig } from "./support.js";

/** Dead or a zombie awaiting its reaper: either way no longer running. */
function running(pid: number): boolean {
  if (!existsSync(`/proc/${pid}`)) return false;
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

async function makeFifo(root: string): Promise<string> {
  const fifo = join(root, "pid.fifo");
  execFileSync("mkfifo", [fifo]);
  return fifo;
}

/**
 * The pid the command writes to `fifo` once its background child runs — reading a fifo completes
 * when the writer closes it, so the test waits on the command, not on a clock. If the call ends
 * first, the blocked reader is released and the test fails with a clear message.
 */
async function childPid(fifo: string, result: Promise<unknown>): Promise<number> {
  const read = readFile(fifo, "utf8");
  const first = await Promise.race([
    read.then((text) => ({ pid: Number(text.trim()) })),
    result.then(() => ({ pid: undefined })),
  ]);
  if (first.pid === undefined) {
    closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
    await read;
    throw new Error("the command ended before its background child reported its pid");
  }
  return first.pid;
}

describe("bash", () => {
  test("runs in the workspace root and reports exit code 0", async () => {
    const rig = await toolRig();
    const outcome = await rig.call("bash", { command: "pwd" });
    expect(outcome).toEqual({
      content: [{ type: "text", text: `${rig.root}\n\n[exit code: 0]` }],
      isError: false,
      meta: { exitCode: 0 },
    });
  });

  test("stdout and stderr are both captured", async () => {
    const rig = await toolRig();
    const text = textOf(await rig.call("bash", { command: "echo out; echo err >&2" }));
    expect(text).toContain("out\n");
    expect(text).toContain("err\n");
  });

  test("a non-zero exit is an error result carrying the output and the code", async () => {
    const rig = await toolRig();
    const outcome = await rig.call("bash", { command: "echo failing; exit 3" });
    expect(outcome).toEqual({
      content: [{ type: "text", text: "failing\n\n[exit code: 3]" }],
      isError: true,
      meta: { exitCode: 3 },
    });
  });

  test("no output says so", async () => {
    const rig = await toolRig();
    expect(textOf(await rig.call("bash", { command: "true" }))).toBe("(no output)\n[exit code: 0]");
  });

  test("output past the cap is truncated with the marker", async () => {
    const rig = await toolRig({ outputCap: 50 });
    const text = textOf(await rig.call("bash", { command: "head -c 200 /dev/zero | tr '\\0' x" }));
    expect(text).toBe(`${"x".repeat(50)}\n[… output truncated: 150 more characters …]\n[exit code: 0]`);
  });

  test("a timeout kills the command and everything it started, and is an error", async () => {
    const rig = await toolRig();
    const fifo = await makeFifo(rig.root);
    // Long enough for bash to start and the command to run; the timeout governs.
    const result = rig.call("bash", { command: "sleep 5 & echo $! > pid.fifo; wait", timeoutMs: 1500 });
    const pid = await childPid(fifo, result);
    expect(running(pid)).toBe(true);
    const outcome = await result;
    expect(outcome.isError).toBe(true);
    expect(outcome.meta).toEqual({ exitCode: null, stopped: "timeout" });
    expect(textOf(outcome)).toMatch(/\[command timed out after 1500 ms and was killed\]$/);
    expect(running(pid)).toBe(false);
  });

  test("an abort kills the process group", async () => {
    const rig = await toolRig();
    const fifo = await makeFifo(rig.root);
    const controller = new AbortController();
    const tool = bashTool({ workspace: new Workspace({ root: rig.root }), sandbox: "off" });
    const result = Promise.resolve(
      tool.execute(
        { command: "sleep 5 & echo $! > pid.fifo; wait" },
        { callId: "c", sessionId: "s", signal: controller.signal },
      ),
    );
    const pid = await childPid(fifo, result);
    expect(running(pid)).toBe(true);
    controller.abort(new Error("user cancelled"));
    const outcome = await result;
    expect(typeof outcome === "object" && outcome.isError).toBe(true);
    expect(typeof outcome === "object" && outcome.meta).toEqual({ exitCode: null, stopped: "aborted" });
    expect(running(pid)).toBe(false);
  });

  test("an abort through the pipeline ends the call as aborted", async () => {
    const rig = await toolRig();
    const controller = new AbortController();
    controller.abort();
    const outcome = await rig.call("bash", { command: "echo never" }, { signal: controller.signal });
    expect(outcome.error).toBe("aborted");
  });

  test("timeoutMs above the maximum is invalid arguments", async () => {
    const rig = await toolRig();
    expect((await rig.call("bash", { command: "true", timeoutMs: 10_000_000 })).error).toBe("invalid-arguments");
  });
});
