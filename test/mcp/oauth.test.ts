// OAuth 2.1 for HTTP MCP servers (#25): typed errors for every failure to reach, authorize or
// list a server; a login through an `authorize` callback (discovery, dynamic registration, PKCE,
// code exchange) that stores the tokens in files of mode 0600; unattended use of stored tokens
// and their refresh; no token in the log, a header snapshot or a message; DELETE of the HTTP
// session on dispose.
import { mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { ScriptedProvider } from "../../src/llm/index.js";
import { createAgent } from "../../src/loop/index.js";
import { fileAuthStore, type McpAuthOptions, mcpTools } from "../../src/mcp/index.js";
import { startOAuthServer } from "./fixtures/oauth-server.mjs";
import { textOf, toolResults } from "./support.js";

/** An authorize callback that follows the approving redirect and returns the code (what a browser does). */
async function followRedirect(url: URL): Promise<string> {
  const response = await fetch(url, { redirect: "manual" });
  const location = response.headers.get("location");
  if (location === null) throw new Error(`no redirect from ${url.origin}`);
  const code = new URL(location).searchParams.get("code");
  if (code === null) throw new Error("no code in the redirect");
  return code;
}

const echoCall = () =>
  new ScriptedProvider([{ toolCalls: [{ name: "mcp__web__echo", arguments: { text: "authorized" } }] }], {
    fallback: { text: "done" },
  });

describe("OAuth for HTTP servers", () => {
  let home: string;
  let server: Awaited<ReturnType<typeof startOAuthServer>>;
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), "keelson-mcp-oauth-"));
  });
  afterEach(async () => {
    await server?.close();
    await rm(home, { recursive: true, force: true });
  });

  async function run(auth: McpAuthOptions | undefined, provider = echoCall()) {
    const plugin = mcpTools({
      servers: { web: { url: server.url } },
      permissions: { mode: "allow" },
      ...(auth === undefined ? {} : { auth }),
    });
    const agent = createAgent({ provider, model: "scripted:test", plugins: [plugin] });
    const outcome = await agent.send("go");
    await agent.dispose();
    await plugin.close(agent);
    return { agent, outcome };
  }

  test("initialize accepted, tools/list answered 401: the turn ends error unauthorized naming the server and the login", async () => {
    server = await startOAuthServer({ guard: "list" });
    const { agent, outcome } = await run(undefined, new ScriptedProvider([]));
    expect(outcome.reason).toMatchObject({ kind: "error", code: "unauthorized" });
    const message = (outcome.reason as { message: string }).message;
    expect(message).toContain(`MCP server "web" (http ${server.url}) needs authorization (401 Unauthorized`);
    expect(message).toContain("keelson mcp login web");
    expect(message).not.toContain("Streamable HTTP error");
    expect(agent.session.events.filter((e) => e.type === "step/start")).toHaveLength(0);
  });

  test("not logged in, unattended: unauthorized at once, no client registered, nothing stored", async () => {
    server = await startOAuthServer();
    const store = fileAuthStore(join(home, "mcp-auth"));
    const { outcome } = await run({ store });
    expect(outcome.reason).toMatchObject({ kind: "error", code: "unauthorized" });
    expect(server.seen.registrations).toBe(0);
    expect(await store.list()).toEqual([]);
  });

  test("a login stores the registration and tokens (0600); later agents use them unattended, and refresh them", async () => {
    server = await startOAuthServer();
    const dir = join(home, "mcp-auth");
    const authorized: string[] = [];
    const login = await run({
      store: fileAuthStore(dir),
      authorize: async (url, name) => {
        authorized.push(name);
        return followRedirect(url);
      },
    });
    expect(login.outcome.reason).toEqual({ kind: "completed" });
    expect(authorized).toEqual(["web"]);
    expect(server.seen).toMatchObject({ registrations: 1, authorizations: 1, tokens: 1 });
    expect(textOf(toolResults(login.agent.session.events)[0]!)).toBe("echo: authorized");
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    const [file] = await readdir(dir);
    expect((await stat(join(dir, file!))).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(await readFile(join(dir, file!), "utf8")) as { tokens: { access_token: string } };

    // Unattended (no authorize): the stored token is sent; nothing is registered or authorized again.
    const later = await run({ store: fileAuthStore(dir) });
    expect(later.outcome.reason).toEqual({ kind: "completed" });
    expect(server.seen).toMatchObject({ registrations: 1, authorizations: 1 });
    expect(server.seen.authHeaders).toContain(`Bearer ${stored.tokens.access_token}`);

    // The access token expires: the refresh token gets a new one, unattended.
    server.expireAccess();
    const refreshed = await run({ store: fileAuthStore(dir) });
    expect(refreshed.outcome.reason).toEqual({ kind: "completed" });
    expect(server.seen).toMatchObject({ registrations: 1, authorizations: 1, refreshes: 1 });

    // No token anywhere in what is logged (header snapshots included).
    for (const { agent } of [login, later, refreshed]) {
      const log = JSON.stringify(agent.session.events);
      expect(log).not.toContain("at-");
      expect(log).not.toContain("rt-");
    }
  });

  test("dispose ends the HTTP session with DELETE", async () => {
    server = await startOAuthServer();
    const dir = join(home, "mcp-auth");
    await run({ store: fileAuthStore(dir), authorize: followRedirect });
    expect(server.seen.deletes).toBeGreaterThanOrEqual(1);
    expect(server.sessions.size).toBe(0);
  });
});
