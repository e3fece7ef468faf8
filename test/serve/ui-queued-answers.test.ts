// Answers not logged yet on a reloaded page: `uiMessagesFromLog(log, { queuedAnswers })` shows a
// queued decision or answer (a fleet continuation no worker has run yet) on the part it answers
// exactly as the page that gave it has it — checked against @ai-sdk/react's own `Chat` after the
// same `addToolApprovalResponse` / `addToolOutput` calls — a child's request by its part id
// `<child>:<callId>`, and leaves alone every part the log has moved past. Malformed entries are
// `invalid-options` naming the entry. A replay of the paused message (a reconnect while the
// continuation waits for a worker: `toUIMessageStream(…, { queuedAnswers })`) sends those
// requests answered instead of asking them again.
import type { UIMessage } from "ai";
import { describe, expect, test } from "vitest";
import { type Agent, createAgent } from "../../src/loop/index.js";
import {
  openTurnFrom,
  type QueuedAnswer,
  ServeError,
  subagentLogs,
  subagentPartId,
  toUIMessageStream,
  type UIMessageChunk,
  uiMessagesFromLog,
} from "../../src/serve/index.js";
import { storeReader } from "../../src/store/index.js";
import { deployTool, pausingAgent as pausingAgentOf } from "../support/approval-tools.js";
import { delegateTool, scripted, useTempStore } from "../support/subagents.js";
import { agentServer, assemble, collect, expectValidChunks, pageOver } from "./support.js";

const ran: string[] = [];
const deploy = deployTool(ran);
const store = useTempStore("keelson-ui-queued-answers-");

const pausingAgent = (): Agent => pausingAgentOf(ran);

const plain = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;
const toolParts = (message: UIMessage | { parts: readonly unknown[] } | undefined): Record<string, unknown>[] =>
  plain((message?.parts ?? []) as Record<string, unknown>[]).filter((p) => String(p.type).startsWith("tool-"));

describe("queued answers on a reloaded page", () => {
  test("each shows on its part as the page that answered has it; the first per request; none once logged", async () => {
    const agent = pausingAgent();
    const page = pageOver(agentServer(agent), false);
    await page.chat.sendMessage({ text: "ship it" });
    const [staging, prod, question] = toolParts(page.chat.lastMessage).map((p) => String(p.toolCallId));
    await page.chat.addToolApprovalResponse({ id: staging!, approved: true });
    await page.chat.addToolApprovalResponse({ id: prod!, approved: false, reason: "not on a Friday" });
    await page.chat.addToolOutput({ tool: "ask_user", toolCallId: question!, output: "eu-west-1" });
    expect(page.seen).toEqual([200]); // not sent: the server queued them (as a fleet server does), nothing logged

    const queued: QueuedAnswer[] = [
      { callId: staging!, approve: true },
      { kind: "decision", callId: prod!, approve: false, note: "not on a Friday" },
      { kind: "response", id: question!, value: "eu-west-1" },
      { callId: staging!, approve: false, note: "a later one: refused when it runs" },
    ];
    const reloaded = uiMessagesFromLog(agent.session, { queuedAnswers: queued });
    expect(reloaded.at(-1)!.id).toBe(page.chat.lastMessage!.id);
    expect(toolParts(reloaded.at(-1))).toEqual(toolParts(page.chat.lastMessage));
    expect(toolParts(reloaded.at(-1)).map((p) => p.state)).toEqual([
      "approval-responded",
      "approval-responded",
      "output-available",
    ]);
    // Without them: the buttons again.
    expect(toolParts(uiMessagesFromLog(agent.session).at(-1)).map((p) => p.state)).toEqual([
      "approval-requested",
      "approval-requested",
      "input-available",
    ]);

    // The worker logs them: the log is the authority, the stale queue snapshot changes nothing.
    await agent.decide(staging!, { approve: true });
    await agent.decide(prod!, { approve: false, note: "not on a Friday" });
    await agent.respond(question!, { value: "eu-west-1" });
    await agent.whenIdle();
    expect(ran).toEqual(["staging"]);
    expect(uiMessagesFromLog(agent.session, { queuedAnswers: queued })).toEqual(uiMessagesFromLog(agent.session));
    expect(toolParts(uiMessagesFromLog(agent.session).at(-1)).map((p) => p.state)).toEqual([
      "output-available",
      "output-denied",
      "output-available",
    ]);
    await agent.dispose();
  });

  test("a child's request is matched by its part id (`session` names the child); the same call id of the parent's is not", async () => {
    ran.length = 0;
    const agent = createAgent({
      provider: scripted([{ toolCalls: [{ name: "research", arguments: { task: "ship it" } }] }], "shipped"),
      model: "scripted:parent",
      tools: [deploy, delegateTool("research", { name: "deploy", arguments: { target: "prod" } }, "child done")],
      store: store(),
    });
    const childId = `${agent.session.id}.call_1_1_0`;
    const partId = subagentPartId(childId, "call_1_1_0");
    // The stream sends the child's request (its part `<child>:<callId>`) answered as queued.
    const denied = { callId: "call_1_1_0", approve: false, session: childId };
    const chunks = await collect(toUIMessageStream(agent.stream("ship it"), { queuedAnswers: [denied] }));
    await expectValidChunks(chunks);
    // Only queued: nothing logged — the child's request and the parent's stand-in still wait.
    expect(agent.pendingApprovals().map((a) => a.callId)).toEqual(["call_1_1_0", "call_1_1_0"]);
    expect(toolParts((await assemble(chunks)).message).map((p) => [p.toolCallId, p.state])).toEqual([
      ["call_1_1_0", "input-available"],
      [partId, "output-denied"],
    ]);
    const subagents = await subagentLogs(agent.session, storeReader(store()));
    const states = (queuedAnswers: QueuedAnswer[]) =>
      toolParts(uiMessagesFromLog(agent.session, { subagents, queuedAnswers }).at(-1)).map((p) => [
        p.toolCallId,
        p.state,
        p.approval,
      ]);
    expect(states([{ callId: "call_1_1_0", approve: true }])).toEqual([
      ["call_1_1_0", "input-available", undefined],
      [partId, "approval-requested", { id: partId }],
    ]);
    expect(states([{ callId: "call_1_1_0", approve: true, session: childId, note: "go" }])).toEqual([
      ["call_1_1_0", "input-available", undefined],
      [partId, "approval-responded", { id: partId, approved: true, reason: "go" }],
    ]);
    await agent.dispose();
  });

  test("a replay of the paused message sends the requests they answer answered; the log's answers later change nothing", async () => {
    const agent = pausingAgent();
    expect((await agent.send("ship it")).reason.kind).toBe("awaiting-approval");
    const [staging, prod] = agent.pendingApprovals().map((a) => a.callId);
    const [question] = agent.pendingInputs().map((q) => q.id);
    const queued: QueuedAnswer[] = [
      { callId: staging!, approve: true },
      { callId: prod!, approve: false, note: "not on a Friday" },
      { kind: "response", id: question!, value: "eu-west-1" },
    ];
    const from = openTurnFrom(agent.session, { queued: true })!;
    const replay = async (queuedAnswers?: QueuedAnswer[]) => {
      const events = agent.follow({ from });
      const chunks = await collect(toUIMessageStream(events, queuedAnswers === undefined ? {} : { queuedAnswers }));
      await expectValidChunks(chunks);
      return { chunks, parts: toolParts((await assemble(chunks)).message) };
    };
    // Without them the replay asks again: buttons and a question form on the page.
    expect((await replay()).parts.map((p) => p.state)).toEqual([
      "approval-requested",
      "approval-requested",
      "input-available",
    ]);
    const { parts } = await replay(queued);
    expect(parts.map((p) => [p.toolCallId, p.state, p.approval, p.output])).toEqual([
      [staging, "input-available", { id: staging }, undefined], // approved: it runs when a worker takes it
      [prod, "output-denied", { id: prod }, undefined],
      [question, "output-available", undefined, "eu-west-1"],
    ]);

    // The worker logs them and runs the continuation: the same replay (a stale queue snapshot)
    // ends as the log does, with one denial.
    await agent.decide(staging!, { approve: true });
    await agent.decide(prod!, { approve: false, note: "not on a Friday" });
    await agent.respond(question!, { value: "eu-west-1" });
    await agent.whenIdle();
    const after = await replay(queued);
    expect(after.chunks.filter((c: UIMessageChunk) => c.type === "tool-output-denied")).toHaveLength(1);
    expect(after.parts.map((p) => [p.state, p.output])).toEqual([
      ["output-available", "deployed staging"],
      ["output-denied", undefined],
      ["output-available", "eu-west-1"],
    ]);
    // A snapshot the log contradicts (a denial queued, an approval logged): the log wins — the
    // call ran, and its part ends with its output.
    const contradicted = await replay([{ callId: staging!, approve: false }]);
    expect(contradicted.parts.map((p) => [p.state, p.output])[0]).toEqual(["output-available", "deployed staging"]);
    expect(() => toUIMessageStream(agent.follow({ from }), { queuedAnswers: [{ callId: 1 }] } as never)).toThrow(
      /queuedAnswers\[0\] \(a decision\) has callId 1/,
    );
    await agent.dispose();
  });

  test("a malformed entry is invalid-options naming it", () => {
    const agent = pausingAgent();
    const bad = (queuedAnswers: unknown): string => {
      try {
        uiMessagesFromLog(agent.session, { queuedAnswers } as never);
      } catch (error) {
        expect(error).toBeInstanceOf(ServeError);
        expect((error as ServeError).code).toBe("invalid-options");
        return (error as Error).message;
      }
      throw new Error("accepted");
    };
    expect(bad("approve all")).toMatch(/queuedAnswers must be an array/);
    expect(bad([{ callId: "a", approve: true }, null])).toMatch(/queuedAnswers\[1\] must be an object/);
    expect(bad([{ callId: 7, approve: true }])).toMatch(/queuedAnswers\[0\] \(a decision\) has callId 7/);
    expect(bad([{ callId: "a", approve: "yes" }])).toMatch(/approve "yes", not a boolean/);
    expect(bad([{ kind: "response", id: "q" }])).toMatch(/queuedAnswers\[0\] \(an answer\) has no value/);
    expect(bad([{ kind: "vote", callId: "a", approve: true }])).toMatch(/has kind "vote"/);
    expect(bad([{ callId: "a", approve: true, session: 3 }])).toMatch(/session is 3/);
  });
});
