// The MCP configuration files the CLI reads, in the format other agents use:
// `{ "mcpServers": { "<name>": { "command", "args"?, "env"?, "cwd"? } | { "url", "headers"? } } }`.
// The user's file is `<KEELSON_HOME>/mcp.json`, the workspace's `<cwd>/.keelson/mcp.json`. A
// workspace server never takes over a user's server: one whose name — as tool names and
// `--allow mcp__<server>` see it (mcpServerPrefix) — is, or overlaps, a user server's is refused,
// so a file planted in the workspace cannot inherit the user's permissions for their own server.
// A missing file is no servers; anything else wrong is `McpError('invalid-config')` naming the
// file(s) and the key. Each file's sha256 is that of the very text parsed (a consent given to one
// content is not given to another).
import { createHash } from "node:crypto";
import { readFile, realpath } from "node:fs/promises";
import { join } from "node:path";
import { checkServers } from "./server-config.js";
import { mcpServerPrefix } from "./tool-name.js";
import { McpError, type McpServerConfig } from "./types.js";

export interface McpConfig {
  readonly servers: Readonly<Record<string, McpServerConfig>>;
  /** The file each server came from. */
  readonly sources: Readonly<Record<string, string>>;
  /** The sha256 (hex) of each file that exists, of the text the servers were parsed from. */
  readonly digests: Readonly<Record<string, string>>;
}

/**
 * `<home>/mcp.json` and `<cwd>/.keelson/mcp.json` together. A workspace server whose name is or
 * overlaps a user server's (`namesOverlap`) is `McpError('invalid-config')` naming both files:
 * the workspace never shadows the user. When both paths are one file, it counts as the user's.
 */
export async function loadMcpConfig(options: { readonly cwd: string; readonly home: string }): Promise<McpConfig> {
  const servers: Record<string, McpServerConfig> = {};
  const sources: Record<string, string> = {};
  const digests: Record<string, string> = {};
  const [userFile, workspaceFile] = mcpConfigFiles(options) as [string, string];
  const user = await readConfig(userFile);
  const workspace = (await sameFile(userFile, workspaceFile)) ? undefined : await readConfig(workspaceFile);
  if (user !== undefined && workspace !== undefined)
    refuseShadowing(user.servers, userFile, workspace.servers, workspaceFile);
  for (const [file, found] of [
    [userFile, user],
    [workspaceFile, workspace],
  ] as const) {
    if (found === undefined) continue;
    digests[file] = found.sha256;
    for (const [name, config] of Object.entries(found.servers)) {
      servers[name] = config;
      sources[name] = file;
    }
  }
  return { servers, sources, digests };
}

/**
 * Whether servers named `a` and `b` share tool names or permissions: their prefixes
 * (`mcp__<name>`, sanitized) are equal, or one server's tool names can be the other's
 * (`github` and `github__x`, `git.hub` and `git_hub`) — then `--allow mcp__<a>…` would cover `b`.
 */
export function namesOverlap(a: string, b: string): boolean {
  const [left, right] = [`${mcpServerPrefix(a)}__`, `${mcpServerPrefix(b)}__`];
  return left.startsWith(right) || right.startsWith(left);
}

/** Throws when a workspace server would take over a user server's name. */
function refuseShadowing(
  user: Readonly<Record<string, McpServerConfig>>,
  userFile: string,
  workspace: Readonly<Record<string, McpServerConfig>>,
  workspaceFile: string,
): void {
  for (const name of Object.keys(workspace)) {
    const taken = Object.keys(user).find((own) => namesOverlap(own, name));
    if (taken === undefined) continue;
    const same =
      taken === name
        ? `a server named ${JSON.stringify(name)}`
        : `server ${JSON.stringify(name)}, whose tool names and permissions overlap the user's server ${JSON.stringify(taken)}`;
    throw new McpError(
      "invalid-config",
      `${workspaceFile}: mcpServers.${name}: defines ${same} of ${userFile}; a workspace's server never replaces the user's own (it would get the permissions given to it), so nothing is started — rename or remove it in ${workspaceFile}`,
    );
  }
}

/** Whether `a` and `b` name one file (both missing: only when the paths are equal). */
async function sameFile(a: string, b: string): Promise<boolean> {
  if (a === b) return true;
  const [realA, realB] = await Promise.all([realpath(a).catch(() => a), realpath(b).catch(() => b)]);
  return realA === realB;
}

/** The files `loadMcpConfig` reads: the user's, then the workspace's. */
export function mcpConfigFiles(options: { readonly cwd: string; readonly home: string }): string[] {
  return [join(options.home, "mcp.json"), join(options.cwd, ".keelson", "mcp.json")];
}

/** The servers of one file; undefined when it does not exist. */
export async function readMcpConfigFile(file: string): Promise<Record<string, McpServerConfig> | undefined> {
  return (await readConfig(file))?.servers;
}

async function readConfig(
  file: string,
): Promise<{ servers: Record<string, McpServerConfig>; sha256: string } | undefined> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as { code?: unknown }).code === "ENOENT") return undefined;
    throw new McpError("invalid-config", `${file}: cannot be read: ${(error as Error).message}`, { cause: error });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new McpError("invalid-config", `${file}: not valid JSON: ${(error as Error).message}`, { cause: error });
  }
  if (typeof json !== "object" || json === null || Array.isArray(json) || !("mcpServers" in json))
    throw new McpError("invalid-config", `${file}: expected an object with an "mcpServers" key`);
  return {
    servers: checkServers((json as { mcpServers: unknown }).mcpServers, file, "mcpServers"),
    sha256: createHash("sha256").update(text).digest("hex"),
  };
}
