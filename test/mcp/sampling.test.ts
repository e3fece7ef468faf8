// MCP sampling (#25, decision 0026): a real MCP server (the fixture, the SDK's Server over an
// in-process transport) calls `createMessage` during a tool call; the agent's provider (the
// emulator, in process) answers after a person's approval, and the request and its answer are
// logged as their own events — which the derived history, reconstruction and replay ignore.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { EmulatorProvider, type EmulatorRequest } from "../../src/emulator/index.js";
import type { Message } from "../../src/messages/index.js";
import { type Agent, type AgentOptions, createAgent, resumeAgent } from "../../src/loop/index.js";
import { type McpSamplingOptions, mcpTools } from "../../src/mcp/index.js";
import { reconstructRequests, verifyLog } from "../../src/reconstruct/index.js";
import { replayLog } from "../../src/replay/index.js";
import type { EventDataMap } from "../../src/session/index.js";
import { JsonlSessionStore } from "../../src/store/index.js";
import { sampled } from "./fixtures/tools-server.mjs";
import { inProcessServer, textOf, toolResults } from "./support.js";

const lastText = (messages: readonly Message[]): string =>
  messages
    .at(-1)!
    .content.map((b) => ("text" in b ? b.text : ""))
    .join("");

/**
 * The emulated model: the agent's requests (they carry tools) call `sample` once, then finish;
 * a sampling request (no tools) is answered with its last message's text, reversed.
 */
function emulator(args: Record<string, unknown> = { prompt: "the log" }): EmulatorProvider {
  return new EmulatorProvider({
    model: (request: EmulatorRequest) => {
      if (request.tools.length === 0) return { text: `summary of ${lastText(request.messages)}` };
      return request.messages.some((m) => m.role === "tool")
        ? { text: "done" }
        : { toolCalls: [{ name: "mcp__fx__sample", arguments: args }] };
    },
  });
}

const plugin = (sampling: McpSamplingOptions | boolean | undefined) =>
  mcpTools({
    servers: { fx: inProcessServer(["sample"]) },
    permissions: { mode: "allow" },
    ...(sampling === undefined ? {} : { sampling }),
  });

const of = <T extends keyof EventDataMap>(agent: Agent, type: T): EventDataMap[T][] =>
  agent.session.events.filter((e) => e.type === type).map((e) => e.data as EventDataMap[T]);

/** The requests the agent's loop sent (the provider also got the sampling requests, which carry no tools). */
const loopRequests = (provider: EmulatorProvider) => provider.requests.filter((r) => (r.tools ?? []).length > 0);

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "keelson-mcp-sampling-"));
  sampled.length = 0;
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("MCP sampling", () => {
  test("approved live: the provider answers the server, the request and answer are logged as their own events, history and rebuilt requests ignore them", async () => {
    const provider = emulator({ prompt: "the log", maxTokens: 5000 });
    const options: AgentOptions = {
      provider,
      model: "emu-model",
      plugins: [plugin({ maxTokens: 64 })],
      answerer: async () => ({ value: "approve", by: "ana" }),
    };
    const agent = createAgent(options);
    expect((await agent.send("go")).reason).toEqual({ kind: "completed" });

    expect(sampled).toEqual([{ text: "summary of the log", model: "emu-model", stopReason: "endTurn" }]);
    expect(textOf(toolResults(agent.session.events)[0]!)).toBe("sample got summary of the log");
    const [call] = of(agent, "tool/call");
    const [question] = of(agent, "input/request");
    expect(question).toMatchObject({ id: `${call!.callId}#ask-1`, callId: call!.callId, source: "mcp__fx__sample" });
    expect(question!.message).toContain('The MCP server "fx" (during mcp__fx__sample) asks the model emu-model');
    expect(question!.schema).toMatchObject({ enum: ["approve", "deny"] });
    expect(of(agent, "input/response")).toEqual([{ id: question!.id, value: "approve", by: "ana" }]);

    // The request as the provider received it (maxTokens capped at 64), and its answer.
    const sent = provider.requests.find((r) => (r.tools ?? []).length === 0)!;
    const [request] = of(agent, "mcp/sampling-request");
    expect(request).toEqual({
      id: `${call!.callId}#sample-1`,
      callId: call!.callId,
      server: "fx",
      request: {
        model: "emu-model",
        system: "You summarize.",
        messages: [{ role: "user", content: [{ type: "text", text: "the log" }] }],
        maxTokens: 64,
        temperature: 0.2,
        stop: ["STOP"],
      },
    });
    const { signal: _s, sessionId: _id, ...wire } = sent;
    expect(wire).toEqual(request!.request);
    const [response] = of(agent, "mcp/sampling-response");
    expect(response).toMatchObject({
      id: request!.id,
      callId: call!.callId,
      content: [{ type: "text", text: "summary of the log" }],
      stopReason: "stop",
    });
    expect(response!.usage?.outputTokens).toBeGreaterThan(0);

    // Not part of the session's derived history; every logged request rebuilds unchanged.
    const history = JSON.stringify(agent.session.deriveMessages());
    expect(history).not.toContain("You summarize.");
    expect(history.match(/summary of the log/g)).toHaveLength(1); // only inside the tool result
    expect(verifyLog(agent.session.events).ok).toBe(true);
    const rebuilt = reconstructRequests(agent.session.events).map((r) => r.request);
    expect(rebuilt).toEqual(loopRequests(provider).map(({ signal: _x, sessionId: _y, prefixLength: _p, ...r }) => r));

    // Replay answers the MCP call from the log (no server, no sampling) and rebuilds every request.
    const report = await replayLog(agent.session, options);
    expect(report.identical).toBe(true);
    expect(report.requests.logged).toBe(2);
    await agent.dispose();
  });

  test("the sampling.approve hook answers first (logged as its answer); false denies", async () => {
    const seen: unknown[] = [];
    for (const verdict of [true, false]) {
      sampled.length = 0;
      const agent = createAgent({
        provider: emulator(),
        model: "emu-model",
        plugins: [
          plugin({
            approve: ({ server, tool, request }) => {
              seen.push({ server, tool, maxTokens: request.maxTokens });
              return verdict;
            },
          }),
        ],
      });
      expect((await agent.send("go")).reason).toEqual({ kind: "completed" });
      expect(of(agent, "input/response")[0]).toMatchObject({
        value: verdict ? "approve" : "deny",
        by: "sampling.approve",
      });
      expect(of(agent, "mcp/sampling-request")).toHaveLength(verdict ? 1 : 0);
      expect(sampled).toEqual([
        verdict
          ? { text: "summary of the log", model: "emu-model", stopReason: "endTurn" }
          : { error: "MCP error -1: User rejected sampling request" },
      ]);
      expect(verifyLog(agent.session.events).ok).toBe(true);
      await agent.dispose();
    }
    expect(seen).toEqual([
      { server: "fx", tool: "mcp__fx__sample", maxTokens: 100 },
      { server: "fx", tool: "mcp__fx__sample", maxTokens: 100 },
    ]);
  });

  test("denied: the server gets the user-rejected error, the provider is not asked, the turn goes on", async () => {
    const provider = emulator();
    const agent = createAgent({
      provider,
      model: "emu-model",
      plugins: [plugin(true)],
      answerer: async () => ({ value: "deny", by: "ana" }),
    });
    expect((await agent.send("go")).reason).toEqual({ kind: "completed" });
    expect(sampled).toEqual([{ error: "MCP error -1: User rejected sampling request" }]);
    expect(provider.requests.filter((r) => (r.tools ?? []).length === 0)).toEqual([]);
    expect(of(agent, "mcp/sampling-request")).toEqual([]);
    expect(toolResults(agent.session.events)[0]).toMatchObject({ isError: true });
    expect(agent.session.events.at(-1)?.type).toBe("turn/end");
    expect(verifyLog(agent.session.events).ok).toBe(true);
    await agent.dispose();
  });

  test("not enabled: the capability is not declared and the server's request fails; nothing is asked or logged", async () => {
    const provider = emulator();
    const agent = createAgent({
      provider,
      model: "emu-model",
      plugins: [plugin(undefined)],
      answerer: async () => ({ value: "approve" }),
    });
    expect((await agent.send("go")).reason).toEqual({ kind: "completed" });
    // The fixture's low-level Server sends the request anyway; the client has no handler for it.
    expect(sampled).toEqual([{ error: "MCP error -32601: Method not found" }]);
    expect(of(agent, "input/request")).toEqual([]);
    expect(of(agent, "mcp/sampling-request")).toEqual([]);
    expect(provider.requests).toHaveLength(2);
    await agent.dispose();
  });

  test("a call may make at most maxRequestsPerCall requests: the next is refused before the provider", async () => {
    const provider = emulator({ prompt: "again", times: 3 });
    const agent = createAgent({
      provider,
      model: "emu-model",
      plugins: [plugin({ needsApproval: false, maxRequestsPerCall: 2 })],
    });
    expect((await agent.send("go")).reason).toEqual({ kind: "completed" });
    expect(sampled).toEqual([
      { text: "summary of again", model: "emu-model", stopReason: "endTurn" },
      { text: "summary of again", model: "emu-model", stopReason: "endTurn" },
      {
        error: "MCP error -32600: sampling refused: at most 2 sampling requests per tool call (this is request 3)",
      },
    ]);
    expect(provider.requests.filter((r) => (r.tools ?? []).length === 0)).toHaveLength(2);
    const [call] = of(agent, "tool/call");
    expect(of(agent, "mcp/sampling-request").map((r) => r.id)).toEqual([
      `${call!.callId}#sample-1`,
      `${call!.callId}#sample-2`,
    ]);
    expect(of(agent, "mcp/sampling-response")).toHaveLength(2);
    expect(of(agent, "input/request")).toEqual([]); // needsApproval: false
    expect(verifyLog(agent.session.events).ok).toBe(true);
    await agent.dispose();
  });

  test("nobody to approve: the call is suspended and the turn ends awaiting-input; respond in a resumed agent runs it again, approved from the log", async () => {
    const store = new JsonlSessionStore({ root });
    const first = createAgent({ provider: emulator(), model: "emu-model", store, plugins: [plugin(true)] });
    expect((await first.send("go")).reason).toEqual({ kind: "awaiting-input" });
    expect(sampled).toEqual([
      {
        error:
          "MCP error -1: User rejected sampling request: nobody approved it yet (the call is suspended until a person answers)",
      },
    ]);
    expect(toolResults(first.session.events)).toEqual([]);
    expect(of(first, "mcp/sampling-request")).toEqual([]);
    const [pending] = first.pendingInputs();
    expect(pending?.schema).toMatchObject({ enum: ["approve", "deny"] });
    await first.dispose();

    const provider = emulator();
    const resumed = await resumeAgent(store, first.session.id, {
      provider,
      model: "emu-model",
      plugins: [plugin(true)],
    });
    const outcome = await resumed.respond(pending!.id, { value: "approve", by: "ana" });
    expect(outcome.reason).toEqual({ kind: "completed" });
    expect(sampled.at(-1)).toEqual({ text: "summary of the log", model: "emu-model", stopReason: "endTurn" });
    expect(of(resumed, "input/request")).toHaveLength(1); // the re-run's question was answered from the log
    expect(of(resumed, "mcp/sampling-request")).toHaveLength(1);
    expect(of(resumed, "mcp/sampling-response")).toHaveLength(1);
    expect(toolResults(resumed.session.events).map(textOf)).toEqual(["sample got summary of the log"]);
    // The model saw the call's one result, and no sampling request.
    const [next] = loopRequests(provider);
    expect(next!.messages.filter((m) => m.role === "tool")).toHaveLength(1);
    expect(JSON.stringify(next!.messages)).not.toContain("You summarize.");
    expect(verifyLog(resumed.session.events).ok).toBe(true);
    await resumed.dispose();
    await store.close();
  });

  test("bad sampling options are refused at creation, naming the key", () => {
    expect(() => plugin({ maxRequestsPerCall: 0 })).toThrow(/sampling\.maxRequestsPerCall must be a positive integer/);
    expect(() => plugin({ maxTokens: 1.5 })).toThrow(/sampling\.maxTokens must be a positive integer/);
  });
});
