// A stdio MCP server in the sandbox (opt-in per server, `sandbox` in its config): it may write in
// its cwd only, cannot read a hidden path, and each of its tools' logged descriptions says so;
// where the sandbox cannot start the server is not started (connect-failed, nothing runs);
// without `sandbox` it runs as before, unconfined. Bad sandbox options are invalid-config.
import { existsSync } from "node:fs";
import { mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { ScriptedProvider, type ScriptedStep } from "../../src/llm/index.js";
import { createAgent } from "../../src/loop/index.js";
import { checkServers, McpError, type McpStdioServer, mcpTools } from "../../src/mcp/index.js";
import { sandboxSupport } from "../../src/sandbox/index.js";
import { FIXTURES, textOf, toolResults } from "./support.js";

const here = await sandboxSupport();
const made: string[] = [];
afterEach(async () => {
  for (const dir of made.splice(0)) await rm(dir, { recursive: true, force: true });
});
const temp = async (where: string, label: string): Promise<string> => {
  const dir = await realpath(await mkdtemp(join(where, `keelson-mcp-sandbox-${label}-`)));
  made.push(dir);
  return dir;
};
const outsideBase = existsSync("/var/tmp") ? "/var/tmp" : tmpdir();
/**
 * The checkout (the server's script, its node_modules): shown read-only, since a checkout under
 * /tmp would otherwise be hidden by the sandbox's own /tmp.
 */
const checkout = resolve(FIXTURES, "../../..");

function server(extra: Partial<McpStdioServer>): McpStdioServer {
  return { command: process.execPath, args: [resolve(FIXTURES, "sandbox-server.mjs")], ...extra };
}

async function run(config: McpStdioServer, cwd: string, script: readonly ScriptedStep[]) {
  const plugin = mcpTools({ servers: { box: config }, permissions: { mode: "allow" } });
  const agent = createAgent({
    provider: new ScriptedProvider(script, { fallback: { text: "done" } }),
    model: "scripted:test",
    cwd,
    plugins: [plugin],
  });
  try {
    const outcome = await agent.send("go");
    return { outcome, results: toolResults(agent.session.events), agent, tools: agent.tools.schemas() };
  } finally {
    await agent.dispose();
  }
}

const write = (path: string, text = "pwned"): ScriptedStep => ({
  toolCalls: [{ name: "mcp__box__write", arguments: { path, text } }],
});
const read = (path: string): ScriptedStep => ({ toolCalls: [{ name: "mcp__box__read", arguments: { path } }] });

describe("a stdio MCP server in the sandbox", () => {
  test.skipIf(!here.ok)(
    "writes in its cwd only, cannot read a hidden path; its tools' descriptions carry the policy (needs a working sandbox here)",
    async () => {
      const cwd = await temp(tmpdir(), "cwd");
      const outside = await temp(outsideBase, "outside");
      const secret = join(outside, "secret.txt");
      await writeFile(secret, "top secret\n");
      const { results, tools, outcome } = await run(
        server({ cwd, sandbox: { hidden: [secret], readable: [checkout] } }),
        cwd,
        [write(join(cwd, "inside.txt"), "ok"), write(join(outside, "outside.txt")), read(secret)],
      );
      expect(outcome.reason).toEqual({ kind: "completed" });
      expect(results.map((r) => textOf(r))).toEqual([`wrote ${join(cwd, "inside.txt")}`, "EROFS", "EACCES"]);
      expect(await readFile(join(cwd, "inside.txt"), "utf8")).toBe("ok");
      expect(existsSync(join(outside, "outside.txt"))).toBe(false);
      const description = tools.find((t) => t.name === "mcp__box__write")!.description!;
      expect(description).toContain(
        `Write text to a file.\n\nSandboxed (workspace-write): the MCP server box may write only under ${cwd} (the workspace)`,
      );
      expect(description).toContain("its processes end with it");
    },
  );

  test("where the sandbox cannot start, the server is not started and every turn fails naming it", async () => {
    const cwd = await temp(tmpdir(), "cwd");
    const previous = process.env.KEELSON_BWRAP;
    process.env.KEELSON_BWRAP = "/nonexistent/keelson-test/bwrap";
    try {
      const { outcome, results } = await run(server({ sandbox: "workspace-write" }), cwd, [
        write(join(cwd, "never.txt")),
      ]);
      expect(outcome.reason).toMatchObject({ kind: "error", code: "connect-failed" });
      expect((outcome.reason as { message: string }).message).toMatch(
        /MCP server "box" \(stdio .*\) could not be started or reached: the sandbox cannot start here: bubblewrap is not installed/,
      );
      expect(results).toEqual([]);
      expect(existsSync(join(cwd, "never.txt"))).toBe(false);
    } finally {
      if (previous === undefined) delete process.env.KEELSON_BWRAP;
      else process.env.KEELSON_BWRAP = previous;
    }
  });

  test("without `sandbox` the server runs unconfined, as before: it writes outside its cwd", async () => {
    const cwd = await temp(tmpdir(), "cwd");
    const outside = await temp(outsideBase, "outside");
    const { results, tools } = await run(server({ cwd }), cwd, [write(join(outside, "outside.txt"))]);
    expect(textOf(results[0]!)).toBe(`wrote ${join(outside, "outside.txt")}`);
    expect(tools.find((t) => t.name === "mcp__box__write")!.description).toBe("Write text to a file.");
  });

  test("bad sandbox options are invalid-config naming the key; bwrap is not taken from a config", () => {
    const bad = (sandbox: unknown): unknown => {
      try {
        checkServers({ box: { command: "node", sandbox } }, "mcp.json");
      } catch (error) {
        return error;
      }
    };
    for (const [sandbox, message] of [
      ["all", /mcp\.json: servers\.box\.sandbox must be one of workspace-write, read-only, off \(got "all"\)/],
      [{ network: "yes" }, /mcp\.json: servers\.box\.sandbox\.network must be "on" or "off"/],
      [{ bwrap: "./evil" }, /mcp\.json: servers\.box\.sandbox\.bwrap is not accepted for an MCP server/],
    ] as const) {
      const error = bad(sandbox);
      expect(error).toBeInstanceOf(McpError);
      expect((error as McpError).code).toBe("invalid-config");
      expect((error as Error).message).toMatch(message);
    }
  });
});
