// Reconnection (#25): a server whose connection closes by itself is connected again (its tools
// re-listed, a change logged through the header writer's delta path); a server that keeps
// crashing is given up after MAX_RECONNECTS in a row; an HTTP server that forgot the session
// (404) gets a new one and the call is sent again. And a result whose structuredContent repeats a
// text part's JSON is not doubled.
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { CallToolRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, test } from "vitest";
import { ScriptedProvider } from "../../src/llm/index.js";
import { createAgent } from "../../src/loop/index.js";
import { type McpTransportServer, mcpTools } from "../../src/mcp/index.js";
import { mcpToolOutput } from "../../src/mcp/result.js";
import { MAX_RECONNECTS } from "../../src/mcp/server-tools.js";
import { verifyLog } from "../../src/reconstruct/index.js";
import { startHttpServer } from "./fixtures/http-server.mjs";
import { createToolsServer } from "./fixtures/tools-server.mjs";
import { eventually, textOf, toolResults } from "./support.js";

/** An in-process server offering `tools[n]` on its n-th connection; `drop()` closes the current one. */
function restartingServer(tools: string[][]): McpTransportServer & { drop(): Promise<void>; connections: number } {
  let current: InMemoryTransport | undefined;
  const server = {
    connections: 0,
    transport: async () => {
      const [client, side] = InMemoryTransport.createLinkedPair();
      await createToolsServer({ tools: tools[Math.min(server.connections, tools.length - 1)]! }).connect(side);
      server.connections++;
      current = side;
      return client;
    },
    drop: async () => {
      await current?.close();
    },
  };
  return server;
}

describe("reconnect", () => {
  test("a dropped connection is made again; the new tool list is in the next request, logged as a header delta", async () => {
    const server = restartingServer([["echo"], ["echo", "pid"]]);
    const notices: string[] = [];
    const provider = new ScriptedProvider([{ text: "one" }, { toolCalls: [{ name: "mcp__fx__pid", arguments: {} }] }], {
      fallback: { text: "done" },
    });
    const agent = createAgent({
      provider,
      model: "scripted:test",
      plugins: [
        mcpTools({
          servers: { fx: { transport: server.transport } },
          permissions: { mode: "allow" },
          onNotice: (t) => notices.push(t),
        }),
      ],
    });
    await agent.send("first");
    await server.drop();
    expect(await eventually(() => server.connections === 2)).toBe(true);
    expect((await agent.send("second")).reason).toEqual({ kind: "completed" });
    expect(provider.requests[1]!.tools!.map((t) => t.name)).toEqual(["mcp__fx__echo", "mcp__fx__pid"]);
    expect(agent.session.events.filter((e) => e.type === "request/header-delta")).toHaveLength(1);
    expect(toolResults(agent.session.events)[0]).toMatchObject({ isError: false });
    expect(notices.join("\n")).toMatch(/closed the connection; it is connected again for the next call/);
    expect(verifyLog(agent.session.events).ok).toBe(true);
    await agent.dispose();
  });

  test(`a server that keeps crashing is given up after ${MAX_RECONNECTS} reconnections in a row`, async () => {
    // Every connection's server goes away in the middle of its first call (a crash).
    let connections = 0;
    const crashing: McpTransportServer = {
      transport: async () => {
        const [client, side] = InMemoryTransport.createLinkedPair();
        const server = createToolsServer({ tools: ["echo"] });
        server.setRequestHandler(CallToolRequestSchema, () => {
          setImmediate(() => void side.close());
          return new Promise<never>(() => undefined);
        });
        await server.connect(side);
        connections++;
        return client;
      },
    };
    const notices: string[] = [];
    const calls = Array.from({ length: MAX_RECONNECTS + 2 }, () => ({
      toolCalls: [{ name: "mcp__fx__echo", arguments: { text: "x" } }],
    }));
    const agent = createAgent({
      provider: new ScriptedProvider(calls, { fallback: { text: "done" } }),
      model: "scripted:test",
      plugins: [
        mcpTools({
          servers: { fx: crashing },
          permissions: { mode: "allow" },
          reconnectDelayMs: 1,
          onNotice: (t) => notices.push(t),
        }),
      ],
    });
    expect((await agent.send("go")).reason).toEqual({ kind: "completed" });
    const results = toolResults(agent.session.events);
    expect(results.every((r) => r.isError)).toBe(true);
    expect(textOf(results.at(-1)!)).toMatch(/is not connected/);
    expect(connections).toBe(1 + MAX_RECONNECTS);
    expect(notices.filter((n) => /connected again for the next call/.test(n))).toHaveLength(MAX_RECONNECTS);
    expect(notices.at(-1)).toMatch(new RegExp(`connected again ${MAX_RECONNECTS} times in a row`));
    await agent.dispose();
  });

  test("an HTTP server that forgot the session (404): a new session, the call sent again and answered", async () => {
    const server = await startHttpServer();
    try {
      const provider = new ScriptedProvider(
        [{ text: "one" }, { toolCalls: [{ name: "mcp__web__echo", arguments: { text: "again" } }] }],
        { fallback: { text: "done" } },
      );
      const agent = createAgent({
        provider,
        model: "scripted:test",
        plugins: [mcpTools({ servers: { web: { url: server.url } }, permissions: { mode: "allow" } })],
      });
      await agent.send("first");
      server.dropSessions();
      expect((await agent.send("second")).reason).toEqual({ kind: "completed" });
      expect(toolResults(agent.session.events).map((r) => [r.isError, textOf(r)])).toEqual([[false, "echo: again"]]);
      expect(server.sessions.size).toBe(1);
      await agent.dispose();
    } finally {
      await server.close();
    }
  });
});

describe("results", () => {
  test("structuredContent equal to a text part's JSON is not added again; a different one is", () => {
    const meta = { mcpServer: "s", mcpTool: "t" };
    const same = mcpToolOutput(
      { content: [{ type: "text", text: '{ "b": 2, "a": 1 }' }], structuredContent: { a: 1, b: 2 } },
      1000,
      meta,
    );
    expect(typeof same !== "string" && same.content).toEqual([{ type: "text", text: '{ "b": 2, "a": 1 }' }]);
    const other = mcpToolOutput(
      { content: [{ type: "text", text: "sum is 3" }], structuredContent: { sum: 3 } },
      1000,
      meta,
    );
    expect(typeof other !== "string" && other.content).toEqual([
      { type: "text", text: "sum is 3" },
      { type: "text", text: '{"sum":3}' },
    ]);
  });
});
