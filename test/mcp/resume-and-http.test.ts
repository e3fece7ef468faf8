// The resume policy (a logged MCP tool whose server is missing, or no longer offers it, is
// dropped: the resumed instance's logged header lacks it, a notice says so, a call to it is an
// unknown-tool result, and the log verifies), and a Streamable HTTP server on 127.0.0.1 (a random
// port) with the configured headers sent and never shown.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { foldRequestHeader } from "../../src/header/index.js";
import { ScriptedProvider } from "../../src/llm/index.js";
import { createAgent, resumeAgent } from "../../src/loop/index.js";
import { type McpServerConfig, mcpTools } from "../../src/mcp/index.js";
import { verifyLog } from "../../src/reconstruct/index.js";
import { JsonlSessionStore } from "../../src/store/index.js";
import { startHttpServer } from "./fixtures/http-server.mjs";
import { inProcessServer, textOf, toolResults } from "./support.js";

describe("resume policy: drop with a logged header change", () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "keelson-mcp-resume-"));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  async function storedSession(store: JsonlSessionStore): Promise<string> {
    const provider = new ScriptedProvider([{ text: "first" }]);
    const agent = createAgent({
      provider,
      model: "scripted:test",
      store,
      plugins: [mcpTools({ servers: { fx: inProcessServer(["echo", "add"]) }, permissions: { mode: "allow" } })],
    });
    await agent.send("one");
    await agent.dispose();
    return agent.session.id;
  }

  const cases: readonly [string, Record<string, McpServerConfig>, RegExp][] = [
    [
      "the server no longer offers the tool",
      { fx: inProcessServer(["add"]) },
      /the logged tool mcp__fx__echo is dropped: MCP server "fx" no longer offers it/,
    ],
    ["the server is not configured", {}, /the logged tool mcp__fx__echo is dropped: .*not configured/],
  ];

  test.each(cases)("%s", async (_, servers, notice) => {
    const store = new JsonlSessionStore({ root });
    const id = await storedSession(store);
    const notices: string[] = [];
    const provider = new ScriptedProvider([{ toolCalls: [{ name: "mcp__fx__echo", arguments: { text: "x" } }] }], {
      fallback: { text: "done" },
    });
    const resumed = await resumeAgent(store, id, {
      provider,
      model: "scripted:test",
      plugins: [mcpTools({ servers, permissions: { mode: "allow" }, onNotice: (t) => notices.push(t) })],
    });
    expect(await resumed.send("two")).toMatchObject({ reason: { kind: "completed" } });
    expect(notices.filter((n) => notice.test(n))).toHaveLength(1);
    expect(provider.requests[0]!.tools?.map((t) => t.name) ?? []).not.toContain("mcp__fx__echo");
    // the drop is a logged header change: the resume snapshot lacks the tool
    const snapshots = resumed.session.events.filter((e) => e.type === "request/header");
    expect(snapshots.map((e) => (e.data as { reason: string }).reason)).toEqual(["initial", "resume"]);
    expect(foldRequestHeader(resumed.session.events)?.tools?.map((t) => t.name) ?? []).not.toContain("mcp__fx__echo");
    expect(toolResults(resumed.session.events)[0]).toMatchObject({ isError: true, error: "unknown-tool" });
    expect(verifyLog(resumed.session.events).ok).toBe(true);
    await resumed.dispose();
  });
});

describe("Streamable HTTP servers", () => {
  test("tools over HTTP on 127.0.0.1, with the configured headers", async () => {
    const server = await startHttpServer({ requireHeader: ["authorization", "Bearer t0ken"] });
    try {
      const provider = new ScriptedProvider(
        [{ toolCalls: [{ name: "mcp__web__echo", arguments: { text: "http" } }] }],
        {
          fallback: { text: "done" },
        },
      );
      const plugin = mcpTools({
        servers: { web: { url: server.url, headers: { authorization: "Bearer t0ken" } } },
        permissions: { mode: "allow" },
      });
      const agent = createAgent({ provider, model: "scripted:test", plugins: [plugin] });
      const [info] = await plugin.ready(agent);
      expect(info).toMatchObject({ name: "web", transport: "http", pid: undefined, connected: true });
      expect(await agent.send("go")).toMatchObject({ reason: { kind: "completed" } });
      expect(textOf(toolResults(agent.session.events)[0]!)).toBe("echo: http");
      await agent.dispose();
      await plugin.close(agent);
    } finally {
      await server.close();
    }
  });

  test("a refused connection (401) is unauthorized, naming the server, its URL and the login; never the headers or the query", async () => {
    const server = await startHttpServer({ requireHeader: ["authorization", "Bearer right"] });
    try {
      const plugin = mcpTools({
        servers: { web: { url: `${server.url}?key=hidden-query`, headers: { authorization: "Bearer wrong-secret" } } },
      });
      const agent = createAgent({ provider: new ScriptedProvider([]), model: "scripted:test", plugins: [plugin] });
      const failure = (await plugin.ready(agent).catch((e: unknown) => e)) as Error & { code: string };
      expect(failure.code).toBe("unauthorized");
      expect(failure.message).toContain(`MCP server "web" (http ${server.url}) needs authorization (401 Unauthorized`);
      expect(failure.message).toContain("keelson mcp login web");
      expect(failure.message).not.toContain("wrong-secret");
      expect(failure.message).not.toContain("hidden-query");
      await agent.dispose();
    } finally {
      await server.close();
    }
  });
});
