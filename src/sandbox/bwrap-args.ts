// The bubblewrap command line for one sandboxed process: namespaces, the mount plan (each writable
// root's `.git` and `.keelson` read-only as a whole), the seccomp
// and status descriptors, then the command. Pure: the caller says which hidden paths exist (and
// whether each is a directory), looked up just before the spawn.
import { dirname, join } from "node:path";
import { isWithin } from "./policy.js";
import type { SandboxPolicy } from "./types.js";

/** The descriptors bwrap reads its seccomp program from and writes its JSON status to. */
export const SECCOMP_FD = 3;
export const STATUS_FD = 4;

/** What a hidden path is on the host right now; absent paths have nothing to hide. */
export type PathKind = "directory" | "file";

/**
 * At the top of a writable root, git's directory — or the `.git` file of a worktree or submodule —
 * stays read-only as a whole: everything in it is something git runs or obeys later, outside the
 * sandbox (a hook, `core.hooksPath`, `core.fsmonitor`, a filter, a `commondir` pointing at another
 * config, `info/attributes`…). A bind makes it a mount point, so it cannot be renamed away
 * (`EBUSY`) and replaced either. Git commands that write (`add`, `commit`, `checkout`) fail inside.
 */
export const GIT_PROTECTED: readonly string[] = Object.freeze([".git"]);

/** Keelson's own per-workspace config (`mcp.json`, skills), read later by the CLI, unconfined. */
export const KEELSON_PROTECTED: readonly string[] = Object.freeze([".keelson"]);

/** Bound read-only at the top of every writable root, where it exists (a directory or a file). */
export const PROTECTED_IN_WRITABLE: readonly string[] = Object.freeze([...GIT_PROTECTED, ...KEELSON_PROTECTED]);

/**
 * Every namespace of its own (user, pid, ipc, uts, cgroup; network unless `network: "on"`), no
 * capabilities, killed with its parent, a new session (no terminal to push input into); then `/`
 * read-only, a fresh `/dev` (null, zero, random, tty… — no disks), a fresh `/proc` of the new pid
 * namespace, a private `/tmp`; the workspace read-write (`workspace-write`) or read-only, the
 * extra writable paths — in each writable one its `.git` and `.keelson` read-only — and the
 * readable paths; then each existing hidden path covered — a directory by an
 * empty read-only tmpfs, anything else by `/dev/null`.
 */
export function bwrapArguments(
  policy: SandboxPolicy,
  hidden: ReadonlyMap<string, PathKind>,
  argv: readonly string[],
  cwd: string = policy.root,
): string[] {
  const args = ["--unshare-all", "--unshare-user"];
  if (policy.network === "on") args.push("--share-net");
  args.push("--cap-drop", "ALL", "--die-with-parent", "--new-session");
  args.push("--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp");
  args.push(policy.mode === "workspace-write" ? "--bind" : "--ro-bind", policy.root, policy.root);
  for (const path of policy.writable) args.push("--bind-try", path, path);
  const writable = policy.mode === "workspace-write" ? [policy.root, ...policy.writable] : policy.writable;
  // Each directory between a writable root and an existing hidden path becomes a mount point of
  // its own, so it cannot be renamed or removed (EBUSY): found from outside, `mv .config .c2` in
  // one command revealed `.c2/gh` to the next, whose sandbox no longer found `.config/gh` to hide.
  for (const dir of ancestorsIn(writable, [...policy.hidden, ...policy.protectedFiles], hidden))
    args.push("--bind-try", dir, dir);
  // After every bind, so that no writable path bound later covers them again.
  const protect = (root: string): void => {
    for (const name of PROTECTED_IN_WRITABLE) args.push("--ro-bind-try", join(root, name), join(root, name));
  };
  for (const root of writable) protect(root);
  // A writable path named inside a protected entry (`writable: [".git"]`) is the caller's explicit
  // choice: bound again over the read-only entry, its own entries protected again.
  const inProtected = (path: string): boolean =>
    writable.some((root) => root !== path && PROTECTED_IN_WRITABLE.some((name) => isWithin(join(root, name), path)));
  for (const path of policy.writable.filter(inProtected)) {
    args.push("--bind-try", path, path);
    protect(path);
  }
  // HOME's start-up files where a writable path holds them (a workspace that holds HOME): read-only.
  for (const path of policy.protectedFiles)
    if (hidden.has(path) && writable.some((root) => isWithin(root, path))) args.push("--ro-bind-try", path, path);
  for (const path of policy.readable) args.push("--ro-bind-try", path, path);
  const bound = [policy.root, ...policy.writable, ...policy.readable];
  const covered: string[] = [];
  // Parents first: a path inside a hidden directory is then already covered.
  for (const path of [...policy.hidden].sort((a, b) => a.length - b.length)) {
    const kind = hidden.get(path);
    if (kind === undefined) continue;
    // Under the private /tmp and outside every bound path it is already out of sight; inside a
    // hidden directory too (whose read-only tmpfs could not take a mount point anyway).
    if (isWithin("/tmp", path) && !bound.some((b) => isWithin(b, path))) continue;
    if (covered.some((dir) => isWithin(dir, path))) continue;
    if (kind === "directory") {
      args.push("--tmpfs", path, "--remount-ro", path);
      covered.push(path);
    } else args.push("--ro-bind", "/dev/null", path);
  }
  args.push("--setenv", "TMPDIR", "/tmp", "--chdir", cwd);
  args.push("--seccomp", String(SECCOMP_FD), "--json-status-fd", String(STATUS_FD), "--", ...argv);
  return args;
}

/** The directories strictly between a writable root and each existing path of `paths` inside it, parents first. */
function ancestorsIn(
  writable: readonly string[],
  paths: readonly string[],
  existing: ReadonlyMap<string, PathKind>,
): string[] {
  const dirs = new Set<string>();
  for (const path of paths) {
    if (!existing.has(path)) continue;
    const root = writable.find((r) => r !== path && isWithin(r, path));
    if (root === undefined) continue;
    for (let dir = dirname(path); dir !== root && isWithin(root, dir); dir = dirname(dir)) dirs.add(dir);
  }
  return [...dirs].sort((a, b) => a.length - b.length);
}
