// Approvals on the streams (#23 §1): agent.stream() carries `approval-request` and
// `approval-decision` with their log seqs and ends `awaiting-approval`; the UI message stream
// sends the AI SDK's `tool-approval-request` (and `tool-output-denied`), read back by the `ai`
// package; uiMessagesFromLog shows the part approval-requested, then denied or with its output.
import { describe, expect, test } from "vitest";
import { ScriptedProvider } from "../../src/llm/core.js";
import { createAgent, type TurnEvent } from "../../src/loop/index.js";
import { readUIMessageStream, type UIMessage } from "ai";
import { openTurnFrom, toUIMessageStream, uiMessagesFromLog } from "../../src/serve/index.js";
import { assemble, collect, deployTool, echo, expectValidChunks } from "./support.js";

const twoDeploys = () =>
  new ScriptedProvider(
    [
      {
        toolCalls: [
          { name: "deploy", arguments: { target: "staging" } },
          { name: "deploy", arguments: { target: "prod" } },
        ],
      },
    ],
    { fallback: { text: "all done" } },
  );

describe("approvals on agent.stream()", () => {
  test("the turn streams each approval request with its seq and ends awaiting-approval", async () => {
    const agent = createAgent({ provider: twoDeploys(), model: "m", tools: [deployTool] });
    const events: TurnEvent[] = [];
    for await (const event of agent.stream("ship it")) events.push(event);
    const requests = events.filter((e) => e.type === "approval-request");
    expect(requests.map((e) => [e.tool, e.arguments])).toEqual([
      ["deploy", '{"target":"staging"}'],
      ["deploy", '{"target":"prod"}'],
    ]);
    for (const e of requests) expect(agent.session.eventAt(e.seq)?.type).toBe("approval/request");
    const end = events.at(-1)!;
    expect(end).toMatchObject({ type: "turn-end", reason: { kind: "awaiting-approval" } });
    expect(end.type === "turn-end" && end.outcome?.reason).toEqual({ kind: "awaiting-approval" });
    const [staging, prod] = agent.pendingApprovals();
    await agent.decide(staging!.callId, { approve: true, by: "ana" });
    await agent.decide(prod!.callId, { approve: false, by: "ana", note: "not on a Friday" });
    const followed: TurnEvent[] = [];
    for await (const event of agent.follow({ from: end.type === "turn-end" ? end.seq : 0 })) followed.push(event);
    expect(followed.filter((e) => e.type === "approval-decision").map((e) => [e.approve, e.by])).toEqual([
      [true, "ana"],
      [false, "ana"],
    ]);
  });

  test("the UI stream asks for approval the AI SDK's way, and the log's UI messages follow the decision", async () => {
    const agent = createAgent({ provider: twoDeploys(), model: "m", tools: [deployTool] });
    const chunks = await collect(toUIMessageStream(agent.stream("ship it")));
    await expectValidChunks(chunks);
    const approvals = chunks.filter((c) => c.type === "tool-approval-request");
    expect(approvals).toHaveLength(2);
    expect(chunks.at(-1)).toEqual({ type: "finish", finishReason: "tool-calls" }); // as the AI SDK's own pause
    const { message, errors } = await assemble(chunks);
    expect(errors).toEqual([]);
    expect(message?.parts.filter((p) => p.type === "tool-deploy").map((p) => (p as { state: string }).state)).toEqual([
      "approval-requested",
      "approval-requested",
    ]);
    expect(message).toEqual(uiMessagesFromLog(agent.session)[1]);

    const [staging, prod] = agent.pendingApprovals();
    await agent.decide(staging!.callId, { approve: true });
    await agent.decide(prod!.callId, { approve: false, note: "no" });
    const parts = uiMessagesFromLog(agent.session)[1]!.parts.filter((p) => p.type === "tool-deploy");
    expect(parts).toEqual([
      {
        type: "tool-deploy",
        toolCallId: staging!.callId,
        state: "output-available",
        input: { target: "staging" },
        output: "deployed staging",
        approval: { id: staging!.callId, approved: true },
      },
      {
        type: "tool-deploy",
        toolCallId: prod!.callId,
        state: "output-denied",
        input: { target: "prod" },
        approval: { id: prod!.callId, approved: false, reason: "no" },
      },
    ]);
  });

  test("cancelling a paused turn closes its calls in the paused message, live as on reload", async () => {
    const provider = new ScriptedProvider([
      {
        toolCalls: [
          { name: "deploy", arguments: { target: "prod" } },
          { name: "echo", arguments: { text: "held" } },
        ],
      },
    ]);
    const agent = createAgent({ provider, model: "m", tools: [deployTool, echo] });
    const { message: paused } = await assemble(await collect(toUIMessageStream(agent.stream("ship it"))));
    const from = agent.session.length - 1; // the paused turn's end: a page that saw it follows from there
    agent.cancel("give up");
    const chunks = await collect(toUIMessageStream(agent.follow({ from })));
    await expectValidChunks(chunks);
    // No second message: the cancel's turn goes on in the paused one, as uiMessagesFromLog shows it.
    expect(chunks.find((c) => c.type === "start")).toEqual({ type: "start" });
    expect(chunks.some((c) => c.type === "start-step")).toBe(false);
    const stream = new ReadableStream({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(JSON.parse(JSON.stringify(chunk)));
        controller.close();
      },
    });
    let message: UIMessage | undefined;
    for await (const state of readUIMessageStream({ message: paused!, stream })) message = state;
    const reloaded = uiMessagesFromLog(agent.session);
    expect(reloaded.map((m) => m.id)).toEqual(["user-1", "turn-1"]);
    // The one difference: the AI SDK keeps the request's `approval: { id }` on the part it closes
    // (no chunk removes it); the log's message leaves it off, as the AI SDK's schema has it.
    const [, deploy] = message!.parts;
    expect(deploy).toMatchObject({ state: "output-error", approval: { id: "call_1_1_0" } });
    const { approval: _kept, ...closed } = deploy as { approval?: unknown };
    expect(JSON.parse(JSON.stringify({ ...message, parts: [message!.parts[0], closed, message!.parts[2]] }))).toEqual(
      reloaded[1],
    );
    expect(message!.parts.filter((p) => p.type.startsWith("tool-")).map((p) => (p as { state: string }).state)).toEqual(
      ["output-error", "output-error"],
    );
    // A page that reconnects (useChat's resume) is handed the paused turn's message whole.
    expect(openTurnFrom(agent.session)).toBeUndefined();
  });
});
