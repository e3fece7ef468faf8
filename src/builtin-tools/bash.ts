// `bash`: runs `bash -lc command` in the workspace root, in its own process group so a timeout or
// an abort kills everything it started. stdout and stderr are interleaved in arrival order and
// capped; the exit code is always reported and a non-zero exit is an error result.
import { spawn } from "node:child_process";
import { defineTool, jsonSchema } from "../tools/index.js";
import type { ToolOutput } from "../tools/index.js";
import { DEFAULT_OUTPUT_CAP, truncationMarker } from "./output.js";
import type { BuiltinToolOptions } from "./types.js";

export const DEFAULT_BASH_TIMEOUT_MS = 120_000;
export const MAX_BASH_TIMEOUT_MS = 600_000;
/** After bash exits, how long background children may keep its pipes open before we stop reading. */
const DRAIN_MS = 1000;

const input = jsonSchema<{ command: string; timeoutMs?: number }>({
  type: "object",
  properties: {
    command: { type: "string", minLength: 1, description: "Shell command, run with bash -lc in the workspace root" },
    timeoutMs: {
      type: "integer",
      minimum: 1,
      maximum: MAX_BASH_TIMEOUT_MS,
      description: `Kill the command after this many ms (default ${DEFAULT_BASH_TIMEOUT_MS})`,
    },
  },
  required: ["command"],
});

export function bashTool({ workspace, outputCap = DEFAULT_OUTPUT_CAP }: BuiltinToolOptions) {
  return defineTool({
    name: "bash",
    description:
      "Run a shell command (bash -lc) in the workspace root. Output (stdout and stderr) is capped; a non-zero exit code is an error.",
    input,
    // The command's own timeout governs; the pipeline's must not cut in first.
    timeoutMs: MAX_BASH_TIMEOUT_MS + 5000,
    execute: ({ command, timeoutMs = DEFAULT_BASH_TIMEOUT_MS }, { signal }) =>
      runBash(command, workspace.root, timeoutMs, outputCap, signal),
  });
}

function runBash(
  command: string,
  cwd: string,
  timeoutMs: number,
  cap: number,
  signal: AbortSignal,
): Promise<ToolOutput> {
  if (signal.aborted)
    return Promise.resolve({
      content: [{ type: "text", text: "Command not run: the call was aborted" }],
      isError: true,
    });
  return new Promise((resolve) => {
    const child = spawn("bash", ["-lc", command], { cwd, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    let dropped = 0;
    let stopped: "timeout" | "aborted" | undefined;
    const collect = (chunk: Buffer): void => {
      const text = chunk.toString("utf8");
      const room = cap - output.length;
      if (room >= text.length) output += text;
      else {
        output += text.slice(0, Math.max(0, room));
        dropped += text.length - Math.max(0, room);
      }
    };
    child.stdout.on("data", collect);
    child.stderr.on("data", collect);
    const killGroup = (): void => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      } catch {
        // already gone
      }
    };
    const stop = (why: "timeout" | "aborted"): void => {
      stopped ??= why;
      killGroup();
    };
    const timer = setTimeout(() => stop("timeout"), timeoutMs);
    const onAbort = (): void => stop("aborted");
    signal.addEventListener("abort", onAbort, { once: true });
    let drain: NodeJS.Timeout | undefined;
    child.on("exit", () => {
      drain = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
      }, DRAIN_MS);
    });
    const finish = (code: number | null, signalName: NodeJS.Signals | null, spawnError?: Error): void => {
      clearTimeout(timer);
      clearTimeout(drain);
      signal.removeEventListener("abort", onAbort);
      let text = output === "" ? "(no output)" : output;
      if (dropped > 0) text += `\n${truncationMarker(dropped)}`;
      if (spawnError !== undefined) {
        resolve({ content: [{ type: "text", text: `Could not run bash: ${spawnError.message}` }], isError: true });
        return;
      }
      if (stopped === "timeout") text += `\n[command timed out after ${timeoutMs} ms and was killed]`;
      else if (stopped === "aborted") text += "\n[command aborted and killed]";
      else text += code === null ? `\n[killed by ${signalName}]` : `\n[exit code: ${code}]`;
      resolve({
        content: [{ type: "text", text }],
        isError: stopped !== undefined || code !== 0,
        meta: { exitCode: code, ...(stopped ? { stopped } : {}) },
      });
    };
    child.on("error", (error) => finish(null, null, error));
    child.on("close", (code, signalName) => finish(code, signalName));
  });
}
