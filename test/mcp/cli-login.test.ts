// `keelson mcp login | list | logout` through the real launcher, against the OAuth fixture on
// 127.0.0.1: login prints the authorization URL, the "browser" (a fetch that follows the redirect
// to the login's 127.0.0.1 callback) completes it, the tokens land in $KEELSON_HOME/mcp-auth
// (0600) and are never printed; list shows the server logged in; logout forgets it.
import { readdir, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { BIN, cleanEnv, keelson, spawn, tempHome } from "../cli/run-keelson.js";
import { startOAuthServer } from "./fixtures/oauth-server.mjs";

let server: Awaited<ReturnType<typeof startOAuthServer>>;
let home: string;
beforeAll(async () => {
  server = await startOAuthServer();
  home = await tempHome();
  await writeFile(join(home, "mcp.json"), JSON.stringify({ mcpServers: { web: { url: server.url } } }));
});
afterAll(async () => {
  await server.close();
});

/** Runs `keelson mcp login web`, opening the URL it prints like a browser would. */
function login(): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [BIN, "mcp", "login", "web", "--timeout", "30"], {
      env: cleanEnv(home),
      cwd: home,
    });
    let stdout = "";
    let stderr = "";
    let opened = false;
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      const url = /^ {2}(http\S+)$/m.exec(stdout)?.[1];
      if (url !== undefined && !opened) {
        opened = true;
        void fetch(url).then((r) => r.text());
      }
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on("close", (code) => done({ code: code ?? 1, stdout, stderr }));
  });
}

describe("keelson mcp login / list / logout", () => {
  test("list before: not logged in", async () => {
    const listed = await keelson(home, ["mcp", "list"]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^web {2}http .*\/mcp {2}not logged in/m);
  });

  test("login prints the URL, completes through the 127.0.0.1 callback, stores 0600 tokens, prints none", async () => {
    const result = await login();
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Open this URL to authorize Keelson at MCP server web:");
    expect(result.stdout).toMatch(/redirect_uri=http%3A%2F%2F127\.0\.0\.1%3A\d+%2Fcallback/);
    expect(result.stdout).toContain("code_challenge_method=S256");
    expect(result.stdout).toContain("logged in to web: 1 tool (echo)");
    expect(result.stdout).not.toMatch(/\bat-|\brt-/);
    const dir = join(home, "mcp-auth");
    const [file] = await readdir(dir);
    expect((await stat(join(dir, file!))).mode & 0o777).toBe(0o600);
    expect(server.seen).toMatchObject({ registrations: 1, tokens: 1 });
  });

  test("list after: logged in; logout forgets it", async () => {
    expect((await keelson(home, ["mcp", "list"])).stdout).toMatch(/^web {2}http .* {2}logged in \(tokens saved /m);
    const out = await keelson(home, ["mcp", "logout", "web"]);
    expect(out).toMatchObject({ code: 0, stdout: "logged out of web\n" });
    expect((await keelson(home, ["mcp", "list"])).stdout).toMatch(/not logged in/);
    expect(await keelson(home, ["mcp", "login", "nope"])).toMatchObject({ code: 2 });
  });
});
