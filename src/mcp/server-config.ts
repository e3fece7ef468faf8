// Checks a servers map (from code or from an mcp.json file) before anything is spawned: each
// entry is `{ command, args?, env?, cwd? }` or `{ url, headers? }`, with the key path and the
// source named in the error. Values of `env` and `headers` are never put in a message.
import { isKeelsonError } from "../errors/index.js";
import { type SandboxErrorCode, sandboxOptions } from "../sandbox/index.js";
import {
  McpError,
  type McpHttpServer,
  type McpServerConfig,
  type McpStdioServer,
  type McpTransportServer,
} from "./types.js";

const STDIO_KEYS = new Set(["command", "args", "env", "cwd", "sandbox", "type"]);
const HTTP_KEYS = new Set(["url", "headers", "type", "oauth", "authProvider"]);
const OAUTH_KEYS = new Set(["clientId", "clientSecret", "scope", "clientMetadataUrl"]);

/** The servers in `value`, checked; `where` names the source (`mcpTools servers`, a file path). */
export function checkServers(value: unknown, where: string, key = "servers"): Record<string, McpServerConfig> {
  const fail = (path: string, problem: string): never => {
    throw new McpError("invalid-config", `${where}: ${path} ${problem}`);
  };
  if (!isObject(value)) return fail(key, "must be an object of servers by name");
  const servers: Record<string, McpServerConfig> = {};
  for (const [name, entry] of Object.entries(value)) {
    const at = `${key}.${name}`;
    if (name === "" || /[\s]/.test(name)) fail(at, "has an empty name or one with spaces");
    if (!isObject(entry)) fail(at, "must be an object with `command` (stdio) or `url` (Streamable HTTP)");
    const config = entry as Record<string, unknown>;
    if (typeof config.transport === "function" && Object.keys(config).length === 1) {
      servers[name] = { transport: config.transport as McpTransportServer["transport"] };
      continue;
    }
    const type = config.type;
    if (type !== undefined && type !== "stdio" && type !== "http" && type !== "streamable-http")
      fail(`${at}.type`, `must be "stdio" or "http" (got ${JSON.stringify(type)})`);
    if (typeof config.url === "string" || type === "http" || type === "streamable-http") {
      for (const k of Object.keys(config)) if (!HTTP_KEYS.has(k)) fail(`${at}.${k}`, "is not a key of an HTTP server");
      if (typeof config.url !== "string" || !/^https?:\/\//.test(config.url))
        fail(`${at}.url`, "must be an http:// or https:// URL");
      try {
        new URL(config.url as string);
      } catch {
        fail(`${at}.url`, "is not a valid URL");
      }
      if (
        config.authProvider !== undefined &&
        (typeof config.authProvider !== "object" || config.authProvider === null)
      )
        fail(`${at}.authProvider`, "must be an OAuthClientProvider object (code only)");
      const oauth = config.oauth === undefined ? undefined : stringRecord(config.oauth, `${at}.oauth`, fail);
      for (const k of Object.keys(oauth ?? {}))
        if (!OAUTH_KEYS.has(k)) fail(`${at}.oauth.${k}`, `is not an OAuth setting (${[...OAUTH_KEYS].join(", ")})`);
      servers[name] = {
        url: config.url as string,
        ...(config.headers === undefined ? {} : { headers: stringRecord(config.headers, `${at}.headers`, fail) }),
        ...(oauth === undefined ? {} : { oauth }),
        ...(config.authProvider === undefined
          ? {}
          : { authProvider: config.authProvider as NonNullable<McpHttpServer["authProvider"]> }),
      };
      continue;
    }
    for (const k of Object.keys(config)) if (!STDIO_KEYS.has(k)) fail(`${at}.${k}`, "is not a key of a stdio server");
    if (typeof config.command !== "string" || config.command.trim() === "")
      fail(`${at}.command`, "must be a non-empty string (or give `url` for an HTTP server)");
    const args = config.args;
    if (args !== undefined && (!Array.isArray(args) || args.some((a) => typeof a !== "string")))
      fail(`${at}.args`, "must be an array of strings");
    if (config.cwd !== undefined && typeof config.cwd !== "string") fail(`${at}.cwd`, "must be a string");
    const sandbox = config.sandbox as Record<string, unknown> | undefined;
    if (typeof sandbox === "object" && sandbox !== null && "bwrap" in sandbox)
      fail(`${at}.sandbox.bwrap`, "is not accepted for an MCP server (set $KEELSON_BWRAP instead)");
    try {
      sandboxOptions(config.sandbox, `${where}: ${at}.sandbox`);
    } catch (error) {
      if (isKeelsonError<SandboxErrorCode>(error, "invalid-options"))
        throw new McpError("invalid-config", error.message, { cause: error });
      throw error;
    }
    servers[name] = {
      command: config.command as string,
      ...(args === undefined ? {} : { args: [...(args as string[])] }),
      ...(config.env === undefined ? {} : { env: stringRecord(config.env, `${at}.env`, fail) }),
      ...(config.cwd === undefined ? {} : { cwd: config.cwd as string }),
      ...(config.sandbox === undefined ? {} : { sandbox: config.sandbox as NonNullable<McpStdioServer["sandbox"]> }),
    };
  }
  return servers;
}

function stringRecord(
  value: unknown,
  at: string,
  fail: (path: string, problem: string) => never,
): Record<string, string> {
  if (!isObject(value)) return fail(at, "must be an object of strings");
  for (const [k, v] of Object.entries(value)) if (typeof v !== "string") fail(`${at}.${k}`, "must be a string");
  return { ...(value as Record<string, string>) };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
