// Roots (#25): the servers learn the agent's workspace as their root (`roots/list`, a file:// URI);
// `setRoots` changes it and tells every connected server (`notifications/roots/list_changed`);
// `roots: false` offers none.
import { describe, expect, test } from "vitest";
import { ScriptedProvider } from "../../src/llm/index.js";
import { createAgent } from "../../src/loop/index.js";
import { mcpTools } from "../../src/mcp/index.js";
import { rootsChanges } from "./fixtures/tools-server.mjs";
import { eventually, inProcessServer, textOf, toolResults } from "./support.js";

const rootsCall = { toolCalls: [{ name: "mcp__fx__roots", arguments: {} }] };

describe("MCP roots", () => {
  test("the workspace is the root; setRoots changes it and the server is told", async () => {
    const plugin = mcpTools({ servers: { fx: inProcessServer(["roots"]) }, permissions: { mode: "allow" } });
    const agent = createAgent({
      provider: new ScriptedProvider([rootsCall, { text: "one" }, rootsCall], { fallback: { text: "done" } }),
      model: "scripted:test",
      cwd: "/work/space",
      plugins: [plugin],
    });
    await agent.send("first");
    expect(JSON.parse(textOf(toolResults(agent.session.events)[0]!))).toEqual([
      { uri: "file:///work/space", name: "space" },
    ]);
    const before = rootsChanges.count;
    await plugin.setRoots(agent, ["/work/other dir"]);
    expect(await eventually(() => rootsChanges.count === before + 1)).toBe(true);
    await agent.send("second");
    expect(JSON.parse(textOf(toolResults(agent.session.events)[1]!))).toEqual([
      { uri: "file:///work/other%20dir", name: "other dir" },
    ]);
    await agent.dispose();
  });

  test("roots: false offers none", async () => {
    const agent = createAgent({
      provider: new ScriptedProvider([rootsCall], { fallback: { text: "done" } }),
      model: "scripted:test",
      plugins: [
        mcpTools({ servers: { fx: inProcessServer(["roots"]) }, permissions: { mode: "allow" }, roots: false }),
      ],
    });
    await agent.send("go");
    expect(textOf(toolResults(agent.session.events)[0]!)).toBe("the client offers no roots");
    await agent.dispose();
  });
});
