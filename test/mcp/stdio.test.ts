// mcpTools over a spawned stdio server (test/mcp/fixtures/stdio-server.mjs, plain node): the
// child runs while the agent does and is gone after dispose; a crash mid-call is an error result
// and the turn goes on; a server that never answers initialize is a clear error in bounded time;
// a command that cannot start names the server — and no env value appears in any message. The
// transport itself: once it closes after an over-size line, a late answer settles nothing.
import { resolve } from "node:path";
import { describe, expect, test } from "vitest";
import { ScriptedProvider, type ScriptedStep } from "../../src/llm/index.js";
import { createAgent } from "../../src/loop/index.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { type McpServerConfig, type McpToolsOptions, mcpServers, mcpTools } from "../../src/mcp/index.js";
import { StdioTransport } from "../../src/mcp/stdio-transport.js";
import { alive, childrenRunning, eventually, FIXTURES, stdioServer, textOf, toolResults } from "./support.js";

function agentWith(
  server: McpServerConfig,
  script: readonly ScriptedStep[] = [],
  extra: Partial<McpToolsOptions> = {},
) {
  const provider = new ScriptedProvider(script, { fallback: { text: "done" } });
  const plugin = mcpTools({ servers: { fx: server }, permissions: { mode: "allow" }, ...extra });
  const agent = createAgent({ provider, model: "scripted:test", plugins: [plugin] });
  return { agent, provider, plugin };
}

describe("stdio servers", () => {
  test("the spawned child serves the tools while the agent lives and is gone after dispose", async () => {
    const started = performance.now();
    const { agent, plugin } = agentWith(stdioServer(), [
      { toolCalls: [{ name: "mcp__fx__pid", arguments: {} }] },
      { toolCalls: [{ name: "mcp__fx__echo", arguments: { text: "over stdio" } }] },
    ]);
    const [info] = await plugin.ready(agent);
    const readyMs = performance.now() - started;
    expect(info).toMatchObject({ name: "fx", transport: "stdio", connected: true });
    const pid = info!.pid!;
    expect(alive(pid)).toBe(true);
    expect(await agent.send("go")).toMatchObject({ reason: { kind: "completed" } });
    const [pidResult, echo] = toolResults(agent.session.events);
    expect(Number(textOf(pidResult!))).toBe(pid);
    expect(textOf(echo!)).toBe("echo: over stdio");
    console.log(`stdio MCP server: spawn + initialize + tools/list ${readyMs.toFixed(0)} ms`);
    await agent.dispose();
    expect(await eventually(() => !alive(pid))).toBe(true);
    expect(plugin.servers(agent)[0]!.connected).toBe(false);
  });

  test("a server crashing mid-call gives that call an error result; it is started again and the next call works", async () => {
    const notices: string[] = [];
    const { agent, provider } = agentWith(
      stdioServer(),
      [
        { toolCalls: [{ name: "mcp__fx__pid", arguments: {} }] },
        { toolCalls: [{ name: "mcp__fx__crash", arguments: {} }] },
        { toolCalls: [{ name: "mcp__fx__pid", arguments: {} }] },
      ],
      { onNotice: (t) => notices.push(t) },
    );
    const outcome = await agent.send("go");
    expect(outcome.reason).toEqual({ kind: "completed" });
    const [before, crash, after] = toolResults(agent.session.events);
    expect(crash).toMatchObject({ isError: true, error: "threw" });
    expect(textOf(crash!)).toMatch(/MCP server "fx" \(stdio .*node.*\) (closed the connection|is not connected)/);
    expect(after).toMatchObject({ isError: false });
    expect(textOf(after!)).not.toBe(textOf(before!)); // a new child
    expect(notices.join("\n")).toMatch(/closed the connection.*; it is started again for the next call/);
    expect(provider.requests).toHaveLength(4);
    await agent.dispose();
  });

  test("a server that never answers initialize is a clear error naming it, in bounded time", async () => {
    const secret = "s3cr3t-value-never-shown";
    const { agent, plugin, provider } = agentWith(
      { command: process.execPath, args: [resolve(FIXTURES, "silent-server.mjs")], env: { API_TOKEN: secret } },
      [],
      { initTimeoutMs: 400 },
    );
    const started = performance.now();
    const failure = await plugin.ready(agent).then(
      () => undefined,
      (e: unknown) => e as Error & { code: string },
    );
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(failure).toMatchObject({ code: "init-timeout" });
    expect(failure!.message).toMatch(/^MCP server "fx" \(stdio .*\) did not answer initialize within 400 ms/);
    const outcome = await agent.send("go");
    expect(outcome.reason).toMatchObject({ kind: "error", code: "init-timeout" });
    expect(JSON.stringify(agent.session.events)).not.toContain(secret);
    expect(failure!.message).not.toContain(secret);
    expect(provider.requests).toHaveLength(0);
    await agent.dispose();
  });

  test("a command that cannot be started names the server", async () => {
    const { agent, plugin } = agentWith({ command: "/nonexistent/keelson-mcp-server" });
    await expect(plugin.ready(agent)).rejects.toMatchObject({
      code: "connect-failed",
      message: expect.stringMatching(
        /^MCP server "fx" \(stdio \/nonexistent\/keelson-mcp-server\) could not be started/,
      ),
    });
    await agent.dispose();
  });

  test("mcpServers lists a server that could not start by its name, from the McpError's server field", async () => {
    const { agent } = agentWith({ command: "/nonexistent/keelson-mcp-server" });
    const [status] = await mcpServers(agent);
    expect(status).toMatchObject({ name: "fx", error: { code: "connect-failed", server: "fx" } });
    await agent.dispose();
  });

  test("a child still starting when the agent is disposed is ended too", async () => {
    const { agent, plugin } = agentWith(stdioServer());
    await agent.dispose(); // before the server answered initialize
    await plugin.close(agent);
    expect(plugin.servers(agent)).toEqual([]);
    expect(await eventually(() => childrenRunning("stdio-server.mjs").length === 0)).toBe(true);
  });
});

test("after an over-size line it cannot attribute, the transport reads nothing more: a late answer settles no call", async () => {
  // The child writes an over-size notification, then — only once its stdin ends, i.e. after the
  // transport has begun to close — a well-formed answer to request 1, in a separate write.
  const child = [
    'process.stdout.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { data: "z".repeat(5000) } }) + "\\n");',
    'process.stdin.resume().on("end", () => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: 1, result: {} }) + "\\n", () => process.exit(0)));',
  ].join("\n");
  const messages: unknown[] = [];
  const errors: string[] = [];
  const transport = new StdioTransport({
    command: process.execPath,
    args: ["-e", child],
    env: { PATH: process.env.PATH ?? "" },
    maxMessageBytes: 1000,
    parse: (line) => JSON.parse(line) as JSONRPCMessage,
    serialize: (message) => `${JSON.stringify(message)}\n`,
    onStderr: () => {},
  });
  transport.onmessage = (message) => messages.push(message);
  transport.onerror = (error) => errors.push(error.message);
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve;
  });
  await transport.start();
  await closed; // the over-size line closed it: stdin ended, the child answered and exited
  expect(errors).toEqual([
    expect.stringMatching(/^the answer was too large \(\d+ bytes > 1000, .*\) and was dropped$/),
  ]);
  expect(messages).toEqual([]);
  await transport.close();
});
