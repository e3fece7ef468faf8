// Whether the sandbox can start on this machine: Linux, a seccomp filter for the architecture, a
// bubblewrap binary, and user namespaces that let it build the whole sandbox — checked by running
// `true` under exactly the namespaces, mounts and filter every command gets. The answer is kept
// per bwrap path for the life of the process. Nothing runs unconfined on a "no": callers refuse.
import { spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";
import { SECCOMP_FD } from "./bwrap-args.js";
import { seccompFilter } from "./seccomp.js";
import type { SandboxSupport } from "./types.js";

/** How to get bubblewrap, for messages. */
export const INSTALL_BWRAP =
  "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap; Arch: pacman -S bubblewrap)";

const answers = new Map<string, Promise<SandboxSupport>>();

/** Whether the sandbox works here with `bwrap` (a path, or a name looked up in `BWRAP_DIRS`). Cached per `bwrap`. */
export function sandboxSupport(bwrap: string = process.env.KEELSON_BWRAP || "bwrap"): Promise<SandboxSupport> {
  let answer = answers.get(bwrap);
  if (answer === undefined) {
    answer = probe(bwrap);
    answers.set(bwrap, answer);
  }
  return answer;
}

async function probe(bwrap: string): Promise<SandboxSupport> {
  if (process.platform !== "linux")
    return {
      ok: false,
      reason: `the shell sandbox needs Linux with bubblewrap (this is ${process.platform}; the macOS sandbox-exec profile is designed in docs/decisions/0021-shell-sandbox.md but not built yet)`,
      fix: "run with the sandbox off",
    };
  const filter = seccompFilter();
  if (filter === undefined)
    return {
      ok: false,
      reason: `the sandbox has no seccomp filter for this architecture (${process.arch}; it knows x64 and arm64)`,
      fix: "run with the sandbox off",
    };
  const path = findExecutable(bwrap);
  if (path === undefined) {
    const elsewhere = onPathOnly(bwrap);
    if (elsewhere !== undefined)
      return {
        ok: false,
        reason: `bubblewrap is looked for in ${BWRAP_DIRS.join(", ")} only, not on the PATH (a PATH entry such as node_modules/.bin may be written by a sandboxed command); ${JSON.stringify(elsewhere)} was not used`,
        fix: `if that is the bubblewrap you installed, name it: KEELSON_BWRAP=${elsewhere}`,
      };
    return { ok: false, reason: `bubblewrap is not installed (no executable ${bwrap} found)`, fix: INSTALL_BWRAP };
  }
  const version = await run(path, ["--version"]);
  const trial = await run(
    path,
    [
      "--unshare-all",
      "--unshare-user",
      "--cap-drop",
      "ALL",
      "--die-with-parent",
      "--new-session",
      "--ro-bind",
      "/",
      "/",
      "--dev",
      "/dev",
      "--proc",
      "/proc",
      "--tmpfs",
      "/tmp",
      "--seccomp",
      String(SECCOMP_FD),
      "--",
      "true",
    ],
    filter,
  );
  if (trial.code !== 0)
    return {
      ok: false,
      reason: `bubblewrap (${path}) cannot build the sandbox here: ${firstLine(trial.output) || `exit ${trial.code}`}`,
      fix: "allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1; on Ubuntu 24.04+ kernel.apparmor_restrict_unprivileged_userns=0), or use bubblewrap 0.5 or newer",
    };
  return { ok: true, mechanism: "bubblewrap", bwrap: path, version: firstLine(version.output) || "unknown version" };
}

/**
 * Where a bare name (`bwrap`) is looked for: the system's own directories, never the PATH — under
 * `npx keelson` the PATH starts with the project's `node_modules/.bin`, which a sandboxed command
 * may write, and a `bwrap` planted there would run unconfined at the next start (found from
 * outside). A bubblewrap installed elsewhere is named by path: `KEELSON_BWRAP` or `sandbox.bwrap`.
 */
export const BWRAP_DIRS: readonly string[] = Object.freeze([
  "/usr/bin",
  "/bin",
  "/usr/local/bin",
  "/usr/sbin",
  "/sbin",
  "/run/current-system/sw/bin",
  "/nix/var/nix/profiles/default/bin",
]);

/** `name` itself when it holds a `/`, else the first executable of that name in `BWRAP_DIRS`. */
function findExecutable(name: string): string | undefined {
  const candidates = name.includes("/") ? [name] : BWRAP_DIRS.map((dir) => join(dir, name));
  return candidates.find(isExecutable);
}

/** An executable of that name on the PATH outside `BWRAP_DIRS` (named in the refusal, never run). */
function onPathOnly(name: string): string | undefined {
  if (name.includes("/")) return undefined;
  return (process.env.PATH ?? "")
    .split(delimiter)
    .filter((dir) => dir !== "" && !BWRAP_DIRS.includes(dir))
    .map((dir) => join(dir, name))
    .find(isExecutable);
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Runs `path args`, `input` on fd 3 when given; its exit code and stdout+stderr (never throws). */
function run(path: string, args: readonly string[], input?: Buffer): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(path, args, {
      stdio: ["ignore", "pipe", "pipe", ...(input === undefined ? [] : (["pipe"] as const))],
    });
    let output = "";
    child.stdout?.on("data", (d: Buffer) => (output += d.toString("utf8")));
    child.stderr?.on("data", (d: Buffer) => (output += d.toString("utf8")));
    if (input !== undefined) {
      const fd = child.stdio[SECCOMP_FD] as NodeJS.WritableStream & { on(e: "error", f: () => void): void };
      fd.on("error", () => undefined); // bwrap gone before reading it: its exit code says why
      fd.end(input);
    }
    child.on("error", (error) => resolve({ code: null, output: error.message }));
    child.on("close", (code) => resolve({ code, output }));
  });
}

const firstLine = (text: string): string => text.trim().split("\n")[0]?.trim() ?? "";
