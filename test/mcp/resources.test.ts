// Resources as tools (#25): a server that declares `resources` gets mcp__<server>__list_resources
// and mcp__<server>__read_resource, registered and logged like its own tools; text contents reach
// the model as text, binary ones as a note; a server without the capability gets neither.
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { describe, expect, test } from "vitest";
import { ScriptedProvider } from "../../src/llm/index.js";
import { createAgent } from "../../src/loop/index.js";
import { type McpTransportServer, mcpTools } from "../../src/mcp/index.js";
import { verifyLog } from "../../src/reconstruct/index.js";
import { createToolsServer } from "./fixtures/tools-server.mjs";
import { inProcessServer, textOf, toolResults } from "./support.js";

const withResources: McpTransportServer = {
  transport: async () => {
    const [client, server] = InMemoryTransport.createLinkedPair();
    await createToolsServer({ tools: ["echo"], resources: true }).connect(server);
    return client;
  },
};

describe("MCP resources", () => {
  test("listed and read through two tools; the request header lists them like the server's own", async () => {
    const provider = new ScriptedProvider(
      [
        { toolCalls: [{ name: "mcp__fx__list_resources", arguments: {} }] },
        {
          toolCalls: [
            { name: "mcp__fx__read_resource", arguments: { uri: "notes://todo" } },
            { name: "mcp__fx__read_resource", arguments: { uri: "notes://logo" } },
            { name: "mcp__fx__read_resource", arguments: { uri: "notes://nope" } },
          ],
        },
      ],
      { fallback: { text: "done" } },
    );
    const agent = createAgent({
      provider,
      model: "scripted:test",
      plugins: [mcpTools({ servers: { fx: withResources }, permissions: { mode: "allow" } })],
    });
    expect((await agent.send("go")).reason).toEqual({ kind: "completed" });
    expect(provider.requests[0]!.tools!.map((t) => t.name)).toEqual([
      "mcp__fx__echo",
      "mcp__fx__list_resources",
      "mcp__fx__read_resource",
    ]);
    const [list, todo, logo, nope] = toolResults(agent.session.events);
    expect(textOf(list!)).toBe(
      "- todo <notes://todo> (text/plain) — What is left to do\n- logo <notes://logo> (image/png)",
    );
    expect(textOf(todo!)).toBe("[resource notes://todo]\n1. ship it");
    expect(textOf(logo!)).toBe("[binary resource notes://logo (image/png) not shown]");
    expect(nope).toMatchObject({ isError: true });
    expect(textOf(nope!)).toContain('MCP server "fx" (in-process transport): resources/read failed');
    expect(verifyLog(agent.session.events).ok).toBe(true);
    await agent.dispose();
  });

  test("a server without the resources capability gets no resource tools", async () => {
    const provider = new ScriptedProvider([{ text: "hi" }]);
    const agent = createAgent({
      provider,
      model: "scripted:test",
      plugins: [mcpTools({ servers: { fx: inProcessServer(["echo"]) }, permissions: { mode: "allow" } })],
    });
    await agent.send("go");
    expect(provider.requests[0]!.tools!.map((t) => t.name)).toEqual(["mcp__fx__echo"]);
    await agent.dispose();
  });
});
