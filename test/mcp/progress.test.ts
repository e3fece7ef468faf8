// Progress (#25): an MCP call carries a progress token; each `notifications/progress` is a live
// `tool-progress` stream event (with the log's callId, never logged) and restarts the call's
// timeout, so a call that keeps reporting outlives its timeout while a silent one would not.
import { describe, expect, test } from "vitest";
import { ScriptedProvider } from "../../src/llm/index.js";
import { createAgent, type TurnEvent } from "../../src/loop/index.js";
import { mcpTools } from "../../src/mcp/index.js";
import { verifyLog } from "../../src/reconstruct/index.js";
import { inProcessServer, textOf, toolResults } from "./support.js";

function agentCalling(args: { steps: number; ms: number }, timeoutMs: number) {
  const provider = new ScriptedProvider([{ toolCalls: [{ name: "mcp__fx__progress", arguments: args }] }], {
    fallback: { text: "done" },
  });
  return createAgent({
    provider,
    model: "scripted:test",
    plugins: [mcpTools({ servers: { fx: inProcessServer(["progress"]) }, permissions: { mode: "allow" }, timeoutMs })],
  });
}

describe("MCP progress", () => {
  test("reports are live tool-progress events, and each restarts the call's timeout", async () => {
    // 4 reports 500 ms apart: 2 s in all, past the 1.5 s timeout, never 1.5 s silent (a 3×
    // margin per gap, so a loaded box's late timer does not fail it).
    const agent = agentCalling({ steps: 4, ms: 500 }, 1_500);
    const events: TurnEvent[] = [];
    const stream = agent.stream("go");
    for await (const event of stream) events.push(event);
    expect((await stream.outcome).reason).toEqual({ kind: "completed" });
    const [result] = toolResults(agent.session.events);
    expect(textOf(result!)).toBe("done after 4 steps (token sent)");
    const progress = events.filter((e) => e.type === "tool-progress");
    expect(progress.map((e) => [e.progress, e.total, e.message])).toEqual([1, 2, 3, 4].map((i) => [i, 4, `step ${i}`]));
    expect(progress.every((e) => e.callId === result!.callId)).toBe(true);
    expect(JSON.stringify(agent.session.events)).not.toContain("step 1");
    expect(verifyLog(agent.session.events).ok).toBe(true);
    await agent.dispose();
  });

  test("a call silent for longer than its timeout still times out", async () => {
    const agent = agentCalling({ steps: 1, ms: 600 }, 200);
    expect((await agent.send("go")).reason).toEqual({ kind: "completed" });
    expect(toolResults(agent.session.events)[0]).toMatchObject({ isError: true, error: "timeout" });
    await agent.dispose();
  });
});
