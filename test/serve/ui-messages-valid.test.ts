// What `uiMessagesFromLog` builds passes the AI SDK's own `validateUIMessages` (the schema an AI
// SDK server route checks a page's messages with), at each point of the flows a page reloads in:
// tool input and execution errors, reasoning, approvals pending / approved with a note / denied,
// an ask_user question pending and answered, a question asked while a call runs, a call that
// asks once approved (its waiting part carries no approval: the schema allows none there), a
// turn cancelled in its first step.
import { validateUIMessages } from "ai";
import { describe, expect, test } from "vitest";
import { z } from "zod";
import { ScriptedProvider } from "../../src/llm/core.js";
import { type Agent, createAgent } from "../../src/loop/index.js";
import { uiMessagesFromLog } from "../../src/serve/index.js";
import { defineTool } from "../../src/tools/index.js";
import { askingTool, deployTool, pausingAgent, shipTool } from "../support/approval-tools.js";

/** The agent's reloaded messages, as the AI SDK validates them (its error names the part that fails). */
async function valid(agent: Agent): Promise<number> {
  const messages = uiMessagesFromLog(agent.session);
  await validateUIMessages({ messages });
  return messages.length;
}

const agentOf = (
  steps: ConstructorParameters<typeof ScriptedProvider>[0],
  tools: NonNullable<Parameters<typeof createAgent>[0]["tools"]>,
) => createAgent({ provider: new ScriptedProvider(steps, { fallback: { text: "done" } }), model: "m", tools });

describe("uiMessagesFromLog's messages pass the AI SDK's validateUIMessages", () => {
  test("tool input and execution errors, reasoning, text", async () => {
    const strict = defineTool({
      name: "strict",
      description: "s",
      input: z.object({ n: z.number() }),
      execute: () => "ok",
    });
    const boom = defineTool({
      name: "boom",
      description: "b",
      input: z.object({}),
      execute: () => {
        throw new Error("nope");
      },
    });
    const agent = agentOf(
      [
        {
          text: "t",
          reasoning: "r",
          toolCalls: [
            { name: "strict", arguments: { n: "x" } },
            { name: "boom" },
            { name: "strict", arguments: { n: 1 } },
          ],
        },
      ],
      [strict, boom],
    );
    await agent.send("go");
    expect(await valid(agent)).toBe(2);
  });

  test("approvals and an ask_user question, at each answer", async () => {
    const agent = pausingAgent([]);
    await agent.send("go");
    expect(await valid(agent)).toBe(2);
    const [staging, prod] = agent.pendingApprovals();
    await agent.decide(staging!.callId, { approve: true, note: "fine" });
    await valid(agent);
    await agent.decide(prod!.callId, { approve: false, note: "not prod" });
    await valid(agent);
    await agent.respond(agent.pendingInputs()[0]!.id, { value: "eu" });
    expect(await valid(agent)).toBe(2);
  });

  test("a question asked while a call runs, and a call that asks once approved", async () => {
    const asking = agentOf(
      [{ toolCalls: [{ name: "region" }, { name: "deploy", arguments: { target: "x" } }] }],
      [askingTool(), deployTool([])],
    );
    await asking.send("go");
    await valid(asking);
    await asking.respond(asking.pendingInputs()[0]!.id, { value: "eu" });
    await valid(asking);
    const shipping = agentOf([{ toolCalls: [{ name: "ship", arguments: { what: "v2" } }] }], [shipTool()]);
    await shipping.send("go");
    await shipping.decide(shipping.pendingApprovals()[0]!.callId, { approve: true });
    await valid(shipping); // approved, asking
    await shipping.respond(shipping.pendingInputs()[0]!.id, { value: "eu" });
    await valid(shipping);
  });

  test("a turn cancelled in its first step", async () => {
    const agent = agentOf([{ text: "hi" }], []);
    for await (const event of agent.stream("x")) if (event.type === "step-start") agent.cancel("stop");
    await valid(agent);
  });
});
