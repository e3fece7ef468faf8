// workspaceBaseline: a small, deterministic snapshot of where the agent works — cwd, project
// root, git branch (and, opted in, dirty state), top-level entries — as one session-prefix
// reminder. It is composed once per loop instance and holds no time or per-turn facts: those
// belong to the append-only channels, never to the frozen prefix.
import type { Dirent } from "node:fs";
import { readdir } from "node:fs/promises";
import { type AgentPlugin, namedPlugin } from "../loop/index.js";
import { gitDirectory, gitTreeDirty, readGitHead } from "./git-state.js";
import { agentCwd, findProjectRoot } from "./paths.js";
import { systemReminder } from "./reminder.js";
import { positiveInteger, type WorkspaceBaselineOptions } from "./types.js";

/** The baseline text for `cwd` (the reminder's body). */
export async function describeWorkspace(
  cwd: string,
  options: Omit<WorkspaceBaselineOptions, "cwd"> = {},
): Promise<string> {
  const maxEntries = positiveInteger(options.maxEntries, 40, "maxEntries");
  const root = await findProjectRoot(cwd);
  const lines = [`Working directory: ${cwd}`];
  if (root !== cwd) lines.push(`Project root: ${root}`);
  const git = await gitLine(root, options);
  if (git !== undefined) lines.push(git);
  lines.push(...(await entryLines(cwd, maxEntries)));
  return lines.join("\n");
}

async function gitLine(root: string, options: Omit<WorkspaceBaselineOptions, "cwd">): Promise<string | undefined> {
  const gitDir = await gitDirectory(root);
  if (gitDir === undefined) return undefined;
  const head = await readGitHead(gitDir);
  if (head === undefined) return undefined;
  const where = "branch" in head ? `Git branch: ${head.branch}` : `Git: detached HEAD at ${head.detached}`;
  // Opt-in: git status obeys the repository's own config, which can name programs (git-state.ts).
  if (options.gitStatus !== true) return where;
  const dirty = await gitTreeDirty(root, gitDir, positiveInteger(options.gitTimeoutMs, 3_000, "gitTimeoutMs"));
  return dirty === undefined ? where : `${where} (${dirty ? "uncommitted changes" : "clean"})`;
}

/**
 * Top-level entries of `cwd` in code-unit order, directories with a trailing `/`. Dotfiles are
 * left out except git's own (`.gitignore`, `.github/`…; `.git` itself is the git line's job).
 */
async function entryLines(cwd: string, maxEntries: number): Promise<string[]> {
  let entries: Dirent[];
  try {
    entries = await readdir(cwd, { withFileTypes: true });
  } catch {
    return [];
  }
  const names = entries
    .filter((e) => !e.name.startsWith(".") || (e.name.startsWith(".git") && e.name !== ".git"))
    .map((e) => printable(e.isDirectory() ? `${e.name}/` : e.name))
    .sort();
  if (names.length === 0) return ["Top-level entries: none"];
  const shown = names.slice(0, maxEntries).map((name) => `- ${name}`);
  if (names.length > maxEntries) shown.push(`… and ${names.length - maxEntries} more`);
  return ["Top-level entries:", ...shown];
}

/** A file name with control characters (a newline could forge a line) is shown JSON-quoted. */
const printable = (name: string): string => (/\p{Cc}/u.test(name) ? JSON.stringify(name) : name);

export function workspaceBaseline(options: WorkspaceBaselineOptions = {}): AgentPlugin {
  positiveInteger(options.maxEntries, 40, "maxEntries");
  positiveInteger(options.gitTimeoutMs, 3_000, "gitTimeoutMs");
  return namedPlugin("workspaceBaseline", (host) => {
    host.on("agent/session-prefix", async (_payload, next) => {
      const body = await describeWorkspace(agentCwd(host.agent, options.cwd), options);
      return [systemReminder(body), ...(await next())];
    });
    return undefined;
  });
}
