// `keelson mcp list | login <server> | logout <server>`: the MCP servers of `<KEELSON_HOME>/mcp.json`
// and `<cwd>/.keelson/mcp.json` (a workspace server may not reuse a user server's name) and their OAuth authorization, kept in
// `<KEELSON_HOME>/mcp-auth/` (a folder of mode 0700, one file of mode 0600 per server URL).
// `login` prints the authorization URL (a person opens it; the redirect comes back to a callback on
// 127.0.0.1), then proves the login by listing the server's tools. Tokens are never printed.
// Server names, URLs and the server's own texts are untrusted: escaped for the terminal.
import type { Command } from "commander";
import { keelsonHome } from "../home/index.js";
import type { McpServerConfig } from "../mcp/index.js";
import { commandSummary } from "./commands.js";
import { CliError } from "./errors.js";
import { mcpAuthDir } from "./mcp-setup.js";
import { terminalLine } from "./terminal-text.js";

export function registerMcp(program: Command): void {
  const mcp = program.command("mcp").description(commandSummary("mcp"));
  mcp
    .command("list")
    .description("each configured MCP server: its transport, where it is configured, and whether it is logged in")
    .action(async () => {
      const { servers, sources, store } = await configured();
      const names = Object.keys(servers).sort();
      if (names.length === 0) {
        process.stdout.write("no MCP servers configured (mcp.json in KEELSON_HOME or .keelson/ of this folder)\n");
        return;
      }
      for (const name of names) {
        const config = servers[name]!;
        let what: string;
        if ("url" in config) {
          const record = await store.load(config.url);
          const login =
            record?.tokens === undefined
              ? "not logged in"
              : `logged in${record.savedAt === undefined ? "" : ` (tokens saved ${new Date(record.savedAt).toISOString()})`}`;
          what = `http ${new URL(config.url).origin}${new URL(config.url).pathname}  ${login}`;
        } else what = "command" in config ? `stdio ${config.command}` : "in-process";
        process.stdout.write(`${terminalLine(`${name}  ${what}  (${sources[name] ?? "?"})`)}\n`);
      }
    });
  mcp
    .command("login <server>")
    .description("authorize Keelson at an HTTP MCP server (OAuth 2.1): prints the URL to open, waits for the redirect")
    .option("--timeout <seconds>", "how long to wait for the browser's redirect", "300")
    .action(async (server: string, flags: { timeout: string }) => {
      const { servers, store } = await configured();
      const config = httpServer(servers, server);
      const seconds = Number(flags.timeout);
      if (!Number.isFinite(seconds) || seconds <= 0)
        throw new CliError(`invalid --timeout ${terminalLine(flags.timeout)}`);
      const { mcpLogin } = await import("../mcp/index.js");
      const tools = await mcpLogin({
        name: server,
        config,
        store,
        timeoutMs: Math.round(seconds * 1000),
        onUrl: (url) =>
          process.stdout.write(
            `Open this URL to authorize Keelson at MCP server ${terminalLine(server)}:\n\n  ${terminalLine(url.href)}\n\nWaiting for the redirect to 127.0.0.1…\n`,
          ),
      });
      process.stdout.write(
        `${terminalLine(`logged in to ${server}: ${tools.length} tool${tools.length === 1 ? "" : "s"}${tools.length === 0 ? "" : ` (${tools.join(", ")})`}`)}\n`,
      );
    });
  mcp
    .command("logout <server>")
    .description("forget the stored OAuth authorization of an HTTP MCP server")
    .action(async (server: string) => {
      const { servers, store } = await configured();
      const config = httpServer(servers, server);
      const { mcpLogout } = await import("../mcp/index.js");
      const removed = await mcpLogout(config, store);
      process.stdout.write(`${terminalLine(removed ? `logged out of ${server}` : `${server}: was not logged in`)}\n`);
    });
}

async function configured() {
  const mcp = await import("../mcp/index.js");
  const home = keelsonHome();
  let config: Awaited<ReturnType<typeof mcp.loadMcpConfig>>;
  try {
    config = await mcp.loadMcpConfig({ cwd: process.cwd(), home });
  } catch (error) {
    throw new CliError(`invalid MCP configuration: ${(error as Error).message}`);
  }
  return { servers: config.servers, sources: config.sources, store: mcp.fileAuthStore(mcpAuthDir(home)) };
}

function httpServer(
  servers: Readonly<Record<string, McpServerConfig>>,
  name: string,
): McpServerConfig & { url: string } {
  const config = servers[name];
  if (config === undefined)
    throw new CliError(
      `no MCP server ${terminalLine(JSON.stringify(name))} in mcp.json (configured: ${Object.keys(servers).sort().join(", ") || "none"})`,
    );
  if (!("url" in config))
    throw new CliError(`MCP server ${terminalLine(JSON.stringify(name))} is not an HTTP server: it has no login`);
  return config;
}
