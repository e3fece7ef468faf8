// The MCP configuration files the CLI reads, in the format other agents use:
// `{ "mcpServers": { "<name>": { "command", "args"?, "env"?, "cwd"? } | { "url", "headers"? } } }`.
// The user's file is `<KEELSON_HOME>/mcp.json`, the workspace's `<cwd>/.keelson/mcp.json`; a
// workspace server replaces the user's server of the same name. A missing file is no servers;
// anything else wrong is `McpError('invalid-config')` naming the file and the key. Each file's
// sha256 is that of the very text parsed (a consent given to one content is not given to another).
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { checkServers } from "./server-config.js";
import { McpError, type McpServerConfig } from "./types.js";

export interface McpConfig {
  readonly servers: Readonly<Record<string, McpServerConfig>>;
  /** The file each server came from. */
  readonly sources: Readonly<Record<string, string>>;
  /** The sha256 (hex) of each file that exists, of the text the servers were parsed from. */
  readonly digests: Readonly<Record<string, string>>;
}

/** `<home>/mcp.json` then `<cwd>/.keelson/mcp.json`, merged by server name (the workspace wins). */
export async function loadMcpConfig(options: { readonly cwd: string; readonly home: string }): Promise<McpConfig> {
  const servers: Record<string, McpServerConfig> = {};
  const sources: Record<string, string> = {};
  const digests: Record<string, string> = {};
  for (const file of mcpConfigFiles(options)) {
    const found = await readConfig(file);
    if (found === undefined) continue;
    digests[file] = found.sha256;
    for (const [name, config] of Object.entries(found.servers)) {
      servers[name] = config;
      sources[name] = file;
    }
  }
  return { servers, sources, digests };
}

/** The files `loadMcpConfig` reads, lowest precedence first. */
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
