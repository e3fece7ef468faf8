// MCP in the CLI: the servers of `<KEELSON_HOME>/mcp.json` and `<cwd>/.keelson/mcp.json` (the
// workspace may not reuse a user server's name: McpError('invalid-config')) as an `mcpTools` plugin behind the command's permission policy, and
// the tool listing chat shows (`/tools`, and the MCP line at start). A bad file is a CliError
// naming the file and key (exit 2) before anything is written; env values and headers are never
// printed. Notices (a logged tool dropped on resume, a server that exited) go to stderr. The
// workspace's servers start only with consent (mcp-consent.ts): `--allow mcp`, a trusted
// content, or chat's question; declined in chat, only the user's servers start.
import { join } from "node:path";
import type { PermissionPolicy } from "../builtin-tools/index.js";
import { keelsonHome } from "../home/index.js";
import type { Agent, AgentPlugin } from "../loop/index.js";
import { isKeelsonError } from "../errors/index.js";
import type { McpErrorCode } from "../mcp/index.js";
import { CliError } from "./errors.js";

/** Where the CLI keeps MCP OAuth authorizations (`keelson mcp login`): a folder of mode 0700. */
export function mcpAuthDir(home: string = keelsonHome()): string {
  return join(home, "mcp-auth");
}

/** The MCP plugin for `cwd`'s configuration, or undefined when no server is configured. */
export async function cliMcpPlugin(cwd: string, permissions: PermissionPolicy): Promise<AgentPlugin | undefined> {
  const mcp = await import("../mcp/index.js");
  const home = keelsonHome();
  let config: Awaited<ReturnType<typeof mcp.loadMcpConfig>>;
  try {
    config = await mcp.loadMcpConfig({ cwd, home });
  } catch (error) {
    if (isKeelsonError<McpErrorCode>(error, "invalid-config"))
      throw new CliError(`invalid MCP configuration: ${error.message}`);
    throw error;
  }
  let servers = config.servers;
  const [userFile, workspaceFile] = mcp.mcpConfigFiles({ cwd, home });
  const fromWorkspace = Object.entries(servers).filter(
    ([name]) => config.sources[name] === workspaceFile && workspaceFile !== userFile,
  );
  if (fromWorkspace.length > 0) {
    const workspace = {
      file: workspaceFile!,
      sha256: config.digests[workspaceFile!]!,
      servers: Object.fromEntries(fromWorkspace),
    };
    const { workspaceMcpConsent } = await import("./mcp-consent.js");
    if (!(await workspaceMcpConsent(workspace, permissions, home))) {
      servers = (await mcp.readMcpConfigFile(userFile!)) ?? {};
    }
  }
  if (Object.keys(servers).length === 0) return undefined;
  return mcp.mcpTools({
    servers,
    permissions,
    auth: { store: mcp.fileAuthStore(mcpAuthDir(home)) },
    onNotice: (text) => process.stderr.write(`keelson: mcp: ${text}\n`),
  });
}

/** One line per MCP server of `agent` (waiting for them to connect): its tools, or why it has none. */
export async function mcpStatusLines(agent: Agent): Promise<string[]> {
  const { mcpServers } = await import("../mcp/index.js");
  return (await mcpServers(agent)).map((s) =>
    "error" in s
      ? `  mcp ${s.name}: not connected — ${s.error.message}`
      : `  mcp ${s.name} (${s.transport}): ${s.tools.length} tool${s.tools.length === 1 ? "" : "s"}${s.connected ? "" : " (disconnected)"}`,
  );
}

/** `/tools`: the built-in and other tools, then each MCP server's. */
export async function toolListing(agent: Agent): Promise<string> {
  const { mcpServers } = await import("../mcp/index.js");
  const servers = await mcpServers(agent);
  const mcpNames = new Set(servers.flatMap((s) => ("error" in s ? [] : s.tools)));
  const own = agent.tools.names().filter((n) => !mcpNames.has(n));
  const lines = [`  tools    ${own.join(", ") || "none"}`];
  for (const s of servers) {
    if ("error" in s) lines.push(`  mcp ${s.name}: not connected — ${s.error.message}`);
    else lines.push(`  mcp ${s.name} (${s.transport}): ${s.tools.join(", ") || "no tools"}`);
  }
  return lines.join("\n");
}
