// The sandbox policy: a caller's options checked and resolved against a workspace (absolute paths,
// `~` expanded against the environment's HOME), and its one-paragraph description — the text the
// tool definition carries, so the logged header says under which policy every command ran. Pure:
// nothing here touches the filesystem.
import { homedir } from "node:os";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { keelsonHome } from "../home/index.js";
import { SANDBOX_MODES, SandboxError, type SandboxMode, type SandboxOptions, type SandboxPolicy } from "./types.js";

export const DEFAULT_MAX_PROCESSES = 512;

/**
 * Secret places hidden from a sandboxed command by default (with Keelson's own home): keys,
 * cloud and registry credentials, keyrings. Extend with
 * `hidden: [...DEFAULT_HIDDEN_PATHS, "~/.my-secrets"]` (the list then replaces the default, so
 * name Keelson's home too if it should stay hidden: `keelsonHome()`).
 */
export const DEFAULT_HIDDEN_PATHS: readonly string[] = Object.freeze([
  "~/.ssh",
  "~/.gnupg",
  "~/.aws",
  "~/.azure",
  "~/.config/gcloud",
  "~/.kube",
  "~/.docker",
  "~/.netrc",
  "~/.git-credentials",
  "~/.npmrc",
  "~/.pypirc",
  "~/.config/gh",
  "~/.password-store",
  "~/.local/share/keyrings",
]);

/**
 * Files in HOME that the user's own shells and git run or obey later, unconfined: read-only to
 * commands where they lie inside a writable path (a workspace that holds HOME), as the file tools
 * never write them (src/builtin-tools path-guard.ts).
 */
export const PROTECTED_HOME_FILES: readonly string[] = Object.freeze([
  "~/.bashrc",
  "~/.bash_profile",
  "~/.bash_login",
  "~/.bash_logout",
  "~/.profile",
  "~/.zshrc",
  "~/.zshenv",
  "~/.zprofile",
  "~/.zlogin",
  "~/.zlogout",
  "~/.config/fish",
  "~/.gitconfig",
  "~/.config/git",
]);

const KEYS = new Set(["mode", "network", "writable", "readable", "hidden", "maxProcesses", "bwrap"]);

export interface SandboxContext {
  /** The workspace root (absolute): the commands' working directory. */
  readonly root: string;
  /** Where `~` and Keelson's home are looked up (HOME, KEELSON_HOME). Default `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Named in error messages: `builtinTools sandbox`, `mcp.json servers.x.sandbox`. */
  readonly where?: string;
}

/** `options` as a mode string or an options object, checked; a bad one is `SandboxError('invalid-options')`. */
export function sandboxOptions(value: unknown, where = "sandbox"): SandboxOptions {
  const fail = (problem: string): never => {
    throw new SandboxError("invalid-options", `${where}${problem}`);
  };
  if (value === undefined) return {};
  if (typeof value === "string") return { mode: sandboxMode(value, where) };
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return fail(` must be a mode (${SANDBOX_MODES.join(", ")}) or an options object`);
  const options = value as Record<string, unknown>;
  for (const key of Object.keys(options)) if (!KEYS.has(key)) fail(`.${key} is not a sandbox option`);
  if (options.mode !== undefined) sandboxMode(options.mode, `${where}.mode`);
  if (options.network !== undefined && options.network !== "on" && options.network !== "off")
    fail(`.network must be "on" or "off" (got ${JSON.stringify(options.network)})`);
  for (const key of ["writable", "readable", "hidden"] as const) {
    const list = options[key];
    if (list === undefined) continue;
    if (!Array.isArray(list) || list.some((p) => typeof p !== "string" || p === "" || p.includes("\0")))
      fail(`.${key} must be an array of non-empty paths`);
  }
  const max = options.maxProcesses;
  if (max !== undefined && (typeof max !== "number" || !Number.isSafeInteger(max) || max < 1))
    fail(`.maxProcesses must be a positive integer (got ${JSON.stringify(max)})`);
  if (options.bwrap !== undefined && (typeof options.bwrap !== "string" || options.bwrap === ""))
    fail(".bwrap must be a non-empty path");
  return options as SandboxOptions;
}

/** `value` as a mode; anything else is `SandboxError('invalid-options')` naming the modes. */
export function sandboxMode(value: unknown, where = "sandbox"): SandboxMode {
  if (typeof value === "string" && (SANDBOX_MODES as readonly string[]).includes(value)) return value as SandboxMode;
  throw new SandboxError(
    "invalid-options",
    `${where} must be one of ${SANDBOX_MODES.join(", ")} (got ${JSON.stringify(value)})`,
  );
}

/** The policy `options` describe for a workspace at `context.root` (checked first). */
export function resolveSandbox(
  options: SandboxMode | SandboxOptions | undefined,
  context: SandboxContext,
): SandboxPolicy {
  const checked = sandboxOptions(options, context.where);
  const env = context.env ?? process.env;
  const home = env.HOME || homedir();
  const root = resolve(context.root);
  const absolute = (path: string): string => resolve(root, expandHome(path, home));
  const writable = unique((checked.writable ?? []).map(absolute)).filter((p) => p !== root);
  const readable = unique((checked.readable ?? []).map(absolute));
  // A hidden path that holds a path shown (the workspace, a writable or readable one) is not
  // hidden: hiding it would hide what the caller asked to show.
  const shown = [root, ...writable, ...readable];
  const hidden = unique(
    (checked.hidden ?? [...DEFAULT_HIDDEN_PATHS, keelsonHome(env as NodeJS.ProcessEnv)]).map(absolute),
  ).filter((h) => !shown.some((p) => isWithin(h, p)));
  return Object.freeze({
    mode: checked.mode ?? "workspace-write",
    network: checked.network ?? "off",
    root,
    writable: Object.freeze(writable),
    readable: Object.freeze(readable),
    hidden: Object.freeze(hidden),
    hiddenShown: Object.freeze(hidden.map((p) => shownPath(p, home))),
    protectedFiles: Object.freeze(
      PROTECTED_HOME_FILES.map(absolute).filter((p) => !hidden.some((h) => isWithin(h, p))),
    ),
    maxProcesses: checked.maxProcesses ?? DEFAULT_MAX_PROCESSES,
    bwrap: checked.bwrap ?? (process.env.KEELSON_BWRAP || "bwrap"), // the machine's, not the command's environment
  });
}

/**
 * The policy in words, for a tool's description (so the logged header records it) and a person:
 * what may be written, what is hidden, the network, the process rules. `off` says so plainly.
 * `who` is what runs under it: `commands` (bash's, one sandbox each) or e.g. `the MCP server x`.
 */
export function describeSandbox(policy: SandboxPolicy, who = "commands"): string {
  const each = who === "commands";
  if (policy.mode === "off")
    return `Not sandboxed: ${who} ${each ? "run" : "runs"} with the user's full access to files and network.`;
  const writable = [
    ...(policy.mode === "workspace-write" ? [`${policy.root} (the workspace)`] : []),
    ...policy.writable,
  ];
  const where = writable.length === 0 ? "nowhere but" : `only under ${writable.join(", ")} and in`;
  return [
    `Sandboxed (${policy.mode}): ${who} may write ${where} a private /tmp (${each ? "empty when each command starts" : "empty at its start"})`,
    writable.length === 0 ? "" : "; a .git or .keelson at the top of each stays read-only (git can read, not commit)",
    `${policy.mode === "read-only" ? "; the workspace and" : ";"} the rest of the filesystem is read-only`,
    policy.hidden.length === 0
      ? ""
      : `; hidden (a directory shows empty, a file cannot be read): ${policy.hiddenShown.join(", ")}`,
    policy.readable.length === 0 ? "" : `; shown read-only: ${policy.readable.join(", ")}`,
    policy.network === "off" ? "; no network (not even 127.0.0.1)" : "; the host's network",
    `; Unix sockets cannot be opened; no new privileges (setuid is ignored); ${each ? "every process ends with the command" : "its processes end with it"}; at most ${policy.maxProcesses} processes.`,
  ].join("");
}

/** `~` and `~/x` against `home`; other paths unchanged. */
function expandHome(path: string, home: string): string {
  if (path === "~") return home;
  if (path.startsWith("~/")) return join(home, path.slice(2));
  return path;
}

/** `/home/me/.ssh` as `~/.ssh`; paths outside the home stay absolute. */
function shownPath(path: string, home: string): string {
  const rel = relative(home, path);
  if (rel === "") return "~";
  return rel.startsWith("..") || isAbsolute(rel) ? path : `~/${rel.split(sep).join("/")}`;
}

const unique = (paths: readonly string[]): string[] => [...new Set(paths)];

/** True when `path` is `dir` or lies below it (both absolute, normalized). */
export function isWithin(dir: string, path: string): boolean {
  const rel = relative(dir, path);
  return rel === "" || (!isAbsolute(rel) && rel !== ".." && !rel.startsWith(`..${sep}`));
}
