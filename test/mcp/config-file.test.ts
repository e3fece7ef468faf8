// The mcp.json files: `<home>/mcp.json` and `<cwd>/.keelson/mcp.json` merged by server name (the
// workspace wins), and every mistake an McpError naming the file and the key — never a value
// of env or headers.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { loadMcpConfig, mcpTools } from "../../src/mcp/index.js";
import { afterThisFile } from "../support/test-cleanups.js";

async function dirs(home: unknown, workspace: unknown) {
  const root = await mkdtemp(join(tmpdir(), "keelson-mcp-config-"));
  afterThisFile(() => rm(root, { recursive: true, force: true }));
  const paths = { home: join(root, "home"), cwd: join(root, "ws") };
  await mkdir(paths.home);
  await mkdir(join(paths.cwd, ".keelson"), { recursive: true });
  if (home !== undefined)
    await writeFile(join(paths.home, "mcp.json"), typeof home === "string" ? home : JSON.stringify(home));
  if (workspace !== undefined)
    await writeFile(
      join(paths.cwd, ".keelson", "mcp.json"),
      typeof workspace === "string" ? workspace : JSON.stringify(workspace),
    );
  return paths;
}

describe("mcp.json", () => {
  test("no files: no servers", async () => {
    expect(await loadMcpConfig(await dirs(undefined, undefined))).toEqual({ servers: {}, sources: {}, digests: {} });
  });

  test("the workspace's servers join the user's and win by name", async () => {
    const paths = await dirs(
      { mcpServers: { a: { command: "user-a" }, b: { url: "https://example.test/mcp", headers: { x: "1" } } } },
      { mcpServers: { a: { command: "ws-a", args: ["--flag"], env: { K: "v" } } } },
    );
    const config = await loadMcpConfig(paths);
    expect(config.servers).toEqual({
      a: { command: "ws-a", args: ["--flag"], env: { K: "v" } },
      b: { url: "https://example.test/mcp", headers: { x: "1" } },
    });
    expect(config.sources).toEqual({
      a: join(paths.cwd, ".keelson", "mcp.json"),
      b: join(paths.home, "mcp.json"),
    });
  });

  const bad: readonly [string, unknown, string][] = [
    ["not JSON", "{ nope", "not valid JSON"],
    ["no mcpServers", { servers: {} }, 'expected an object with an "mcpServers" key'],
    ["no command or url", { mcpServers: { s: { args: [] } } }, "mcpServers.s.command must be a non-empty string"],
    [
      "args not strings",
      { mcpServers: { s: { command: "x", args: [1] } } },
      "mcpServers.s.args must be an array of strings",
    ],
    ["a bad url", { mcpServers: { s: { url: "ftp://x" } } }, "mcpServers.s.url must be an http:// or https:// URL"],
    ["an unknown key", { mcpServers: { s: { command: "x", enviroment: {} } } }, "mcpServers.s.enviroment is not a key"],
    [
      "a header that is not a string",
      { mcpServers: { s: { url: "http://127.0.0.1/mcp", headers: { authorization: ["Bearer hidden"] } } } },
      "mcpServers.s.headers.authorization must be a string",
    ],
  ];
  test.each(bad)("%s is an invalid-config error naming the file and key", async (_, content, problem) => {
    const paths = await dirs(undefined, content);
    const error = (await loadMcpConfig(paths).catch((e: unknown) => e)) as Error & { code: string };
    expect(error.code).toBe("invalid-config");
    expect(error.message).toContain(`${join(paths.cwd, ".keelson", "mcp.json")}: `);
    expect(error.message).toContain(problem);
    expect(error.message).not.toContain("hidden");
  });

  test("mcpTools checks its options the same way, naming them", () => {
    expect(() => mcpTools({ servers: { s: { command: "" } } })).toThrow(
      "mcpTools options: servers.s.command must be a non-empty string",
    );
    expect(() => mcpTools({ servers: {}, initTimeoutMs: 0 })).toThrow("initTimeoutMs must be a positive integer");
  });
});
