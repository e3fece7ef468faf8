// mcpTools over a real SDK server in this process (InMemoryTransport): MCP tools become ordinary
// tools named mcp__<server>__<tool> with their JSON Schema as given, results map to tool results
// (text, image, structured content, isError, the output cap), a tools/list_changed mid-turn is a
// logged header delta at the next step, names are sanitized and collisions refused, and the
// permission policy of the built-in writes gates every MCP call.
import { describe, expect, test } from "vitest";
import type { PermissionAnswer, PermissionRequest } from "../../src/builtin-tools/index.js";
import { foldRequestHeader } from "../../src/header/index.js";
import { ScriptedProvider, type ScriptedStep } from "../../src/llm/index.js";
import { createAgent } from "../../src/loop/index.js";
import { type McpToolsOptions, mcpTools } from "../../src/mcp/index.js";
import { verifyLog } from "../../src/reconstruct/index.js";
import { fixedClock } from "../support/builders.js";
import { inProcessServer, textOf, toolResults } from "./support.js";

const ALLOW = { mode: "allow" } as const;

function agentWith(script: readonly ScriptedStep[], options: Partial<McpToolsOptions> | "default-permissions" = {}) {
  const provider = new ScriptedProvider(script, { fallback: { text: "done" } });
  const plugin = mcpTools(
    options === "default-permissions"
      ? { servers: { fx: inProcessServer() } }
      : { servers: { fx: inProcessServer() }, permissions: ALLOW, ...options },
  );
  const agent = createAgent({ provider, model: "scripted:test", plugins: [plugin], clock: fixedClock() });
  return { agent, provider, plugin };
}

describe("MCP tools as ordinary tools", () => {
  test("every server tool is registered as mcp__<server>__<tool> with its JSON Schema as given", async () => {
    const { agent, provider, plugin } = agentWith([{ text: "hi" }]);
    const [info] = await plugin.ready(agent);
    expect(info).toMatchObject({ name: "fx", transport: "in-process", connected: true });
    expect(info!.tools).toContain("mcp__fx__echo");
    await agent.send("go");
    const sent = provider.requests[0]!.tools!;
    const echo = sent.find((t) => t.name === "mcp__fx__echo");
    expect(echo).toEqual({
      name: "mcp__fx__echo",
      description: "Echo the text back.",
      inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    });
    // the definitions are in the logged header, like every tool's
    expect(foldRequestHeader(agent.session.events)?.tools?.map((t) => t.name)).toEqual(sent.map((t) => t.name));
    await agent.dispose();
  });

  test("results: text, structured content as JSON, images as image parts, isError as an error result", async () => {
    const { agent } = agentWith([
      {
        toolCalls: [
          { name: "mcp__fx__echo", arguments: { text: "hello" } },
          { name: "mcp__fx__add", arguments: { a: 2, b: 3 } },
          { name: "mcp__fx__image", arguments: {} },
          { name: "mcp__fx__fail", arguments: {} },
        ],
      },
    ]);
    expect(await agent.send("go")).toMatchObject({ reason: { kind: "completed" } });
    const [echo, add, image, fail] = toolResults(agent.session.events);
    expect(textOf(echo!)).toBe("echo: hello");
    expect(echo!.meta).toEqual({ mcpServer: "fx", mcpTool: "echo" });
    expect(JSON.parse(textOf(add!))).toEqual({ sum: 5 });
    expect(image!.content).toEqual([{ type: "image", mediaType: "image/png", data: expect.any(String) }]);
    expect(fail).toMatchObject({ isError: true });
    expect(textOf(fail!)).toBe("it failed on purpose");
    await agent.dispose();
  });

  test("a huge output goes through the output cap", async () => {
    const { agent } = agentWith([{ toolCalls: [{ name: "mcp__fx__big", arguments: { n: 50_000 } }] }], {
      outputCap: 1_000,
    });
    await agent.send("go");
    const text = textOf(toolResults(agent.session.events)[0]!);
    expect(text.startsWith("x".repeat(1_000))).toBe(true);
    expect(text).toContain("[… output truncated: 49000 more characters …]");
    await agent.dispose();
  });

  test("invalid arguments are refused against the server's schema before the call", async () => {
    const { agent } = agentWith([{ toolCalls: [{ name: "mcp__fx__echo", arguments: { text: 7 } }] }]);
    await agent.send("go");
    expect(toolResults(agent.session.events)[0]).toMatchObject({ isError: true, error: "invalid-arguments" });
    await agent.dispose();
  });

  test("a call past its timeout is an error result and the turn goes on", async () => {
    const { agent, provider } = agentWith([{ toolCalls: [{ name: "mcp__fx__slow", arguments: { ms: 60_000 } }] }], {
      timeoutMs: 200,
    });
    expect(await agent.send("go")).toMatchObject({ reason: { kind: "completed" } });
    expect(toolResults(agent.session.events)[0]).toMatchObject({ isError: true, error: "timeout" });
    expect(provider.requests).toHaveLength(2); // the model saw the timeout and answered
    await agent.dispose();
  });
});

describe("tools/list_changed", () => {
  const namesSent = (provider: ScriptedProvider) => provider.requests.map((r) => (r.tools ?? []).map((t) => t.name));

  test("a tool the server adds mid-turn is in the next step's request, logged as a header delta", async () => {
    // `zz_late` sorts after every other tool: the codec's tools arm appends, so this is a delta
    const { agent, provider } = agentWith([
      { toolCalls: [{ name: "mcp__fx__add_tool", arguments: { name: "zz_late" } }] },
      { toolCalls: [{ name: "mcp__fx__zz_late", arguments: { value: "v" } }] },
      { toolCalls: [{ name: "mcp__fx__remove_tool", arguments: { name: "zz_late" } }] },
    ]);
    expect(await agent.send("go")).toMatchObject({ reason: { kind: "completed" } });
    const names = namesSent(provider);
    expect(names[0]).not.toContain("mcp__fx__zz_late");
    expect(names[1]).toContain("mcp__fx__zz_late");
    expect(names[2]).toContain("mcp__fx__zz_late");
    expect(names[3]).not.toContain("mcp__fx__zz_late");
    expect(textOf(toolResults(agent.session.events)[1]!)).toBe('zz_late got {"value":"v"}');
    const headers = agent.session.events.filter((e) => e.type.startsWith("request/header"));
    expect(headers.map((e) => e.type)).toEqual(["request/header", "request/header-delta", "request/header-delta"]);
    expect(headers[1]!.data).toMatchObject({ tools: { added: [{ name: "mcp__fx__zz_late" }], removed: [] } });
    expect(headers[2]!.data).toMatchObject({ tools: { added: [], removed: ["mcp__fx__zz_late"] } });
    // the log's fold shows the tool between the two deltas, and not after
    const events = agent.session.events;
    const folded = foldRequestHeader(events.slice(0, events.indexOf(headers[2]!)));
    expect(folded?.tools?.map((t) => t.name)).toContain("mcp__fx__zz_late");
    expect(foldRequestHeader(events)?.tools?.map((t) => t.name)).not.toContain("mcp__fx__zz_late");
    expect(verifyLog(events).ok).toBe(true);
    await agent.dispose();
  });

  test("an added tool that sorts inside the list is logged as a fallback snapshot (the codec's delta appends)", async () => {
    const { agent, provider } = agentWith([
      { toolCalls: [{ name: "mcp__fx__add_tool", arguments: { name: "late" } }] },
    ]);
    await agent.send("go");
    expect(namesSent(provider)[1]).toContain("mcp__fx__late");
    const headers = agent.session.events.filter((e) => e.type.startsWith("request/header"));
    expect(headers.map((e) => [e.type, (e.data as { reason?: string }).reason])).toEqual([
      ["request/header", "initial"],
      ["request/header", "fallback"],
    ]);
    expect(verifyLog(agent.session.events).ok).toBe(true);
    await agent.dispose();
  });
});

describe("names", () => {
  test("names are sanitized to the registry's rule; long ones end in a hash", async () => {
    const long = "s".repeat(70);
    const provider = new ScriptedProvider([], { fallback: { text: "done" } });
    const plugin = mcpTools({
      servers: { "my.server": inProcessServer(["echo"]), [long]: inProcessServer(["echo"]) },
      permissions: ALLOW,
    });
    const agent = createAgent({ provider, model: "scripted:test", plugins: [plugin] });
    await plugin.ready(agent);
    const names = agent.tools.names();
    expect(names).toContain("mcp__my_server__echo");
    const hashed = names.find((n) => n.startsWith("mcp__sss"))!;
    expect(hashed).toMatch(/^mcp__s{50}_[0-9a-f]{8}$/);
    await agent.dispose();
  });

  test("two tools that map to one name are a clear error and the turn ends error", async () => {
    const provider = new ScriptedProvider([], { fallback: { text: "done" } });
    const plugin = mcpTools({
      servers: { "a.b": inProcessServer(["echo"]), a_b: inProcessServer(["echo"]) },
      permissions: ALLOW,
    });
    const agent = createAgent({ provider, model: "scripted:test", plugins: [plugin] });
    await expect(plugin.ready(agent)).rejects.toMatchObject({ code: "name-collision" });
    const outcome = await agent.send("go");
    expect(outcome.reason).toMatchObject({ kind: "error", code: "name-collision" });
    expect((outcome.reason as { message: string }).message).toMatch(/a\.b\/echo.*a_b\/echo.*mcp__a_b__echo/);
    expect(provider.requests).toHaveLength(0);
    await agent.dispose();
  });
});

describe("permissions (the built-in writes' gate)", () => {
  function asker(...answers: PermissionAnswer[]) {
    const asked: PermissionRequest[] = [];
    return {
      asked,
      ask: async (request: PermissionRequest) => {
        asked.push(request);
        return answers.shift() ?? "no";
      },
    };
  }
  const echoTwice = [
    { toolCalls: [{ name: "mcp__fx__echo", arguments: { text: "one" } }] },
    { toolCalls: [{ name: "mcp__fx__echo", arguments: { text: "two" } }] },
  ];

  test("by default every MCP call is denied, the reason naming the --allow flag", async () => {
    const { agent } = agentWith(echoTwice, "default-permissions");
    await agent.send("go");
    const [first] = toolResults(agent.session.events);
    expect(first).toMatchObject({ isError: true, error: "denied" });
    expect(textOf(first!)).toContain("--allow mcp__fx__echo");
    await agent.dispose();
  });

  test("ask: the person sees the tool and its arguments; always stops asking for that tool", async () => {
    const { ask, asked } = asker("always");
    const { agent } = agentWith(echoTwice, { permissions: { mode: "ask", ask } });
    await agent.send("go");
    expect(asked).toEqual([{ tool: "mcp__fx__echo", summary: '{"text":"one"}' }]);
    expect(toolResults(agent.session.events).map(textOf)).toEqual(["echo: one", "echo: two"]);
    await agent.dispose();
  });

  test("ask answered no denies; invisible characters in the arguments are escaped", async () => {
    const { ask, asked } = asker("no");
    const { agent } = agentWith([{ toolCalls: [{ name: "mcp__fx__echo", arguments: '{"text":"a\\u202eb"}' }] }], {
      permissions: { mode: "ask", ask },
    });
    await agent.send("go");
    expect(asked[0]!.summary).toBe('{"text":"a\\u{202e}b"}');
    expect(toolResults(agent.session.events)[0]).toMatchObject({ isError: true, error: "denied" });
    await agent.dispose();
  });

  test("allow may name a tool, a server (mcp__<server>) or every MCP tool (mcp)", async () => {
    for (const name of ["mcp__fx__echo", "mcp__fx", "mcp"]) {
      const { agent } = agentWith(echoTwice, { permissions: { mode: "deny", allow: new Set([name]) } });
      await agent.send("go");
      expect(toolResults(agent.session.events).map(textOf), name).toEqual(["echo: one", "echo: two"]);
      await agent.dispose();
    }
  });

  test("the gate covers tools a server adds later", async () => {
    const { ask, asked } = asker("yes", "no");
    const { agent } = agentWith(
      [
        { toolCalls: [{ name: "mcp__fx__add_tool", arguments: { name: "late" } }] },
        { toolCalls: [{ name: "mcp__fx__late", arguments: {} }] },
      ],
      { permissions: { mode: "ask", ask } },
    );
    await agent.send("go");
    expect(asked.map((a) => a.tool)).toEqual(["mcp__fx__add_tool", "mcp__fx__late"]);
    expect(toolResults(agent.session.events)[1]).toMatchObject({ isError: true, error: "denied" });
    await agent.dispose();
  });
});
