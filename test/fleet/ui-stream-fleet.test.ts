// The AI SDK's UI message stream over the fleet's followers (#22 §2 and §5 together): a page
// served from a process that runs no agent — its turns run on a worker, its events come from
// `fleetClient.stream(turnId)` / `streamSession(sessionId)` — reads the same message the log
// rebuilds (`uiMessagesFromLog` of the stored session), with the log's tool-call ids; and a
// session followed across a pause (`streamSession`) while its continuation is only queued shows
// the paused turn's one message, then carries on into it when a worker runs the continuation —
// and the AI SDK's own `Chat`, reloaded while that continuation is queued, resumes into it
// (`openTurnFrom(log, { queued })`), where it used to get a 204 and wait for the next reload.
import { Chat } from "@ai-sdk/react";
import { DefaultChatTransport, type UIMessage } from "ai";
import { describe, expect, test } from "vitest";
import { EmulatorProvider } from "../../src/emulator/index.js";
import type { AgentProfile } from "../../src/fleet/index.js";
import type { FleetClient } from "../../src/fleet/index.js";
import {
  openTurnFrom,
  toUIMessageStream,
  type UIMessageChunk,
  uiMessageStreamResponse,
  uiMessagesFromLog,
} from "../../src/serve/index.js";
import { assemble, collect, expectValidChunks, withoutAnswers } from "../serve/support.js";
import { deployTool } from "../support/approval-tools.js";
import { until } from "../support/until.js";
import { useFleetDatabase } from "./fleet-harness.js";

const database = useFleetDatabase();

const lastRole = (request: { readonly messages: readonly { readonly role: string }[] }) =>
  request.messages.at(-1)?.role;

const profiles: Record<string, AgentProfile> = {
  echoing: {
    provider: () =>
      new EmulatorProvider({
        model: (request) =>
          lastRole(request) === "tool"
            ? { text: "the tool said so" }
            : { text: "let me check", toolCalls: [{ name: "echo_tool", arguments: { say: "hi" } }] },
      }),
    model: "emulator:echoing",
    tools: [
      {
        name: "echo_tool",
        description: "says what it is told",
        input: { type: "object", properties: { say: { type: "string" } } },
        readOnly: true,
        execute: (args: { say?: string }) => `said ${args.say ?? ""}`,
      },
    ],
    options: { invariants: true, maxSteps: 4 },
  },
  gated: {
    provider: () =>
      new EmulatorProvider({
        model: (request) =>
          lastRole(request) === "tool"
            ? { text: "shipped" }
            : { text: "deploying", toolCalls: [{ name: "deploy", arguments: { target: "prod" } }] },
      }),
    model: "emulator:gated",
    tools: [deployTool([])],
    options: { invariants: true, maxSteps: 4 },
  },
};

/**
 * A `gated` turn run by a worker to its pause, that worker stopped, then the page's approval
 * queued as the continuation — which no worker runs until the test starts one.
 */
async function approvedWithNoWorker(sessionId: string) {
  const first = await database().worker({ profiles });
  const client = await database().client();
  const paused = await client.awaitTurn(await client.enqueueTurn({ sessionId, prompt: "ship", profile: "gated" }), {
    timeoutMs: 20_000,
  });
  expect(paused).toMatchObject({ outcome: { reason: "awaiting-approval" } });
  await first.stop();
  const [pending] = (await database().store().load(sessionId, { readOnly: true })).session.pendingApprovals();
  const decision = { approve: true, by: "page" };
  const decided = await client.enqueueDecision({ sessionId, callId: pending!.callId, decision, profile: "gated" });
  return { client, decided, pending: pending! };
}

async function storedEvents(sessionId: string) {
  return (await database().store().load(sessionId, { readOnly: true })).session.events;
}

describe("the UI message stream over the fleet's followers", () => {
  test("a turn a worker runs, read as useChat reads it: the log's message, the log's call ids", async () => {
    const client = await database().client();
    const turnId = await client.enqueueTurn({ sessionId: "ui-fleet", prompt: "check it", profile: "echoing" });
    const read = collect(toUIMessageStream(client.stream(turnId)));
    await database().worker({ profiles });
    const chunks: UIMessageChunk[] = await read;
    await expectValidChunks(chunks);
    expect(chunks[0]).toEqual({ type: "start", messageId: "turn-1" });
    expect(chunks.at(-1)).toEqual({ type: "finish", finishReason: "stop" });
    const log = await storedEvents("ui-fleet");
    const call = log.find((e) => e.type === "tool/call")!.data as { callId: string };
    const inputs = chunks.filter((c) => c.type === "tool-input-available") as { toolCallId: string }[];
    expect(inputs.map((c) => c.toolCallId)).toEqual([call.callId]);
    const { message, errors } = await assemble(chunks);
    expect(errors).toEqual([]);
    expect(message).toEqual(JSON.parse(JSON.stringify(uiMessagesFromLog(log).at(-1))));
  });

  test("a session followed across a pause while its continuation is queued: one message, carried on when a worker runs it", async () => {
    const sessionId = "ui-fleet-resume";
    const { client, decided } = await approvedWithNoWorker(sessionId);
    // The paused turn is closed and its continuation queued, with no worker: no turn is open in the
    // log (a reconnect has nothing to resume), and a follow of the session waits at the pause.
    expect(openTurnFrom(await storedEvents(sessionId))).toBeUndefined();
    const replay = collect(toUIMessageStream(client.streamSession(sessionId, { from: -1 })));
    await database().worker({ profiles });
    expect(await client.awaitTurn(decided, { timeoutMs: 20_000 })).toMatchObject({ outcome: { reason: "completed" } });
    const chunks = await replay;
    await expectValidChunks(chunks);
    expect(chunks.filter((c) => c.type === "start")).toEqual([{ type: "start", messageId: "turn-1" }]);
    expect(chunks.filter((c) => c.type === "finish")).toEqual([{ type: "finish", finishReason: "stop" }]);
    const { message } = await assemble(chunks);
    const log = await storedEvents(sessionId);
    expect(withoutAnswers([message])).toEqual(withoutAnswers([uiMessagesFromLog(log).at(-1)]));
    expect((message?.parts ?? []).filter((p) => p.type === "text").map((p) => (p as { text: string }).text)).toEqual([
      "deploying",
      "shipped",
    ]);
  });

  test("a page reloaded while its continuation is queued resumes into it: one message, the log's, when a worker runs it", async () => {
    const sessionId = "ui-fleet-reload-queued";
    const { client, decided, pending } = await approvedWithNoWorker(sessionId);
    // The page reloads now: its history shows the answer it gave (queuedAnswers), and its reconnect
    // finds no turn open in the log — without `queued`, a 204: the page would wait for a reload.
    const open = await client.openTurns(sessionId);
    expect(open.map((t) => t.id)).toEqual([decided]);
    const events = await storedEvents(sessionId);
    expect(openTurnFrom(events)).toBeUndefined();
    const pausedStart = events.findIndex((e) => e.type === "turn/start") - 1;
    expect(openTurnFrom(events, { queued: true })).toBe(pausedStart);
    const reloaded = plain(uiMessagesFromLog(events, { queuedAnswers: open.flatMap((t) => t.decision ?? []) }));
    expect(reloaded.map((m) => m.id)).toEqual([expect.any(String), "turn-1"]);
    const chat = new Chat<UIMessage>({ id: sessionId, messages: reloaded, transport: fleetResume(client, sessionId) });
    const resumed = chat.resumeStream();
    const deploy = () =>
      chat.messages[1]?.parts.find((p) => "toolCallId" in p && p.toolCallId === pending.callId) as
        | { state: string; approval?: unknown }
        | undefined;
    expect(deploy()).toMatchObject({ state: "approval-responded" }); // the reload, with the queued answer
    // The replay carries the queued answer too: the page keeps no buttons while the continuation waits.
    await until(
      () => chat.status === "streaming" && deploy()?.state !== "approval-responded",
      "the replay to rebuild the paused message",
    );
    expect(deploy()).toMatchObject({ state: "input-available", approval: { id: pending.callId } });
    await database().worker({ profiles });
    expect(await client.awaitTurn(decided, { timeoutMs: 20_000 })).toMatchObject({ outcome: { reason: "completed" } });
    await resumed;
    expect(chat.status).toBe("ready");
    const log = await storedEvents(sessionId);
    expect(chat.messages.map((m) => m.id)).toEqual([reloaded[0]!.id, "turn-1"]);
    expect(withoutAnswers(chat.messages)).toEqual(withoutAnswers(uiMessagesFromLog(log)));
    expect(chat.messages[1]!.parts.filter((p) => p.type === "text").map((p) => (p as { text: string }).text)).toEqual([
      "deploying",
      "shipped",
    ]);
  });
});

const plain = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/**
 * The page's reconnect in front of a fleet: the open or queued turn's message replayed (the queued
 * answers sent answered), then followed; 204 when idle.
 */
function fleetResume(client: FleetClient, sessionId: string) {
  return new DefaultChatTransport({
    api: "http://keelson.invalid/api/chat",
    fetch: async () => {
      const open = await client.openTurns(sessionId);
      const from = openTurnFrom(await storedEvents(sessionId), { queued: open.length > 0 });
      if (from === undefined) return new Response(null, { status: 204 });
      const queuedAnswers = open.flatMap((t) => t.decision ?? []);
      return uiMessageStreamResponse(client.streamSession(sessionId, { from }), { queuedAnswers });
    },
  });
}
