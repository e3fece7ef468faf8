// Misbehaving MCP servers (issue #20, F9–F13), real servers built with the SDK
// (fixtures/hostile-server.mjs): a crash that prints a secret on stderr, an endless or stalled
// tools/list, an 8 MB image, a >10 MiB answer over stdio, a flood of tools/list_changed.
import { resolve } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { ScriptedProvider, type ScriptedStep } from "../../src/llm/index.js";
import { createAgent } from "../../src/loop/index.js";
import { type McpServerConfig, type McpToolsOptions, mcpTools } from "../../src/mcp/index.js";
import { createHostileServer } from "./fixtures/hostile-server.mjs";
import { alive, childrenRunning, eventually, FIXTURES, textOf, toolResults } from "./support.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";

const HOSTILE = resolve(FIXTURES, "hostile-server.mjs");

// A test that fails before closing its agent must not leave its server running (by pid: only
// this process's own children).
afterEach(() => {
  for (const pid of childrenRunning("hostile-server.mjs")) process.kill(pid, "SIGKILL");
});

function hostileStdio(list = "normal", extra: string[] = [], env?: Record<string, string>): McpServerConfig {
  return { command: process.execPath, args: [HOSTILE, list, ...extra], ...(env === undefined ? {} : { env }) };
}

function hostileInProcess(list: "normal" | "endless" | "stall" = "normal"): McpServerConfig {
  return {
    transport: async () => {
      const [client, server] = InMemoryTransport.createLinkedPair();
      await createHostileServer({ list }).connect(server);
      return client;
    },
  };
}

function agentWith(
  server: McpServerConfig,
  script: readonly ScriptedStep[] = [],
  extra: Partial<McpToolsOptions> = {},
) {
  const notices: string[] = [];
  const provider = new ScriptedProvider(script, { fallback: { text: "done" } });
  const plugin = mcpTools({
    servers: { hx: server },
    permissions: { mode: "allow" },
    onNotice: (text) => notices.push(text),
    ...extra,
  });
  const agent = createAgent({ provider, model: "scripted:test", plugins: [plugin] });
  return { agent, provider, plugin, notices };
}

describe("F9: a crashing server's stderr", () => {
  const SECRET = "tok-9f8e7d6c5b4a-never-shown";

  test("is redacted in the notice and never reaches the tool result, the log or the model", async () => {
    const { agent, provider, notices } = agentWith(hostileStdio("normal", [], { SECRET_TOKEN: SECRET }), [
      { toolCalls: [{ name: "mcp__hx__crash_secret", arguments: {} }] },
    ]);
    expect((await agent.send("go")).reason).toEqual({ kind: "completed" });
    const [crash] = toolResults(agent.session.events);
    expect(crash).toMatchObject({ isError: true });
    expect(textOf(crash!)).toMatch(
      /MCP server "hx" \(stdio .*\) (closed the connection during the call|is not connected)/,
    );
    expect(textOf(crash!)).not.toContain("stderr");
    expect(textOf(crash!)).not.toContain("cannot authenticate");
    expect(await eventually(() => notices.some((n) => n.includes("stderr ends")))).toBe(true);
    const notice = notices.find((n) => n.includes("stderr ends"))!;
    expect(notice).toContain("fatal: cannot authenticate with SECRET_TOKEN=[redacted]");
    for (const text of [...notices, JSON.stringify(agent.session.events), JSON.stringify(provider.requests)])
      expect(text).not.toContain(SECRET);
    await agent.dispose();
  });

  test("a server that fails to start: the connect error's stderr tail is redacted", async () => {
    const secret = "pw-0123456789abcdef";
    const { agent, plugin } = agentWith({
      command: process.execPath,
      args: [
        "-e",
        "process.stderr.write('boom: DB_PASSWORD=' + process.env.DB_PASSWORD + ' and ' + process.env.OTHER + '\\n'); process.exit(2)",
      ],
      env: { DB_PASSWORD: secret, OTHER: "plain-value-passed-in" },
    });
    const failure = (await plugin.ready(agent).catch((e: unknown) => e)) as Error;
    expect(failure.message).toContain("its stderr ends: boom: DB_PASSWORD=[redacted] and [redacted]");
    expect(failure.message).not.toContain(secret);
    expect(failure.message).not.toContain("plain-value-passed-in");
    const outcome = await agent.send("go");
    expect(JSON.stringify(outcome)).not.toContain(secret);
    expect(JSON.stringify(agent.session.events)).not.toContain(secret);
    await agent.dispose();
  });
});

describe("F10: tools/list is bounded", () => {
  test("a server whose every page has a nextCursor fails the listing after 100 pages, the turn ends at once", async () => {
    const { agent, plugin, provider } = agentWith(hostileStdio("endless"));
    const started = performance.now();
    await expect(plugin.ready(agent)).rejects.toMatchObject({
      code: "list-failed",
      message: expect.stringContaining("tools/list goes on past 100 pages (100 tools so far)"),
    });
    expect((await agent.send("go")).reason).toMatchObject({ kind: "error", code: "list-failed" });
    expect(provider.requests).toHaveLength(0);
    console.log(`endless nextCursor: listing refused after ${(performance.now() - started).toFixed(0)} ms`);
    await plugin.close(agent);
    expect(childrenRunning("hostile-server.mjs\0endless")).toEqual([]);
  });

  test("one deadline for the whole listing: a page that never comes fails it in initTimeoutMs", async () => {
    const { agent, plugin } = agentWith(hostileInProcess("stall"), [], { initTimeoutMs: 300 });
    await expect(plugin.ready(agent)).rejects.toMatchObject({
      code: "list-failed",
      message: expect.stringContaining("tools/list did not finish within 300 ms (1 pages, 7 tools so far)"),
    });
    await agent.dispose();
  });

  test("close() ends a child stuck mid-listing that ignores SIGTERM and the end of stdin", async () => {
    const { agent, plugin } = agentWith(hostileStdio("stall", ["ignore-term"]), [], { initTimeoutMs: 60_000 });
    const turn = agent.send("go");
    // initialized (so its SIGTERM handler is in place), then stuck on the second tools/list page
    expect(await eventually(() => plugin.servers(agent)[0]?.connected === true)).toBe(true);
    const pid = plugin.servers(agent)[0]!.pid!;
    agent.cancel("the user gave up");
    expect((await turn).reason).toMatchObject({ kind: "aborted" });
    const closing = performance.now();
    await agent.dispose();
    await plugin.close(agent);
    console.log(`close() of a child ignoring SIGTERM: ${(performance.now() - closing).toFixed(0)} ms (SIGKILL)`);
    expect(performance.now() - closing).toBeGreaterThan(2_500); // it took SIGKILL
    expect(alive(pid)).toBe(false);
  });
});

describe("F11: images are capped", () => {
  test("an 8 MB image becomes a note with its size and the limit; a small one is kept", async () => {
    const { agent } = agentWith(hostileInProcess(), [
      {
        toolCalls: [
          { name: "mcp__hx__image", arguments: { bytes: 8_000_000 } },
          { name: "mcp__hx__image", arguments: { bytes: 1_000 } },
        ],
      },
    ]);
    await agent.send("go");
    const [big, small] = toolResults(agent.session.events);
    expect(big!.content).toEqual([
      {
        type: "text",
        text: "[image (image/png, 8000000 bytes) not shown: over the 5242880-byte limit for the images of one tool result]",
      },
    ]);
    expect(small!.content[0]).toMatchObject({ type: "image", mediaType: "image/png" });
    expect(JSON.stringify(agent.session.events).length).toBeLessThan(100_000);
    await agent.dispose();
  });
});

describe("F12: an answer over the stdio limit", () => {
  test("is an error saying it was too large; the connection stays and later calls work", async () => {
    const { agent, plugin } = agentWith(hostileStdio(), [
      { toolCalls: [{ name: "mcp__hx__huge", arguments: { bytes: 11 * 1024 * 1024 } }] },
      { toolCalls: [{ name: "mcp__hx__echo", arguments: { text: "still here" } }] },
    ]);
    const [before] = await plugin.ready(agent);
    expect((await agent.send("go")).reason).toEqual({ kind: "completed" });
    const [huge, echo] = toolResults(agent.session.events);
    expect(huge).toMatchObject({ isError: true });
    expect(textOf(huge!)).toMatch(
      /^Tool mcp__hx__huge failed: MCP server "hx" \(stdio .*\): the answer was too large \(\d{8} bytes > 10485760, the limit of one stdio message\) and was dropped$/,
    );
    expect(Number(/\((\d+) bytes/.exec(textOf(huge!))![1])).toBeGreaterThan(11 * 1024 * 1024);
    expect(textOf(echo!)).toBe("echo: still here");
    expect(plugin.servers(agent)[0]).toMatchObject({ connected: true, pid: before!.pid });
    await agent.dispose();
  });

  test("an over-size line that is not an answer: the server is started again for the next call", async () => {
    const { agent, plugin, notices } = agentWith(hostileStdio(), [
      { toolCalls: [{ name: "mcp__hx__huge_notice", arguments: { bytes: 11 * 1024 * 1024 } }] },
      { toolCalls: [{ name: "mcp__hx__echo", arguments: { text: "again" } }] },
    ]);
    const [before] = await plugin.ready(agent);
    expect((await agent.send("go")).reason).toEqual({ kind: "completed" });
    const [notice, echo] = toolResults(agent.session.events);
    expect(textOf(notice!)).toMatch(
      /the answer was too large \(\d+ bytes > 10485760.*\) and was dropped; the server is started again/,
    );
    expect(textOf(echo!)).toBe("echo: again");
    const [after] = plugin.servers(agent);
    expect(after).toMatchObject({ connected: true });
    expect(after!.pid).not.toBe(before!.pid);
    expect(notices.join("\n")).toContain("it is started again for the next call");
    await agent.dispose();
    await plugin.close(agent);
    expect(alive(before!.pid!)).toBe(false);
    expect(alive(after!.pid!)).toBe(false);
  });
});

describe("F13: a tools/list_changed flood", () => {
  test("is coalesced into a few re-lists, and nothing is reported after close", async () => {
    const { agent, plugin, notices } = agentWith(hostileStdio(), [
      { toolCalls: [{ name: "mcp__hx__flood", arguments: { n: 2_000 } }] },
      { toolCalls: [{ name: "mcp__hx__stats", arguments: {} }] },
      { toolCalls: [{ name: "mcp__hx__flood", arguments: { n: 2_000 } }] },
    ]);
    expect((await agent.send("go")).reason).toEqual({ kind: "completed" });
    const [, stats] = toolResults(agent.session.events);
    const { lists } = JSON.parse(textOf(stats!)) as { lists: number };
    console.log(`2000 list_changed notifications → ${lists - 1} re-lists`);
    // One re-list runs at a time and any notifications meanwhile make one more: the count follows
    // round trips while the flood lasts, not the 2 000 notifications.
    expect(lists).toBeLessThanOrEqual(20);
    await agent.dispose(); // while the second flood's re-lists may still run
    await plugin.close(agent);
    expect(notices).toEqual([]);
  });
});
