// An interactive OAuth login to one HTTP MCP server (`keelson mcp login`): a callback server on
// 127.0.0.1 (a free port) is the redirect URI; the authorization URL — after discovery, dynamic
// registration (or the configured client) and PKCE — goes to `onUrl` (printed for a person to
// open); the code the browser brings back (its `state` checked) is exchanged for tokens, which the
// store keeps; the server is then initialized and its tools listed to prove the login, and the
// connection closed (its HTTP session ended). Logout removes the stored record.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { McpConnection } from "./connection.js";
import { loadMcpSdk } from "./sdk.js";
import { describeServer, isHttpServer, McpError, type McpAuthStore, type McpServerConfig } from "./types.js";

export const DEFAULT_LOGIN_TIMEOUT_MS = 300_000;

export interface McpLoginOptions {
  readonly name: string;
  readonly config: McpServerConfig;
  readonly store: McpAuthStore;
  /** Told the authorization URL to open (the CLI prints it). */
  readonly onUrl: (url: URL) => void;
  /** How long to wait for the browser's redirect (ms). Default 5 minutes. */
  readonly timeoutMs?: number;
  /** How long the server may take to answer initialize and tools/list (ms). Default 30 000. */
  readonly initTimeoutMs?: number;
}

/** Logs in to `name` and lists its tools (their MCP names) with the new authorization. */
export async function mcpLogin(options: McpLoginOptions): Promise<string[]> {
  const { name, config } = options;
  if (!isHttpServer(config))
    throw new McpError("invalid-config", `${describeServer(name, config)} is not an HTTP server: it has no login`, {
      server: name,
    });
  const callback = await callbackServer(options.timeoutMs ?? DEFAULT_LOGIN_TIMEOUT_MS, name);
  const sdk = await loadMcpSdk();
  const connection = new McpConnection(sdk, name, config, {
    auth: {
      store: options.store,
      redirectUrl: callback.redirectUrl,
      authorize: async (url) => {
        options.onUrl(url);
        return callback.code(url.searchParams.get("state"));
      },
    },
  });
  try {
    const timeout = options.initTimeoutMs ?? 30_000;
    await connection.connect(timeout);
    return (await connection.listTools(timeout)).map((t) => t.name);
  } finally {
    await connection.close();
    await callback.close();
  }
}

/** Forgets the stored authorization of an HTTP server; true when there was one. */
export async function mcpLogout(config: McpServerConfig, store: McpAuthStore): Promise<boolean> {
  return isHttpServer(config) ? store.delete(config.url) : false;
}

interface Callback {
  readonly redirectUrl: string;
  /** The code of the redirect that carries `state`; rejects on an error redirect or the timeout. */
  code(state: string | null): Promise<string>;
  close(): Promise<void>;
}

async function callbackServer(timeoutMs: number, name: string): Promise<Callback> {
  let deliver: ((query: URLSearchParams) => void) | undefined;
  const arrived: URLSearchParams[] = [];
  const http: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (url.pathname !== "/callback") {
      res.writeHead(404).end();
      return;
    }
    const ok = url.searchParams.has("code");
    res
      .writeHead(ok ? 200 : 400, { "content-type": "text/plain; charset=utf-8" })
      .end(ok ? "Keelson is authorized. You may close this page.\n" : "The authorization did not succeed.\n");
    arrived.push(url.searchParams);
    deliver?.(url.searchParams);
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    redirectUrl: `http://127.0.0.1:${port}/callback`,
    code: (state) =>
      new Promise<string>((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(
              new McpError("unauthorized", `MCP server "${name}": no authorization came back within ${timeoutMs} ms`, {
                server: name,
              }),
            ),
          timeoutMs,
        );
        timer.unref();
        deliver = (query) => {
          if (state !== null && query.get("state") !== state) return; // another tab's, or forged
          clearTimeout(timer);
          const code = query.get("code");
          if (code !== null) resolve(code);
          else
            reject(
              new McpError(
                "unauthorized",
                `MCP server "${name}": the authorization was refused (${(query.get("error") ?? "no code").slice(0, 100)})`,
                { server: name },
              ),
            );
        };
        for (const query of arrived.splice(0)) deliver(query);
      }),
    close: async () => {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
