// Prompts (#25): `mcpPrompts(agent)` lists the prompts of the agent's MCP servers, `mcpPrompt`
// gets one's text; chat's `/prompts` lists them and `/prompt <server>/<name> key=value` hands the
// prompt's text back to be sent as the user's message (a turn like typed text).
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { describe, expect, test } from "vitest";
import { runSlashCommand } from "../../src/cli/chat-commands.js";
import { ScriptedProvider } from "../../src/llm/index.js";
import { createAgent } from "../../src/loop/index.js";
import { type McpTransportServer, mcpPrompt, mcpPrompts, mcpTools } from "../../src/mcp/index.js";
import { createToolsServer } from "./fixtures/tools-server.mjs";

const withPrompts: McpTransportServer = {
  transport: async () => {
    const [client, server] = InMemoryTransport.createLinkedPair();
    await createToolsServer({ tools: ["echo"], prompts: true }).connect(server);
    return client;
  },
};

function agent() {
  return createAgent({
    provider: new ScriptedProvider([], { fallback: { text: "ok" } }),
    model: "scripted:test",
    plugins: [mcpTools({ servers: { fx: withPrompts }, permissions: { mode: "allow" } })],
  });
}

describe("MCP prompts", () => {
  test("listed and got through the library", async () => {
    const a = agent();
    expect(await mcpPrompts(a)).toEqual([
      {
        server: "fx",
        prompt: { name: "review", description: "Review a topic", arguments: [{ name: "topic", required: true }] },
      },
    ]);
    expect(await mcpPrompt(a, "fx", "review", { topic: "the docs" })).toBe("Please review the docs.");
    expect(((await mcpPrompt(a, "nope", "review").catch((e: unknown) => e)) as { code: string }).code).toBe(
      "not-loaded",
    );
    await a.dispose();
  });

  test("chat: /prompts lists them; /prompt sends one as the user's message", async () => {
    const a = agent();
    const said: string[] = [];
    const ctx = {
      agent: a,
      fileOf: () => "",
      say: (text: string) => said.push(text),
      footer: () => undefined,
      fork: async () => a,
    };
    expect(await runSlashCommand(ctx, "/prompts")).toBeUndefined();
    expect(said.at(-1)).toBe("  fx/review topic — Review a topic");
    expect(await runSlashCommand(ctx, "/prompt fx/review topic=docs")).toEqual({ send: "Please review docs." });
    expect(await runSlashCommand(ctx, "/prompt review")).toBeUndefined();
    expect(said.at(-1)).toMatch(/usage: \/prompt <server>\/<name>/);
    await a.dispose();
  });
});
