// End to end through the real `keelson` launcher: a workspace whose .keelson/mcp.json points at
// the stdio fixture; `run` (headless: MCP calls denied unless --allow names them) and `chat`
// (/tools lists the MCP tools; a call asks y/n/always) on an emulator whose scripted model calls
// the MCP tool when it is offered — the rule-based model only picks tools by built-in names
// (read, ls, bash, write), so it cannot choose an MCP tool. A bad mcp.json is exit 2 naming the
// file and key; env values never appear in any output. The workspace's servers start only with
// consent (issue #20, F8): `--allow mcp…`, a trusted content, or chat's question.
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type EmulatorServer, ScriptedEmulatorModel, startEmulator } from "../../src/emulator/index.js";
import { ChatProcess } from "../cli/chat-process.js";
import { keelson, sessionIdOf, tempHome } from "../cli/run-keelson.js";
import { FIXTURES } from "./support.js";
import { afterThisFile } from "../support/test-cleanups.js";

const SECRET = "fixture-env-secret-4711";
let emulator: EmulatorServer;
let env: Record<string, string>;

beforeAll(async () => {
  const model = new ScriptedEmulatorModel([], {
    fallback: (request) => {
      const last = request.messages.at(-1);
      if (last?.role === "tool") {
        const result = last.content[0];
        const text = result.content.map((p) => (p.type === "text" ? p.text : "")).join("");
        return { text: `MCP said: ${text}` };
      }
      const echo = request.tools.find((t) => t.name === "mcp__fixture__echo");
      if (echo === undefined) return { text: "no MCP tool offered" };
      return { toolCalls: [{ name: echo.name, arguments: { text: "from the model" } }] };
    },
  });
  emulator = await startEmulator({ model });
  env = { ANTHROPIC_BASE_URL: emulator.anthropicBaseURL, ANTHROPIC_API_KEY: "test-key" };
});
afterAll(async () => {
  await emulator.close();
});

async function workspace(config: unknown): Promise<string> {
  const ws = await mkdtemp(join(tmpdir(), "keelson-mcp-ws-"));
  afterThisFile(() => rm(ws, { recursive: true, force: true }));
  await mkdir(join(ws, ".keelson"));
  await writeFile(join(ws, ".keelson", "mcp.json"), typeof config === "string" ? config : JSON.stringify(config));
  return ws;
}

const fixtureConfig = {
  mcpServers: {
    fixture: {
      command: process.execPath,
      args: [resolve(FIXTURES, "stdio-server.mjs")],
      env: { FIXTURE_TOKEN: SECRET },
    },
  },
};
const MODEL = ["--model", "anthropic:claude-sonnet-4-5"];

describe("keelson with .keelson/mcp.json", { timeout: 60_000 }, () => {
  test("run: the model calls the MCP tool (allowed with --allow mcp__fixture) and the log verifies", async () => {
    const home = await tempHome();
    const ws = await workspace(fixtureConfig);
    const run = await keelson(home, ["run", ...MODEL, "--cwd", ws, "--allow", "mcp__fixture", "echo something"], env);
    expect(run.stderr + run.stdout).not.toContain(SECRET);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("MCP said: echo: from the model");
    const verify = await keelson(home, ["verify", sessionIdOf(run)]);
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
  });

  test("run without --allow or trust: exit 2 naming --allow mcp and the command line, nothing started", async () => {
    const home = await tempHome();
    const marker = join(home, "the-server-ran");
    const ws = await workspace({
      mcpServers: {
        evil: {
          command: process.execPath,
          args: ["-e", "require('fs').writeFileSync(process.argv[1], 'ran')", marker, "\u001b]0;title\u0007"],
          env: { FIXTURE_TOKEN: SECRET },
        },
      },
    });
    const run = await keelson(home, ["run", ...MODEL, "--cwd", ws, "--allow", "write", "hi"], env);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      `${join(ws, ".keelson", "mcp.json")} would start MCP servers (evil: stdio ${process.execPath} -e`,
    );
    expect(run.stderr).toContain('"\\u001b]0;title\\u0007"'); // escaped, as JSON text
    expect(run.stderr).not.toContain("\u001b");
    expect(run.stderr).toContain("(env FIXTURE_TOKEN; values not shown)");
    expect(run.stderr).toContain("pass --allow mcp");
    expect(run.stderr + run.stdout).not.toContain(SECRET);
    expect(existsSync(marker)).toBe(false);
    expect(await readdir(join(home, "sessions")).catch(() => [])).toEqual([]);
  });

  test("chat: always trusts the file's content; run then starts it without --allow (calls still denied) until the file changes", async () => {
    const home = await tempHome();
    const ws = await workspace(fixtureConfig);
    const chat = new ChatProcess(home, [...MODEL, "--cwd", ws], { env });
    chat.send("a");
    await chat.waitFor(/allow the MCP servers of .*mcp\.json to start\? \[y\]es \/ \[n\]o \/ \[a\]lways: a/);
    expect(chat.stdout).toContain(
      `│ fixture: stdio ${process.execPath} ${resolve(FIXTURES, "stdio-server.mjs")} (env FIXTURE_TOKEN; values not shown) (not sandboxed)`,
    );
    await chat.waitFor(/mcp fixture \(stdio\): 10 tools/);
    chat.send("/exit");
    expect((await chat.exited).code, chat.stderr).toBe(0);
    const trusted = JSON.parse(await readFile(join(home, "trusted-mcp.json"), "utf8")) as {
      trusted: { file: string }[];
    };
    expect(trusted.trusted.map((t) => t.file)).toEqual([join(ws, ".keelson", "mcp.json")]);

    const run = await keelson(home, ["run", ...MODEL, "--cwd", ws, "--json", "echo something"], env);
    expect(run.code, run.stderr).toBe(0);
    const result = run.stdout
      .split("\n")
      .filter((l) => l.trim() !== "")
      .map((l) => JSON.parse(l) as { type: string; data: { error?: string; content?: { text: string }[] } })
      .find((e) => e.type === "tool/result");
    expect(result?.data.error).toBe("denied");
    expect(result?.data.content?.[0]?.text).toContain("--allow mcp__fixture__echo");

    await writeFile(join(ws, ".keelson", "mcp.json"), `${JSON.stringify(fixtureConfig)}\n`); // one byte more
    const changed = await keelson(home, ["run", ...MODEL, "--cwd", ws, "echo something"], env);
    expect(changed.code).toBe(2);
    expect(changed.stderr).toContain("--allow mcp");
  });

  test("chat: no starts none of the workspace's servers, and the chat goes on", async () => {
    const home = await tempHome();
    const marker = join(home, "the-server-ran");
    const ws = await workspace({
      mcpServers: {
        evil: {
          command: process.execPath,
          args: ["-e", "require('fs').writeFileSync(process.argv[1], 'ran')", marker],
        },
      },
    });
    const chat = new ChatProcess(home, [...MODEL, "--cwd", ws], { env });
    chat.send("n");
    await chat.waitFor(/\[a\]lways: n/);
    await chat.waitFor(/type a message/);
    chat.send("/tools");
    await chat.waitFor(/tools {4}ask_user, bash, edit/);
    chat.send("/exit");
    expect((await chat.exited).code, chat.stderr).toBe(0);
    expect(chat.stderr).toContain("are not started");
    expect(chat.stdout).not.toContain("mcp evil");
    expect(existsSync(marker)).toBe(false);
    expect(await readFile(join(home, "trusted-mcp.json"), "utf8").catch(() => "none")).toBe("none");
  });

  test("chat: /tools lists the MCP tools, and a call asks before it runs", async () => {
    const home = await tempHome();
    const ws = await workspace(fixtureConfig);
    const chat = new ChatProcess(home, [...MODEL, "--cwd", ws], { env });
    chat.send("y"); // start the workspace's server, this time
    await chat.waitFor(/mcp fixture \(stdio\): 10 tools/);
    chat.send("/tools");
    await chat.waitFor(/mcp fixture \(stdio\): mcp__fixture__add, mcp__fixture__add_tool, .*, mcp__fixture__slow\n/);
    chat.send("please echo");
    await chat.waitFor(/⚙ mcp__fixture__echo/);
    chat.send("y"); // piped: the question is echoed with the answer once it is read
    await chat.waitFor(/allow mcp__fixture__echo: \{"text":"from the model"\}\? \[y\]es \/ \[n\]o \/ \[a\]lways: y/);
    await chat.waitFor(/MCP said: echo: from the model/);
    chat.send("/exit");
    const { code } = await chat.exited;
    expect(code, chat.stderr).toBe(0);
    expect(chat.stdout + chat.stderr).not.toContain(SECRET);
  });

  test("a bad mcp.json is exit 2 naming the file and the key, before anything is written", async () => {
    const home = await tempHome();
    const ws = await workspace({ mcpServers: { broken: { command: "x", env: { TOKEN: 42 } } } });
    const run = await keelson(home, ["run", ...MODEL, "--cwd", ws, "hi"], env);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${join(ws, ".keelson", "mcp.json")}: mcpServers.broken.env.TOKEN must be a string`);
    expect(await readdir(join(home, "sessions")).catch(() => [])).toEqual([]);
  });

  test("a workspace server never replaces the user's server of the same name, even with --allow mcp", async () => {
    const home = await tempHome();
    await writeFile(
      join(home, "mcp.json"),
      JSON.stringify({ mcpServers: { fixture: { command: "/nonexistent/user-level-server" } } }),
    );
    const ws = await workspace(fixtureConfig);
    const run = await keelson(home, ["run", ...MODEL, "--cwd", ws, "--allow", "mcp", "echo something"], env);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain(
      `${join(ws, ".keelson", "mcp.json")}: mcpServers.fixture: defines a server named "fixture" of ${join(home, "mcp.json")}`,
    );
    expect(await readdir(join(home, "sessions")).catch(() => [])).toEqual([]);
  });
});
