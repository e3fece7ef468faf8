// useChat's reconnect (`resume: true`) while a continuation runs — the turn that answers a paused
// one, which the page shows in the paused turn's message. The reconnect replays from where that
// message starts (`openTurnFrom`: the first turn of the chain, not the continuation's own start),
// and the UI stream goes on across the paused turn's end into its continuation, so the AI SDK's
// own `Chat` rebuilds ONE message, with the log's id, and ends with what `uiMessagesFromLog`
// rebuilds: no second message for the continuation, no part of the paused turn lost — and no
// request asked again: an approved call's part is `input-available` while it runs, a question
// answered has its answer.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Chat } from "@ai-sdk/react";
import { DefaultChatTransport, type UIMessage } from "ai";
import { describe, expect, onTestFinished, test } from "vitest";
import { ScriptedProvider } from "../../src/llm/core.js";
import { createAgentHost } from "../../src/host/index.js";
import { type AgentProfile, createAgent, type TurnOutcome } from "../../src/loop/index.js";
import {
  openTurnFrom,
  ServeError,
  toUIMessageStream,
  type UIMessageChunk,
  uiMessageStreamResponse,
  uiMessagesFromLog,
} from "../../src/serve/index.js";
import { JsonlSessionStore } from "../../src/store/index.js";
import { askingTool, deployTool } from "../support/approval-tools.js";
import { assemble, collect, expectValidChunks, waitingTool, withoutAnswers } from "./support.js";

const plain = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** A model that deploys (approval), then waits in a tool, then answers — or, `pausesTwice`, deploys again first. */
function continuingAgent(pausesTwice = false) {
  const ran: string[] = [];
  const { tool, gate, running } = waitingTool();
  const provider = new ScriptedProvider([
    { text: "deploying", toolCalls: [{ name: "deploy", arguments: { target: "staging" } }] },
    ...(pausesTwice ? [{ text: "and prod", toolCalls: [{ name: "deploy", arguments: { target: "prod" } }] }] : []),
    { text: "checking", toolCalls: [{ name: "wait" }] },
    { text: "all done" },
  ]);
  const agent = createAgent({ provider, model: "m", tools: [deployTool(ran), tool] });
  return { agent, gate, running, ran };
}

/** Approves (or denies) the one pending call, as the page's answer does; the continuation's outcome (not awaited here). */
function approvePending(agent: ReturnType<typeof continuingAgent>["agent"], approve = true): Promise<TurnOutcome> {
  const [pending] = agent.pendingApprovals();
  return agent.decide(pending!.callId, { approve, by: "page", ...(approve ? {} : { note: "not prod" }) });
}

/** The page's reconnect: `<api>/<chatId>/stream` → the chain's replay, or 204. */
function resumeTransport(agent: ReturnType<typeof continuingAgent>["agent"]) {
  return new DefaultChatTransport({
    api: "http://keelson.invalid/api/chat",
    fetch: async () => {
      const from = openTurnFrom(agent.session);
      if (from === undefined) return new Response(null, { status: 204 });
      return uiMessageStreamResponse(agent.follow({ from }));
    },
  });
}

describe("useChat's reconnect during a continuation", () => {
  test("openTurnFrom names the start of the paused turn whose message the continuation goes on in", async () => {
    const { agent, gate, running } = continuingAgent(true);
    const first = agent.send("ship it");
    expect((await first).reason.kind).toBe("awaiting-approval");
    const pausedStart = agent.session.events.findIndex((e) => e.type === "turn/start") - 1; // turn 1's
    expect((await approvePending(agent)).reason.kind).toBe("awaiting-approval"); // turn 2 continues turn 1, pauses again
    // Paused, nothing open: nothing to resume — unless a continuation is queued (a fleet's
    // openTurns), which goes on in the same message, so its replay starts where that message does.
    expect(openTurnFrom(agent.session)).toBeUndefined();
    expect(openTurnFrom(agent.session, { queued: false })).toBeUndefined();
    expect(openTurnFrom(agent.session, { queued: true })).toBe(pausedStart);
    expect(openTurnFrom(agent.session.events, { queued: true })).toBe(pausedStart);
    expect(() => openTurnFrom(agent.session, { queued: "yes" } as never)).toThrow(
      new ServeError("invalid-options", 'queued must be a boolean, got "yes"'),
    );
    const last = approvePending(agent); // turn 3 continues both
    await running.promise;
    expect(agent.session.openTurn).toBe(3);
    expect(openTurnFrom(agent.session)).toBe(pausedStart);
    expect(openTurnFrom(agent.session.events)).toBe(pausedStart); // a log's events (host.log) say the same
    gate.resolve();
    expect((await last).reason.kind).toBe("completed");
    expect(openTurnFrom(agent.session)).toBeUndefined();
    expect(openTurnFrom(agent.session.events)).toBeUndefined();
    // A turn queued after one that ended: its message is a new one, after the whole log.
    expect(openTurnFrom(agent.session, { queued: true })).toBe(agent.session.length - 1);
    // Events without their data's shape (an app's own array): no throw, no position past the log.
    const bare = (type: string, data?: unknown) => ({ type, seq: 0, time: 0, ...(data === undefined ? {} : { data }) });
    expect(openTurnFrom([bare("turn/start")] as never)).toBeUndefined();
    expect(openTurnFrom([bare("turn/end"), bare("turn/start", { turn: 2, trigger: "approval" })] as never)).toBe(0);
    expect(() => openTurnFrom(42 as never)).toThrow(
      new ServeError("invalid-argument", "openTurnFrom takes a Session or a log's events, got 42"),
    );
    await agent.dispose();
  });

  test("the reloaded page resumes into the paused turn's message: one message, the log's, at the end", async () => {
    const { agent, gate, running, ran } = continuingAgent();
    expect((await agent.send("ship it")).reason.kind).toBe("awaiting-approval");
    const continued = approvePending(agent);
    await running.promise; // the continuation waits in its tool: the page reloads here
    const reloaded = plain(uiMessagesFromLog(agent.session));
    expect(reloaded.map((m) => m.id)).toEqual([expect.any(String), "turn-1"]);
    const chat = new Chat<UIMessage>({ id: "chat-1", messages: reloaded, transport: resumeTransport(agent) });
    const resumed = chat.resumeStream();
    await until(() => chat.status === "streaming");
    gate.resolve();
    await resumed;
    expect((await continued).reason.kind).toBe("completed");
    expect(chat.status).toBe("ready");
    expect(ran).toEqual(["staging"]);
    expect(withoutAnswers(chat.messages)).toEqual(withoutAnswers(uiMessagesFromLog(agent.session)));
    const [, message] = chat.messages;
    expect(message?.parts.filter((p) => p.type === "text").map((p) => (p as { text: string }).text)).toEqual([
      "deploying",
      "checking",
      "all done",
    ]);
    await agent.dispose();
  });

  test("two pauses, one approved and one denied: the reconnect during the second continuation rebuilds the one message", async () => {
    const { agent, gate, running, ran } = continuingAgent(true);
    expect((await agent.send("ship it")).reason.kind).toBe("awaiting-approval");
    expect((await approvePending(agent)).reason.kind).toBe("awaiting-approval");
    const continued = approvePending(agent, false);
    await running.promise;
    const chat = new Chat<UIMessage>({
      id: "chat-1",
      messages: plain(uiMessagesFromLog(agent.session)),
      transport: resumeTransport(agent),
    });
    const resumed = chat.resumeStream();
    await until(() => chat.status === "streaming");
    gate.resolve();
    await resumed;
    expect((await continued).reason.kind).toBe("completed");
    expect(ran).toEqual(["staging"]);
    expect(chat.messages.map((m) => m.id)).toEqual([expect.any(String), "turn-1"]);
    const states = chat.messages[1]!.parts.flatMap((p) =>
      "state" in p && p.type.startsWith("tool-") ? [p.state] : [],
    );
    expect(states).toEqual(["output-available", "output-denied", "output-available"]);
    expect(withoutAnswers(chat.messages)).toEqual(withoutAnswers(uiMessagesFromLog(agent.session)));
    await agent.dispose();
  });

  test("the replay's chunks: one start with the paused turn's id, no finish at the pause, one at the end", async () => {
    const { agent, gate, running } = continuingAgent();
    expect((await agent.send("ship it")).reason.kind).toBe("awaiting-approval");
    const continued = approvePending(agent);
    await running.promise;
    const read = collect(toUIMessageStream(agent.follow({ from: openTurnFrom(agent.session)! })));
    gate.resolve();
    const chunks: UIMessageChunk[] = await read;
    expect((await continued).reason.kind).toBe("completed");
    await expectValidChunks(chunks);
    expect(chunks.filter((c) => c.type === "start")).toEqual([{ type: "start", messageId: "turn-1" }]);
    expect(chunks.filter((c) => c.type === "finish")).toEqual([{ type: "finish", finishReason: "stop" }]);
    expect(chunks.at(-1)).toEqual({ type: "finish", finishReason: "stop" });
    const { message, errors } = await assemble(chunks);
    expect(errors).toEqual([]);
    expect(withoutAnswers([message])).toEqual(withoutAnswers([uiMessagesFromLog(agent.session).at(-1)]));
    await agent.dispose();
  });

  test("through the agent host: openTurnFrom(await host.log(id)), then host.follow, rebuilds the one message", async () => {
    const root = await mkdtemp(join(tmpdir(), "keelson-resume-host-"));
    onTestFinished(() => rm(root, { recursive: true, force: true }));
    const { tool, gate, running } = waitingTool();
    const ran: string[] = [];
    const profile: AgentProfile = {
      provider: () =>
        new ScriptedProvider([
          { text: "deploying", toolCalls: [{ name: "deploy", arguments: { target: "staging" } }] },
          { text: "checking", toolCalls: [{ name: "wait" }] },
          { text: "all done" },
        ]),
      model: "scripted:host",
      tools: [deployTool(ran), tool],
    };
    const store = new JsonlSessionStore({ root });
    const host = createAgentHost({ store, profile });
    expect((await host.send("s1", "ship it")).reason.kind).toBe("awaiting-approval");
    const [pending] = (await host.pending("s1")).approvals;
    const continued = host.streamAnswers("s1", { decisions: [{ callId: pending!.callId, approve: true }] });
    await running.promise;
    const from = openTurnFrom(await host.log("s1"));
    expect(from).toBe(-1); // turn 1's start
    const read = collect(toUIMessageStream(await host.follow("s1", { from: from! })));
    gate.resolve();
    const chunks = await read;
    expect((await continued.outcome).reason.kind).toBe("completed");
    expect(chunks.filter((c) => c.type === "start")).toEqual([{ type: "start", messageId: "turn-1" }]);
    const { message } = await assemble(chunks);
    expect(withoutAnswers([message])).toEqual(withoutAnswers([uiMessagesFromLog(await host.log("s1")).at(-1)]));
    expect(ran).toEqual(["staging"]);
    await host.close();
    await store.close();
  });

  test("a turn a steering message split: the reconnect rebuilds the page's second message of it, not the whole turn", async () => {
    const first = waitingTool("wait_one");
    const second = waitingTool("wait_two");
    const tools = [first.tool, second.tool];
    const provider = new ScriptedProvider([
      { text: "a", toolCalls: [{ name: "wait_one" }] },
      { text: "b", toolCalls: [{ name: "wait_two" }] },
      { text: "done" },
    ]);
    const agent = createAgent({ provider, model: "m", tools });
    const outcome = agent.send("go");
    await first.running.promise;
    agent.steer("also this");
    first.gate.resolve();
    await second.running.promise; // the steering message is logged; step 2 waits in its tool
    const reloaded = plain(uiMessagesFromLog(agent.session));
    expect(reloaded.map((m) => m.id)).toEqual([
      "user-1",
      "turn-1",
      expect.stringMatching(/^user-/),
      expect.stringMatching(/^turn-1-\d+$/),
    ]);
    const chat = new Chat<UIMessage>({ id: "chat-1", messages: reloaded, transport: resumeTransport(agent) });
    const resumed = chat.resumeStream();
    await until(() => chat.status === "streaming");
    second.gate.resolve();
    await resumed;
    expect((await outcome).reason.kind).toBe("completed");
    expect(plain(chat.messages)).toEqual(plain(uiMessagesFromLog(agent.session)));
    const texts = chat.messages.map((m) => m.parts.flatMap((p) => (p.type === "text" ? [p.text] : [])));
    expect(texts).toEqual([["go"], ["a"], ["also this"], ["b", "done"]]);
    await agent.dispose();
  });

  // Found from outside: a page that keeps its live message (a network drop, no reload) holding a
  // tool part whose input was still streaming is the one `Chat` continues on a resume, unless the
  // transport says its resume is a replay: then the replay's `start` resets it. DefaultChatTransport
  // says so by default; a transport of the app's own must (`resumeStreamIsReplay: true`).
  test("a page that kept its live message, a tool call's input streaming at the drop: the replay rebuilds it, no part twice", async () => {
    for (const custom of [false, true]) {
      const { tool, gate, running } = waitingTool();
      const provider = new ScriptedProvider([
        { text: "checking", toolCalls: [{ name: "wait" }] },
        { text: "all done" },
      ]);
      const agent = createAgent({ provider, model: "m", tools: [tool] });
      const outcome = agent.send("go");
      await running.promise;
      // The page as the drop left it: the call's part still `input-streaming`, its text still streaming.
      const [user, answer] = plain(uiMessagesFromLog(agent.session));
      const live = {
        ...answer!,
        parts: answer!.parts.map((part) =>
          part.type === "tool-wait"
            ? { type: part.type, toolCallId: part.toolCallId, state: "input-streaming" as const, input: undefined }
            : part.type === "text"
              ? { ...part, text: "check", state: "streaming" as const }
              : part,
        ),
      } as UIMessage;
      const http = resumeTransport(agent);
      const transport = custom
        ? {
            resumeStreamIsReplay: true,
            sendMessages: () => Promise.reject(new Error("not sent")),
            reconnectToStream: async () => {
              const from = openTurnFrom(agent.session);
              return from === undefined ? null : toUIMessageStream(agent.follow({ from }));
            },
          }
        : http;
      const chat = new Chat<UIMessage>({ id: "chat-1", messages: [user!, live], transport });
      const resumed = chat.resumeStream();
      await until(() => chat.status === "streaming");
      gate.resolve();
      await resumed;
      expect((await outcome).reason.kind).toBe("completed");
      expect(plain(chat.messages), custom ? "an app's transport" : "DefaultChatTransport").toEqual(
        plain(uiMessagesFromLog(agent.session)),
      );
      await agent.dispose();
    }
  });

  test("a reconnect while the approved call runs asks nothing again: it is running, the question has its answer", async () => {
    // `region` asks while it runs (an MCP elicitation does); `ship` needs approval and takes its time.
    const region = askingTool();
    const { tool: ship, gate, running } = waitingTool("ship", true);
    const provider = new ScriptedProvider([
      { text: "on it", toolCalls: [{ name: "region" }, { name: "ship" }] },
      { text: "all done" },
    ]);
    const agent = createAgent({ provider, model: "m", tools: [region, ship] });
    expect((await agent.send("ship it")).reason.kind).toBe("awaiting-approval");
    const [question] = agent.pendingInputs();
    const [approval] = agent.pendingApprovals();
    expect((await agent.respond(question!.id, { value: "eu" })).reason.kind).toBe("awaiting-approval");
    const continued = agent.decide(approval!.callId, { approve: true });
    await running.promise; // `ship` runs: the page reloads here
    const reloaded = plain(uiMessagesFromLog(agent.session));
    const chat = new Chat<UIMessage>({ id: "chat-1", messages: reloaded, transport: resumeTransport(agent) });
    const resumed = chat.resumeStream();
    const state = (id: string) =>
      (chat.messages[1]?.parts ?? []).find((p) => "toolCallId" in p && p.toolCallId === id) as
        | { state: string; output?: unknown; approval?: unknown }
        | undefined;
    // The reloaded message has the decision (`approval-responded`); the replay rebuilds the message
    // from its chunks, which carry no answer: before, the part went back to `approval-requested`.
    expect(state(approval!.callId)).toMatchObject({ state: "approval-responded" });
    await until(() => chat.status === "streaming" && state(approval!.callId)?.state !== "approval-responded");
    expect(state(approval!.callId)).toMatchObject({ state: "input-available", approval: { id: approval!.callId } });
    expect(state(question!.id)).toMatchObject({ state: "output-available", output: "eu" });
    expect(state(question!.callId!)).toMatchObject({ state: "output-available", output: "region eu" });
    gate.resolve();
    await resumed;
    expect((await continued).reason.kind).toBe("completed");
    expect(state(approval!.callId)).toMatchObject({ state: "output-available", output: "waited" });
    expect(chat.messages.map((m) => m.id)).toEqual([reloaded[0]!.id, "turn-1"]);
    expect(withoutAnswers(chat.messages)).toEqual(withoutAnswers(uiMessagesFromLog(agent.session)));
    await agent.dispose();
  });

  test("a paused turn replayed alone still ends its message at the pause (finish, reason tool-calls)", async () => {
    const { agent } = continuingAgent();
    expect((await agent.send("ship it")).reason.kind).toBe("awaiting-approval");
    const chunks = await collect(toUIMessageStream(agent.follow({ from: -1 })));
    await expectValidChunks(chunks);
    expect(chunks.filter((c) => c.type === "finish")).toEqual([{ type: "finish", finishReason: "tool-calls" }]);
    expect(chunks.at(-1)).toEqual({ type: "finish", finishReason: "tool-calls" });
    await agent.dispose();
  });
});

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 2000 && !check(); i++) await new Promise((resolve) => setImmediate(resolve));
  expect(check()).toBe(true);
}
