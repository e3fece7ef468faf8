// Consent before a workspace's MCP servers start (issue #20, F8): the servers of
// `<cwd>/.keelson/mcp.json` come with the repository, and a stdio server is a command Keelson
// runs. They start only when
//   - `--allow` names `mcp` (every server) or `mcp__<server>` for each of them, or
//   - the file's exact content is trusted: `<KEELSON_HOME>/trusted-mcp.json` records the file's
//     path and the sha256 of its text (a changed file needs consent again), or
//   - chat asked (showing each server's exact command line, control characters escaped) and the
//     person said yes (this process) or always (recorded as trusted).
// Headless commands without consent refuse with a CliError naming `--allow mcp` (exit 2, before
// a session is created). Loaded only when a workspace has MCP servers. The user's own
// `<KEELSON_HOME>/mcp.json` needs no consent. Env values are never shown, only their names.
import { mkdir, readFile, realpath, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type PermissionPolicy, showable } from "../builtin-tools/index.js";
import type { McpServerConfig } from "../mcp/index.js";
import { CliError } from "./errors.js";

export const TRUSTED_MCP_FILE = "trusted-mcp.json";

/** The servers one workspace file would start, with the digest of the text they came from. */
export interface WorkspaceServers {
  readonly file: string;
  readonly sha256: string;
  readonly servers: Readonly<Record<string, McpServerConfig>>;
}

interface TrustedEntry {
  readonly file: string;
  readonly sha256: string;
  readonly at: string;
}

/** Contents consented to in this process ("yes" in chat): `<file>\0<sha256>`. */
const consentedHere = new Set<string>();
/** Contents declined in this process: not asked again (a /fork builds the plugins again). */
const declinedHere = new Set<string>();

/**
 * Whether `workspace`'s servers may start: by `--allow`, by trust, or (chat) by asking.
 * Resolves false when the person declined; throws a CliError for a headless command without
 * consent.
 */
export async function workspaceMcpConsent(
  workspace: WorkspaceServers,
  permissions: PermissionPolicy,
  home: string,
): Promise<boolean> {
  const names = Object.keys(workspace.servers);
  const allow = permissions.allow ?? new Set<string>();
  const { mcpServerPrefix } = await import("../mcp/index.js");
  if (allow.has("mcp") || names.every((n) => allow.has(mcpServerPrefix(n)))) return true;
  const key = `${await canonicalPath(workspace.file)}\0${workspace.sha256}`;
  if (consentedHere.has(key)) return true;
  if (await isTrusted(home, workspace)) return true;
  const lines = names.map((n) => `${n}: ${serverLine(workspace.servers[n]!)}`);
  if (declinedHere.has(key)) return false;
  if (permissions.mode === "ask" && permissions.ask !== undefined) {
    const answer = await permissions
      .ask({
        tool: `the MCP servers of ${showable(workspace.file, false)} to start`,
        summary: [
          ...lines,
          `(yes: for this chat; always: trust this file's content — recorded in ${showable(join(home, TRUSTED_MCP_FILE), false)}; no: start none of them)`,
        ].join("\n"),
      })
      .catch(() => "no" as const);
    if (answer === "no") {
      declinedHere.add(key);
      process.stderr.write(`keelson: mcp: the servers of ${showable(workspace.file, false)} are not started\n`);
      return false;
    }
    consentedHere.add(key);
    if (answer === "always") await trust(home, workspace);
    return true;
  }
  throw new CliError(
    `${showable(workspace.file, false)} would start MCP servers (${lines.join("; ")}) — not started without consent: pass --allow mcp (or --allow mcp__<server> for each) to start them, or trust this file's content in keelson chat (answer always)`,
  );
}

/** `stdio <command> <args…>` (arguments quoted when needed), `cwd`, env names, the sandbox; or `http <url>`. */
export function serverLine(config: McpServerConfig): string {
  if ("url" in config) return `http ${showable(config.url, false)}`;
  if (!("command" in config)) return "in-process transport";
  const words = [config.command, ...(config.args ?? [])].map(quoteWord);
  const env = Object.keys(config.env ?? {});
  return [
    `stdio ${words.join(" ")}`,
    ...(config.cwd === undefined ? [] : [`(cwd ${quoteWord(config.cwd)})`]),
    ...(env.length === 0 ? [] : [`(env ${env.map((n) => showable(n, false)).join(", ")}; values not shown)`]),
    config.sandbox === undefined ? "(not sandboxed)" : `(sandbox ${showable(JSON.stringify(config.sandbox), false)})`,
  ].join(" ");
}

/** A word as a shell would need it: bare when plain, else JSON-quoted; control characters escaped. */
function quoteWord(word: string): string {
  return showable(/^[A-Za-z0-9_./:=@%+,-]+$/.test(word) ? word : JSON.stringify(word), false);
}

async function isTrusted(home: string, workspace: WorkspaceServers): Promise<boolean> {
  const file = await canonicalPath(workspace.file);
  return (await readTrusted(home)).some((e) => e.file === file && e.sha256 === workspace.sha256);
}

/** Records `workspace`'s file and digest as trusted (replacing an older digest of that file). */
async function trust(home: string, workspace: WorkspaceServers): Promise<void> {
  const file = await canonicalPath(workspace.file);
  const entries = (await readTrusted(home)).filter((e) => e.file !== file);
  entries.push({ file, sha256: workspace.sha256, at: new Date().toISOString() });
  await mkdir(home, { recursive: true });
  const target = join(home, TRUSTED_MCP_FILE);
  const temp = `${target}.${process.pid}.tmp`;
  await writeFile(temp, `${JSON.stringify({ version: 1, trusted: entries }, null, 2)}\n`, { mode: 0o600 });
  await rename(temp, target);
}

/** The trusted entries; a missing or unreadable file trusts nothing. */
async function readTrusted(home: string): Promise<TrustedEntry[]> {
  try {
    const json = JSON.parse(await readFile(join(home, TRUSTED_MCP_FILE), "utf8")) as { trusted?: unknown };
    if (!Array.isArray(json.trusted)) return [];
    return (json.trusted as Partial<TrustedEntry>[]).filter(
      (e): e is TrustedEntry =>
        typeof e === "object" && e !== null && typeof e.file === "string" && typeof e.sha256 === "string",
    );
  } catch {
    return [];
  }
}

async function canonicalPath(file: string): Promise<string> {
  return realpath(file).catch(() => file);
}
